// The .xrpm container, read: see xrpm_container_reader.h.
#include "xrpm_container_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace xrpm::formats {

namespace {

constexpr KnownPart kKnown[] = {
    {kTagSections, 0, XrpmTransform::kNone},      {kTagTypes, 0, XrpmTransform::kNone},
    {kTagOrigins, 0, XrpmTransform::kNone},       {kTagCapture, 0, XrpmTransform::kNone},
    {kTagObjectId, 8, XrpmTransform::kDelta},     {kTagObjectType, 4, XrpmTransform::kNone},
    {kTagObjectSize, 4, XrpmTransform::kNone},    {kTagRefEnd, 8, XrpmTransform::kDelta},
    {kTagRefs, 8, XrpmTransform::kOwnerDelta},    {kTagRootObject, 8, XrpmTransform::kDelta},
    {kTagRootKind, 1, XrpmTransform::kNone},      {kTagRootFlags, 1, XrpmTransform::kNone},
    {kTagRootContainer, 4, XrpmTransform::kNone}, {kTagRootOrigin, 4, XrpmTransform::kDelta},
    {kTagAllocSites, 0, XrpmTransform::kNone},    {kTagAllocFrame, 4, XrpmTransform::kDelta},
    {kTagAllocSite, 4, XrpmTransform::kNone},     {kTagFieldLayouts, 0, XrpmTransform::kNone},
    {kTagRefSlots, 4, XrpmTransform::kNone},      {kTagRootLabels, 0, XrpmTransform::kNone},
    {kTagRootLabel, 4, XrpmTransform::kDelta},    {kTagValueEnd, 8, XrpmTransform::kDelta},
    {kTagValueData, 0, XrpmTransform::kNone},     {kTagValueLength, 4, XrpmTransform::kNone},
    {kTagValueBytes, 0, XrpmTransform::kNone},    {kTagTypeFinalizers, 0, XrpmTransform::kNone},
    {kTagTypeTraits, 0, XrpmTransform::kNone},
};

}  // namespace

