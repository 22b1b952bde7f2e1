// .xrpm reader (xrpm_file.h, docs/FORMAT.md).
//
// Order of work, so that nothing is allocated from a size the file has not backed:
//   1. header: magic, version (a newer major is refused naming both), checksum, file size
//      against the real size (a truncated file names the first part it cuts);
//   2. TOC: checksum, each entry's tag, width, transform, block geometry, and its bytes lying
//      inside the file, parts contiguous and in order;
//   3. block tables (16 B per block, inside the part): checksum, each block's stored and decoded
//      sizes against the block geometry (a block decodes to at most 4 MiB);
//   4. metadata blobs (sections, types, origins, capture, allocation sites), then counts across
//      parts (the allocation origin parts are optional, but all three or none);
//   5. the model's columns allocated at their final sizes, blocks decoded on several threads
//      (references last: they are stored relative to their object's id), each block's checksum
//      verified before it is decompressed, values range-checked (type indices, origins, CSR ends).
// Every failure is an InputError with the part's tag and a byte offset.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/huge_pages.h"
#include "xrpm/model/object_fields.h"
#include "xrpm_blocks.h"
#include "xrpm_fields.h"
#include "xrpm_layout.h"
#include "xrpm_meta.h"

namespace xrpm::formats {
namespace {


std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

struct DctxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

struct KnownPart {
  std::string_view tag;
  uint8_t width;
  XrpmTransform transform;
};
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
    {kTagValueData, 0, XrpmTransform::kNone},
};

const KnownPart* FindKnown(std::string_view tag) {
  for (const KnownPart& k : kKnown)
    if (k.tag == tag) return &k;
  return nullptr;
}

class FileReader {
 public:
  explicit FileReader(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) Fail(0, "open-failed", std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      Fail(0, "open-failed", std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) Fail(0, "open-failed", "not a regular file");
    size_ = static_cast<uint64_t>(st.st_size);
  }
  // Reads from memory instead (ReadXrpm); `bytes` must outlive the reader.
  FileReader(std::string_view bytes, std::string name)
      : path_(std::move(name)), mem_(bytes), size_(bytes.size()) {}
  ~FileReader() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  [[noreturn]] void Fail(uint64_t offset, const std::string& code, const std::string& msg) const {
    throw InputError(
        Diagnostic{path_, 0, code, "at byte offset " + std::to_string(offset) + ": " + msg});
  }
  [[noreturn]] void FailPart(const TocEntry& e, uint64_t offset, const std::string& code,
                             const std::string& msg) const {
    Fail(offset, code, "part '" + e.tag_string() + "': " + msg);
  }