FileReader::FileReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) Fail(0, "open-failed", std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    Fail(0, "open-failed", std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) Fail(0, "open-failed", "not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

void FileReader::Read(uint64_t offset, void* dst, size_t n) const {
  if (fd_ < 0) {
    if (offset > size_ || n > size_ - offset) Fail(offset, "read-failed", "read past the end");
    if (n) std::memcpy(dst, mem_.data() + offset, n);
    return;
  }
  char* p = static_cast<char*>(dst);
  while (n) {
    const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      Fail(offset, "read-failed",
           r == 0 ? "the file ended early (changed while reading?)"
                  : std::string("cannot read: ") + std::strerror(errno));
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
}

const KnownPart* FindKnown(std::string_view tag) {
  for (const KnownPart& k : kKnown)
    if (k.tag == tag) return &k;
  return nullptr;
}

Layout ReadLayout(const FileReader& f) {
  Layout L;
  char head[kHeaderBytes];
  if (f.size() < kHeaderBytes) {
    // Too short for a header: say "truncated" only when what is there starts like one.
    const size_t n = static_cast<size_t>(f.size());
    std::string got(n, '\0');
    if (n) f.Read(0, got.data(), n);
    if (n >= 4 && std::memcmp(got.data(), kMagic, std::min<size_t>(n, 8)) == 0)
      f.Fail(n, "truncated",
             "truncated inside the header: the file has " + std::to_string(n) +
                 " bytes, the header alone needs " + std::to_string(kHeaderBytes));
    f.Fail(0, "bad-magic", "not an .xrpm file (too short, no XRPM magic)");
  }
  f.Read(0, head, kHeaderBytes);
  if (std::memcmp(head, kMagic, 8) != 0)
    f.Fail(0, "bad-magic", "not an .xrpm file (the first 8 bytes are not the XRPM magic)");
  Header& h = L.h;
  h.major = GetU16(head + 8);
  h.minor = GetU16(head + 10);
  if (h.major > kXrpmMajorVersion)
    f.Fail(8, "newer-version",
           "the file is format version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
               ", newer than this reader's " + std::to_string(kXrpmMajorVersion) + "." +
               std::to_string(kXrpmMinorVersion) + "; open it with a newer xrpm");
  if (h.major == 0)
    f.Fail(8, "bad-header", "format version 0." + std::to_string(h.minor) + " does not exist");
  f.CheckSum(GetU64(head + 56), Xxh3(head, 56), 0, "header");
  h.part_count = GetU32(head + 12);
  h.file_bytes = GetU64(head + 16);
  h.toc_xxh3 = GetU64(head + 24);
  if (h.part_count > kMaxParts)
    f.Fail(12, "bad-header",
           "absurd part count " + std::to_string(h.part_count) + " (at most " +
               std::to_string(kMaxParts) + ")");
  const uint64_t front = kHeaderBytes + uint64_t{h.part_count} * kTocEntryBytes;
  if (h.file_bytes < front)
    f.Fail(16, "bad-header",
           "the header says the file has " + std::to_string(h.file_bytes) +
               " bytes, less than its own table of contents (" + std::to_string(front) + ")");
  if (f.size() < front)
    f.Fail(f.size(), "truncated",
           "truncated inside the table of contents: the file has " + std::to_string(f.size()) +
               " bytes, the header says " + std::to_string(h.file_bytes));

  std::string toc(static_cast<size_t>(front - kHeaderBytes), '\0');
  f.Read(kHeaderBytes, toc.data(), toc.size());
  f.CheckSum(h.toc_xxh3, Xxh3(toc.data(), toc.size()), kHeaderBytes, "table of contents");

  uint64_t expect_offset = front;
  std::set<std::string> seen;
  L.parts.resize(h.part_count);
  for (uint32_t i = 0; i < h.part_count; ++i) {
    PartState& p = L.parts[i];
    p.toc_offset = kHeaderBytes + uint64_t{i} * kTocEntryBytes;
    p.e = DecodeTocEntry(toc.data() + i * kTocEntryBytes);
    const TocEntry& e = p.e;
    const uint64_t at = p.toc_offset;
    if (!IsValidTag(e.tag_string()))
      f.Fail(at, "bad-toc", "TOC entry " + std::to_string(i) + " has an invalid tag");
    if (!seen.insert(e.tag_string()).second) f.FailPart(e, at, "bad-toc", "appears twice");
    if (e.codec != kCodecZstdBlocks)
      f.FailPart(e, at + 7, "bad-toc", "unknown codec " + std::to_string(e.codec));
    if (e.width != 0 && e.width != 1 && e.width != 2 && e.width != 4 && e.width != 8)
      f.FailPart(e, at + 5, "bad-toc",
                 "value width " + std::to_string(e.width) + " is not 0, 1, 2, 4 or 8");
    if (e.transform > 2 || (e.width == 0 && e.transform != 0) || (e.transform == 2 && e.width != 8))
      f.FailPart(e, at + 6, "bad-toc",
                 "transform " + std::to_string(e.transform) + " is not valid for width " +
                     std::to_string(e.width));
    // Owner deltas need the object ids and reference ends, which only references have.
    if (e.transform == static_cast<uint8_t>(XrpmTransform::kOwnerDelta) &&
        e.tag_string() != kTagRefs)
      f.FailPart(e, at + 6, "bad-toc",
                 "transform 2 (owner delta) is for part '" + std::string(kTagRefs) + "' only");
    if (e.offset != expect_offset)
      f.FailPart(e, at + 16, "bad-toc",
                 "starts at byte " + std::to_string(e.offset) + ", expected " +
                     std::to_string(expect_offset) + " (parts follow each other)");
    if (e.stored_bytes > h.file_bytes - e.offset)
      f.FailPart(e, at + 24, "bad-toc",
                 std::to_string(e.stored_bytes) + " bytes from byte " + std::to_string(e.offset) +
                     " run past the end of the file (" + std::to_string(h.file_bytes) + " bytes)");
    expect_offset = e.offset + e.stored_bytes;
    // Block geometry.
    const uint64_t max_values =
        e.width ? (kMaxBlockRawBytes - 1 - e.width) / e.width : kMaxBlockRawBytes;
    if (e.count && (e.block_values == 0 || e.block_values > max_values))
      f.FailPart(e, at + 36, "bad-toc",
                 std::to_string(e.block_values) + " values per block (1.." +
                     std::to_string(max_values) + " allowed)");
    const uint64_t blocks =
        e.count ? e.count / e.block_values + (e.count % e.block_values != 0) : 0;
    if (blocks != e.block_count)
      f.FailPart(e, at + 8, "bad-count",
                 "absurd count: " + std::to_string(e.count) + " values in " +
                     std::to_string(e.block_count) + " blocks of " +
                     std::to_string(e.block_values) + " (needs " + std::to_string(blocks) +
                     " blocks)");
    if (uint64_t{e.block_count} * kBlockEntryBytes > e.stored_bytes)
      f.FailPart(e, at + 32, "bad-count",
                 "absurd count: " + std::to_string(e.block_count) + " blocks need a " +
                     std::to_string(uint64_t{e.block_count} * kBlockEntryBytes) +
                     "-byte block table, the part has " + std::to_string(e.stored_bytes) +
                     " bytes");
  }
  if (expect_offset != h.file_bytes)
    f.Fail(16, "bad-header",
           "the parts end at byte " + std::to_string(expect_offset) + " but the header says " +
               std::to_string(h.file_bytes));
  if (f.size() < h.file_bytes) {
    for (const PartState& p : L.parts)
      if (p.e.offset + p.e.stored_bytes > f.size())
        f.FailPart(p.e, f.size(), "truncated",
                   "truncated: the file has " + std::to_string(f.size()) +
                       " bytes, the header says " + std::to_string(h.file_bytes) +
                       "; this part (bytes " + std::to_string(p.e.offset) + ".." +
                       std::to_string(p.e.offset + p.e.stored_bytes) + ") is cut off");
  }
  if (f.size() > h.file_bytes)
    f.Fail(h.file_bytes, "trailing-bytes",
           std::to_string(f.size() - h.file_bytes) + " unexpected bytes after the end (" +
               std::to_string(h.file_bytes) + " bytes) the header declares");
  return L;
}

void ReadBlockTable(const FileReader& f, PartState& p) {
  const TocEntry& e = p.e;
  const uint64_t table_bytes = uint64_t{e.block_count} * kBlockEntryBytes;
  const uint64_t table_at = e.offset + e.stored_bytes - table_bytes;
  std::string t(static_cast<size_t>(table_bytes), '\0');
  if (table_bytes) f.Read(table_at, t.data(), t.size());
  f.CheckSum(e.block_table_xxh3, Xxh3(t.data(), t.size()), table_at,
             "part '" + e.tag_string() + "': block table");
  p.blocks.resize(e.block_count);
  p.block_offset.resize(e.block_count);
  uint64_t at = e.offset;
  for (uint32_t b = 0; b < e.block_count; ++b) {
    const char* q = t.data() + b * kBlockEntryBytes;
    BlockEntry& be = p.blocks[b];
    be = {GetU32(q), GetU32(q + 4), GetU64(q + 8)};
    const uint64_t n = std::min<uint64_t>(e.block_values, e.count - uint64_t{b} * e.block_values);
    const uint64_t entry_at = table_at + b * kBlockEntryBytes;
    bool ok;
    if (e.width == 0) {
      ok = be.decoded_bytes == n;
    } else {
      const uint64_t packed = be.decoded_bytes >= 1u + e.width ? be.decoded_bytes - 1 - e.width : 0;
      ok = be.decoded_bytes >= 1u + e.width && packed % n == 0 && packed / n <= e.width;
    }
    if (!ok)
      f.FailPart(
          e, entry_at, "bad-block",
          "block " + std::to_string(b) + " claims to decode to " +
              std::to_string(be.decoded_bytes) + " bytes, impossible for " + std::to_string(n) +
              (e.width ? " values of width " + std::to_string(e.width) : std::string(" bytes")));
    if (be.stored_bytes == 0 || be.stored_bytes > be.decoded_bytes ||
        be.stored_bytes > table_at - at)
      f.FailPart(e, entry_at, "bad-block",
                 "block " + std::to_string(b) + " claims " + std::to_string(be.stored_bytes) +
                     " stored bytes (decoded " + std::to_string(be.decoded_bytes) + ", " +
                     std::to_string(table_at - at) + " left in the part)");
    p.block_offset[b] = at;
    at += be.stored_bytes;
  }
  if (at != table_at)
    f.FailPart(e, at, "bad-block",
               "the blocks end at byte " + std::to_string(at) + " but the block table starts at " +
                   std::to_string(table_at));
}

void LoadBlock(const FileReader& f, const PartState& p, uint32_t b, Worker& w, char* dst) {
  const BlockEntry& be = p.blocks[b];
  const uint64_t at = p.block_offset[b];
  w.stored.resize(be.stored_bytes);
  f.Read(at, w.stored.data(), be.stored_bytes);
  f.CheckSum(be.xxh3, Xxh3(w.stored.data(), be.stored_bytes), at,
             "part '" + p.e.tag_string() + "': block " + std::to_string(b));
  if (be.stored_bytes == be.decoded_bytes) {
    std::memcpy(dst, w.stored.data(), be.stored_bytes);
    return;
  }
  if (!w.ctx) throw std::bad_alloc();
  const size_t r =
      ZSTD_decompressDCtx(w.ctx.get(), dst, be.decoded_bytes, w.stored.data(), be.stored_bytes);
  if (ZSTD_isError(r) || r != be.decoded_bytes)
    f.FailPart(p.e, at, "bad-block",
               "block " + std::to_string(b) + " does not decompress to its " +
                   std::to_string(be.decoded_bytes) + " bytes (" +
                   (ZSTD_isError(r) ? std::string("zstd: ") + ZSTD_getErrorName(r)
                                    : std::to_string(r) + " bytes") +
                   ")");
}

std::string LoadBlob(const FileReader& f, const PartState& p, Worker& w) {
  std::string out(static_cast<size_t>(p.e.count), '\0');
  for (uint32_t b = 0; b < p.e.block_count; ++b)
    LoadBlock(f, p, b, w, out.data() + uint64_t{b} * p.e.block_values);
  return out;
}

std::pair<uint64_t, uint64_t> BlockRange(const TocEntry& e, uint32_t b) {
  const uint64_t begin = uint64_t{b} * e.block_values;
  return {begin, std::min<uint64_t>(e.count, begin + e.block_values)};
}

void LoadColumnBlock(const FileReader& f, const PartState& p, uint32_t b, Worker& w,
                     const ColumnView& col) {
  w.decoded.resize(p.blocks[b].decoded_bytes);
  LoadBlock(f, p, b, w, w.decoded.data());
  const auto [begin, end] = BlockRange(p.e, b);
  try {
    UnpackColumnBlock(w.decoded, col, begin, end);
  } catch (const std::runtime_error& x) {
    f.FailPart(p.e, p.block_offset[b], "bad-block", "block " + std::to_string(b) + ": " + x.what());
  }
}

std::vector<XrpmPartInfo> ListXrpmParts(const std::string& path) {
  FileReader f(path);
  Layout L = ReadLayout(f);
  std::vector<XrpmPartInfo> out;
  for (PartState& p : L.parts) {
    ReadBlockTable(f, p);
    XrpmPartInfo i;
    i.tag = p.e.tag_string();
    i.required = p.e.required();
    i.width = p.e.width;
    i.transform = p.e.transform;
    i.count = p.e.count;
    i.offset = p.e.offset;
    i.stored_bytes = p.e.stored_bytes;
    i.raw_bytes = p.e.width ? p.e.count * p.e.width : p.e.count;
    i.blocks = p.e.block_count;
    i.known = FindKnown(i.tag) != nullptr;
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace xrpm::formats