  // Reads exactly n bytes at `offset` (callers checked the range against size()).
  void Read(uint64_t offset, void* dst, size_t n) const {
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

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // False only for fuzzing (XrpmReadOptions::verify_checksums).
  bool verify = true;
  // Fails with a checksum error unless the sums agree (or checks are off).
  void CheckSum(uint64_t stored, uint64_t computed, uint64_t offset,
                const std::string& what) const {
    if (verify && stored != computed)
      Fail(
          offset, "checksum",
          what + " checksum mismatch (stored " + Hex(stored) + ", computed " + Hex(computed) + ")");
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string_view mem_;
  uint64_t size_ = 0;
};

struct PartState {
  TocEntry e;
  uint64_t toc_offset = 0;
  const KnownPart* known = nullptr;
  bool wanted = false;  // an extra part the caller asked for
  std::vector<BlockEntry> blocks;
  std::vector<uint64_t> block_offset;  // file offset of each block
};

// Validated header, TOC and block tables.
struct Layout {
  Header h;
  std::vector<PartState> parts;
};

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

// One worker's buffers for reading and decompressing blocks.
struct Worker {
  std::unique_ptr<ZSTD_DCtx, DctxDeleter> ctx{ZSTD_createDCtx()};
  std::string stored, decoded;
};

// Reads, checks and decompresses block b of p into dst (decoded_bytes long).
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

// The range [begin, end) of values in block b.
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

class SnapshotLoader {
 public:
  SnapshotLoader(const FileReader& f, Layout& L, const XrpmReadOptions& opts)
      : f_(f), L_(L), opts_(opts), threads_(ResolveThreads(opts.threads)) {}

  XrpmContents Load() {
    XrpmContents out;
    out.major = L_.h.major;
    out.minor = L_.h.minor;
    Classify(out);
    CheckCounts();
    for (PartState& p : L_.parts)
      if (p.known || p.wanted) ReadBlockTable(f_, p);
    workers_.resize(threads_);
    Snapshot& s = out.snapshot;
    DecodeMetadata(s);
    CheckSections(s);
    Allocate(s, out);
    DecodeColumns(s, out);
    CheckFieldParts(s);
    return out;
  }

 private:
  PartState* Part(std::string_view tag) {
    for (PartState& p : L_.parts)
      if (p.known && p.known->tag == tag) return &p;
    return nullptr;
  }
  PartState& Need(std::string_view tag) {
    PartState* p = Part(tag);
    if (!p)
      f_.Fail(kHeaderBytes, "missing-part",
              "the file has no '" + std::string(tag) + "' part, which every snapshot needs");
    return *p;
  }

  void Classify(XrpmContents& out) {
    for (PartState& p : L_.parts) {
      const std::string tag = p.e.tag_string();
      p.known = FindKnown(tag);
      if (p.known) {
        if (p.e.width != p.known->width ||
            p.e.transform != static_cast<uint8_t>(p.known->transform))
          f_.FailPart(p.e, p.toc_offset + 5, "bad-toc",
                      "width " + std::to_string(p.e.width) + " / transform " +
                          std::to_string(p.e.transform) + ", expected " +
                          std::to_string(p.known->width) + " / " +
                          std::to_string(static_cast<int>(p.known->transform)));
        continue;
      }
      p.wanted = std::find(opts_.wanted.begin(), opts_.wanted.end(), tag) != opts_.wanted.end();
      if (p.wanted) continue;
      if (p.e.required())
        f_.FailPart(p.e, p.toc_offset, "unknown-part",
                    "a required part this reader (format " + std::to_string(kXrpmMajorVersion) +
                        "." + std::to_string(kXrpmMinorVersion) +
                        ") does not know; the file (format " + std::to_string(L_.h.major) + "." +
                        std::to_string(L_.h.minor) + ") needs a newer xrpm");
      out.skipped.push_back(
          "skipped optional part '" + tag + "' (" + std::to_string(p.e.stored_bytes) +
          " bytes), unknown to this reader (format " + std::to_string(kXrpmMajorVersion) + "." +
          std::to_string(kXrpmMinorVersion) + ")");
    }
  }

  template <class Fn>
  void Blob(std::string_view tag, Fn&& decode) {
    PartState& p = Need(tag);
    const std::string bytes = LoadBlob(f_, p, workers_[0]);
    try {
      decode(bytes);
    } catch (const std::exception& x) {
      f_.FailPart(p.e, p.e.offset, "bad-part", x.what());
    }
  }

  void DecodeMetadata(Snapshot& s) {
    Blob(kTagSections, [&](std::string_view b) { DecodeSections(b, s); });
    Blob(kTagTypes, [&](std::string_view b) { DecodeTypes(b, s); });
    Blob(kTagOrigins, [&](std::string_view b) { DecodeOrigins(b, s); });
    if (Part(kTagCapture))
      Blob(kTagCapture, [&](std::string_view b) { s.capture = DecodeCapture(b); });
    if (has_alloc_)
      Blob(kTagAllocSites, [&](std::string_view b) { s.origins = DecodeAllocSites(b); });
    if (Part(kTagFieldLayouts))
      Blob(kTagFieldLayouts,
           [&](std::string_view b) { DecodeFieldLayouts(b, s.types.size(), s.fields); });
    if (Part(kTagRootLabels))
      Blob(kTagRootLabels, [&](std::string_view b) { DecodeRootLabels(b, s.fields); });
  }

  // The object-content parts come in groups: slots and values need the layouts, the labels'
  // blob and column and the values' ends and bytes go together.
  void CheckFieldCounts() {
    auto needs = [&](std::string_view tag, std::string_view other) {
      if (Part(tag) && !Part(other))
        f_.Fail(kHeaderBytes, "missing-part",
                "the file has part '" + std::string(tag) + "' but not '" + std::string(other) +
                    "', which it needs");
    };
    needs(kTagRefSlots, kTagFieldLayouts);
    needs(kTagValueEnd, kTagFieldLayouts);
    needs(kTagValueEnd, kTagValueData);
    needs(kTagValueData, kTagValueEnd);
    needs(kTagRootLabel, kTagRootLabels);
    needs(kTagRootLabels, kTagRootLabel);
    if (Part(kTagRefSlots)) SameCount(kTagRefSlots, kTagRefs);
    if (Part(kTagRootLabel)) SameCount(kTagRootLabel, kTagRootObject);
    if (Part(kTagValueEnd)) SameCount(kTagValueEnd, kTagObjectId);
  }

  // After every column is decoded: slots, labels and values against the layouts and objects.
  void CheckFieldParts(const Snapshot& s) {
    if (!s.fields.present()) return;
    FieldsPart where = FieldsPart::kLayouts;
    const std::string problem = CheckFields(s, &where);
    if (problem.empty()) return;
    const std::string_view tag = where == FieldsPart::kSlots    ? kTagRefSlots
                                 : where == FieldsPart::kLabels ? kTagRootLabel
                                 : where == FieldsPart::kValues ? kTagValueEnd
                                                                : kTagFieldLayouts;
    const PartState& p = Need(tag);
    f_.FailPart(p.e, p.e.offset, "bad-part", problem);
  }

  void SameCount(std::string_view tag, std::string_view like) {
    const PartState& p = Need(tag);
    const PartState& q = Need(like);
    if (p.e.count != q.e.count)
      f_.FailPart(p.e, p.toc_offset + 8, "bad-count",
                  "absurd count: " + std::to_string(p.e.count) + " values, but part '" +
                      std::string(like) + "' has " + std::to_string(q.e.count));
  }

  void CheckCounts() {
    for (auto t : {kTagObjectType, kTagObjectSize, kTagRefEnd}) SameCount(t, kTagObjectId);
    for (auto t : {kTagRootKind, kTagRootFlags, kTagRootContainer, kTagRootOrigin})
      SameCount(t, kTagRootObject);
    objects_ = Need(kTagObjectId).e.count;
    refs_ = Need(kTagRefs).e.count;
    roots_ = Need(kTagRootObject).e.count;
    if (objects_ == 0 && refs_ != 0)
      f_.FailPart(Need(kTagRefs).e, Need(kTagRefs).toc_offset + 8, "bad-count",
                  "absurd count: " + std::to_string(refs_) + " references without objects");
    // Allocation origins: the sites blob and both per-object columns, or none of them.
    const PartState* alloc[] = {Part(kTagAllocSites), Part(kTagAllocFrame), Part(kTagAllocSite)};
    has_alloc_ = alloc[0] || alloc[1] || alloc[2];
    if (has_alloc_) {
      for (const PartState* p : alloc)
        if (!p)
          f_.Fail(kHeaderBytes, "missing-part",
                  "the file has some of the allocation origin parts 'ASIT', 'OAFR', 'OASI' "
                  "but not all three");
      SameCount(kTagAllocFrame, kTagObjectId);
      SameCount(kTagAllocSite, kTagObjectId);
    }
    CheckFieldCounts();
  }

  // Sections follow each other and cover the columns; each owns its own types.
  void CheckSections(const Snapshot& s) {
    const PartState& sec = Need(kTagSections);
    uint64_t ob = 0, rb = 0;
    uint32_t tb = 0;
    for (size_t i = 0; i < s.sections.size(); ++i) {
      const AppDomainSection& a = s.sections[i];
      if (a.types_begin != tb || a.types_end < a.types_begin || a.types_end > s.types.size() ||
          a.objects_begin != ob || a.objects_end < a.objects_begin || a.objects_end > objects_ ||
          a.roots_begin != rb || a.roots_end < a.roots_begin || a.roots_end > roots_)
        f_.FailPart(sec.e, sec.e.offset, "bad-part",
                    "section " + std::to_string(i) + " ranges (types " +
                        std::to_string(a.types_begin) + ".." + std::to_string(a.types_end) +
                        ", objects " + std::to_string(a.objects_begin) + ".." +
                        std::to_string(a.objects_end) + ", roots " + std::to_string(a.roots_begin) +
                        ".." + std::to_string(a.roots_end) +
                        ") do not follow the previous section's or exceed the file's " +
                        std::to_string(s.types.size()) + " types, " + std::to_string(objects_) +
                        " objects, " + std::to_string(roots_) + " roots");
      for (uint32_t t = a.types_begin; t < a.types_end; ++t)
        if (s.types[t].section != i)
          f_.FailPart(sec.e, sec.e.offset, "bad-part",
                      "type " + std::to_string(t) + " lies in section " + std::to_string(i) +
                          "'s range but names section " + std::to_string(s.types[t].section));
      ob = a.objects_end;
      rb = a.roots_end;
      tb = a.types_end;
    }
    if (!s.sections.empty() && (ob != objects_ || rb != roots_ || tb != s.types.size()))
      f_.FailPart(sec.e, sec.e.offset, "bad-part",
                  "the sections cover " + std::to_string(tb) + " types, " + std::to_string(ob) +
                      " objects and " + std::to_string(rb) + " roots of " +
                      std::to_string(s.types.size()) + ", " + std::to_string(objects_) + " and " +
                      std::to_string(roots_));
  }

  // A column at its final size, on huge pages when large (as the .gclog reader's columns): the
  // blocks are decoded straight into it.
  template <class T>
  static void Size(PodVector<T>& v, uint64_t n) {
    v.reserve(n);
    AdviseHugePages(v.data(), v.bytes_reserved());
    v.resize_uninitialized(n);
  }

  void Allocate(Snapshot& s, XrpmContents& out) {
    Size(s.object_id, objects_);
    Size(s.object_type, objects_);
    Size(s.object_size, objects_);
    Size(s.ref_end, objects_);
    Size(s.refs, refs_);
    Size(s.root_object, roots_);
    Size(s.root_kind, roots_);
    Size(s.root_flags, roots_);
    Size(s.root_container, roots_);
    Size(s.root_origin, roots_);
    if (has_alloc_) {
      Size(s.object_alloc_frame, objects_);
      Size(s.object_alloc_site, objects_);
    }
    if (Part(kTagRefSlots)) Size(s.fields.ref_slot, refs_);
    if (Part(kTagRootLabel)) Size(s.fields.root_label, roots_);
    if (Part(kTagValueEnd)) {
      Size(s.fields.value_end, objects_);
      Size(s.fields.value_data, Need(kTagValueData).e.count);
    }
    for (PartState& p : L_.parts) {
      if (!p.wanted) continue;
      XrpmPart x;
      x.tag = p.e.tag_string();
      x.required = p.e.required();
      x.width = p.e.width;
      x.transform = static_cast<XrpmTransform>(p.e.transform);
      x.data.resize_uninitialized(p.e.width ? p.e.count * p.e.width : p.e.count);
      extra_index_.push_back(&p - L_.parts.data());
      out.parts.push_back(std::move(x));
    }
  }

  template <class T>
  static ColumnView View(PodVector<T>& v, XrpmTransform t) {
    return ColumnView{reinterpret_cast<uint8_t*>(v.data()), sizeof(T), t};
  }

  void DecodeColumns(Snapshot& s, XrpmContents& out) {
    struct Job {
      PartState* part;
      ColumnView col;
      int check;  // 0 none, 1 type index, 2 origin index, 3 ref ends monotone, 4 root kind,
                  // 5 allocation site index
    };
    std::vector<Job> jobs = {
        {&Need(kTagObjectId), View(s.object_id, XrpmTransform::kDelta), 0},
        {&Need(kTagObjectType), View(s.object_type, XrpmTransform::kNone), 1},
        {&Need(kTagObjectSize), View(s.object_size, XrpmTransform::kNone), 0},
        {&Need(kTagRefEnd), View(s.ref_end, XrpmTransform::kDelta), 3},
        {&Need(kTagRootObject), View(s.root_object, XrpmTransform::kDelta), 0},
        {&Need(kTagRootKind), View(s.root_kind, XrpmTransform::kNone), 4},
        {&Need(kTagRootFlags), View(s.root_flags, XrpmTransform::kNone), 0},
        {&Need(kTagRootContainer), View(s.root_container, XrpmTransform::kNone), 0},
        {&Need(kTagRootOrigin), View(s.root_origin, XrpmTransform::kDelta), 2},
    };
    if (has_alloc_) {
      jobs.push_back({&Need(kTagAllocFrame), View(s.object_alloc_frame, XrpmTransform::kDelta), 0});
      jobs.push_back({&Need(kTagAllocSite), View(s.object_alloc_site, XrpmTransform::kNone), 5});
    }
    if (Part(kTagRefSlots))
      jobs.push_back({&Need(kTagRefSlots), View(s.fields.ref_slot, XrpmTransform::kNone), 0});
    if (Part(kTagRootLabel))
      jobs.push_back({&Need(kTagRootLabel), View(s.fields.root_label, XrpmTransform::kDelta), 0});
    if (Part(kTagValueEnd)) {
      jobs.push_back({&Need(kTagValueEnd), View(s.fields.value_end, XrpmTransform::kDelta), 0});
      jobs.push_back({&Need(kTagValueData), View(s.fields.value_data, XrpmTransform::kNone), 0});
    }
    for (size_t k = 0; k < extra_index_.size(); ++k) {
      PartState& p = L_.parts[extra_index_[k]];
      XrpmPart& x = out.parts[k];
      jobs.push_back({&p, ColumnView{x.data.data(), x.width, x.transform}, 0});
    }
    auto run = [&](const std::vector<Job>& js) {
      std::vector<std::pair<size_t, uint32_t>> tasks;
      for (size_t j = 0; j < js.size(); ++j)
        for (uint32_t b = 0; b < js[j].part->e.block_count; ++b) tasks.push_back({j, b});
      ForEachTask(tasks.size(), threads_, [&](unsigned worker, size_t t) {
        const Job& job = js[tasks[t].first];
        const uint32_t b = tasks[t].second;
        Worker& w = workers_[worker];
        const PartState& p = *job.part;
        if (p.e.width == 0) {
          LoadBlock(f_, p, b, w, reinterpret_cast<char*>(job.col.data) + BlockRange(p.e, b).first);
          return;
        }
        LoadColumnBlock(f_, p, b, w, job.col);
        Check(s, job.check, p, b);
      });
    };
    run(jobs);
    // References are stored relative to their object's id: they need OBID and OREF decoded.
    if (objects_) {
      const uint64_t last = s.ref_end[objects_ - 1];
      const PartState& oref = Need(kTagRefEnd);
      for (uint32_t b = 1; b < oref.e.block_count; ++b) {
        const uint64_t i = uint64_t{b} * oref.e.block_values;
        if (s.ref_end[i] < s.ref_end[i - 1]) BadRefEnd(oref, b, i);
      }
      if (last != refs_)
        f_.FailPart(oref.e, oref.e.offset, "bad-count",
                    "the reference ends stop at " + std::to_string(last) +
                        ", but part 'REFS' has " + std::to_string(refs_) + " references");
    }
    ColumnView refs = View(s.refs, XrpmTransform::kOwnerDelta);
    refs.owner_id = s.object_id.data();
    refs.ref_end = s.ref_end.data();
    refs.owners = objects_;
    run({{&Need(kTagRefs), refs, 0}});
  }

  [[noreturn]] void BadRefEnd(const PartState& p, uint32_t b, uint64_t i) const {
    f_.FailPart(p.e, p.block_offset[b], "bad-part",
                "block " + std::to_string(b) + ": reference end of object " + std::to_string(i) +
                    " is below the previous object's (the ends must not decrease)");
  }

  void Check(const Snapshot& s, int check, const PartState& p, uint32_t b) const {
    const auto [begin, end] = BlockRange(p.e, b);
    switch (check) {
      case 1: {  // type indices in range, and of the object's own section
        size_t k = static_cast<size_t>(std::upper_bound(s.sections.begin(), s.sections.end(), begin,
                                                        [](uint64_t i, const AppDomainSection& a) {
                                                          return i < a.objects_end;
                                                        }) -
                                       s.sections.begin());
        for (uint64_t i = begin; i < end; ++i) {
          while (k < s.sections.size() && i >= s.sections[k].objects_end) ++k;
          const uint32_t t = s.object_type[i];
          const bool ok = k < s.sections.size()
                              ? t >= s.sections[k].types_begin && t < s.sections[k].types_end
                              : t < s.types.size();
          if (!ok)
            f_.FailPart(p.e, p.block_offset[b], "bad-part",
                        "block " + std::to_string(b) + ": object " + std::to_string(i) +
                            " has type index " + std::to_string(t) +
                            ", not a type of its section (" + std::to_string(s.types.size()) +
                            " types)");
        }
        break;
      }
      case 4:
        for (uint64_t i = begin; i < end; ++i)
          if (s.root_kind[i] >= kRootKindCount)
            f_.FailPart(p.e, p.block_offset[b], "bad-part",
                        "block " + std::to_string(b) + ": root " + std::to_string(i) +
                            " has kind " + std::to_string(s.root_kind[i]) + " (0-5 allowed)");
        break;
      case 2:
        for (uint64_t i = begin; i < end; ++i)
          if (s.root_origin[i] != kNoIndex && s.root_origin[i] >= s.root_origins.size())
            f_.FailPart(p.e, p.block_offset[b], "bad-part",
                        "block " + std::to_string(b) + ": root " + std::to_string(i) +
                            " names origin " + std::to_string(s.root_origin[i]) + " of " +
                            std::to_string(s.root_origins.size()));
        break;
      case 3:
        for (uint64_t i = begin + 1; i < end; ++i)
          if (s.ref_end[i] < s.ref_end[i - 1]) BadRefEnd(p, b, i);
        if (end > begin && s.ref_end[end - 1] > refs_)
          f_.FailPart(p.e, p.block_offset[b], "bad-part",
                      "block " + std::to_string(b) + ": reference end " +
                          std::to_string(s.ref_end[end - 1]) + " is beyond the " +
                          std::to_string(refs_) + " references");
        break;
      case 5: {
        const size_t sites = s.origins ? s.origins->sites.size() : 0;
        for (uint64_t i = begin; i < end; ++i)
          if (s.object_alloc_site[i] != kUnknownSite && s.object_alloc_site[i] >= sites)
            f_.FailPart(p.e, p.block_offset[b], "bad-part",
                        "block " + std::to_string(b) + ": object " + std::to_string(i) +
                            " names allocation site " + std::to_string(s.object_alloc_site[i]) +
                            " of " + std::to_string(sites));
        break;
      }
      default:
        break;
    }
  }

  const FileReader& f_;
  Layout& L_;
  const XrpmReadOptions& opts_;
  unsigned threads_;
  std::vector<Worker> workers_;
  std::vector<size_t> extra_index_;
  uint64_t objects_ = 0, refs_ = 0, roots_ = 0;
  bool has_alloc_ = false;  // the file has allocation origins (ASIT, OAFR, OASI)
};

}  // namespace

XrpmContents ReadXrpmFile(const std::string& path, const XrpmReadOptions& opts) {
  FileReader f(path);
  f.verify = opts.verify_checksums;
  Layout L = ReadLayout(f);
  return SnapshotLoader(f, L, opts).Load();
}

XrpmContents ReadXrpm(std::string_view bytes, const std::string& name,
                      const XrpmReadOptions& opts) {
  FileReader f(bytes, name);
  f.verify = opts.verify_checksums;
  Layout L = ReadLayout(f);
  return SnapshotLoader(f, L, opts).Load();
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

Snapshot ReadXrpmSnapshotFile(const std::string& path, Diagnostics& diags) {
  XrpmContents c = ReadXrpmFile(path);
  if (!diags.strict())
    for (const std::string& s : c.skipped) diags.Add(path, 0, "skipped-part", s);
  return std::move(c.snapshot);
}

bool LooksLikeXrpm(std::string_view head) {
  return head.size() >= 4 &&
         std::memcmp(head.data(), kMagic, std::min<size_t>(head.size(), 8)) == 0;
}

}  // namespace xrpm::formats
