#include "xrpm/formats/recording_file.h"

#include <cstring>
#include <map>
#include <span>
#include <stdexcept>

#include "xrpm/formats/xrpm_blob.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::formats {
namespace {

// Blob versions written by this code; a reader takes any later version (they only append).
// Header 2 appends the frame totals (FrameTotals); a version-1 header reads as exact.
constexpr uint8_t kHeaderVersion = 2;
constexpr uint8_t kDefsVersion = 1;
constexpr uint8_t kMarkersVersion = 1;
constexpr size_t kMaxNameBytes = 1024;      // method and type names (frame_batch_reader)
constexpr size_t kMaxEndpointBytes = 1024;  // HOST:PORT as the user typed it

constexpr std::string_view kTagHeader = "rhdr";
constexpr std::string_view kTagDefs = "rdef";
constexpr std::string_view kTagMarkers = "rmrk";

// One row field stored as a column part.
template <class Row>
struct Column {
  std::string_view tag;
  uint8_t width;
  XrpmTransform transform;
  uint64_t (*get)(const Row&);
  void (*set)(Row&, uint64_t);
  bool optional = false;  // added later: files written before it do not have it (rows keep 0)
};
#define XRPM_FIELD(Row, f)                                 \
  [](const Row& r) { return static_cast<uint64_t>(r.f); }, \
      [](Row& r, uint64_t v) { r.f = static_cast<decltype(r.f)>(v); }

constexpr XrpmTransform kNone = XrpmTransform::kNone;
constexpr XrpmTransform kDelta = XrpmTransform::kDelta;
const Column<FrameRow> kFrameColumns[] = {
    {"rfnr", 8, kDelta, XRPM_FIELD(FrameRow, frame)},
    {"rfen", 8, kDelta, XRPM_FIELD(FrameRow, end_us)},
    {"rfdu", 4, kNone, XRPM_FIELD(FrameRow, duration_us)},
    {"rfwk", 4, kNone, XRPM_FIELD(FrameRow, work_us)},
    {"rfab", 8, kNone, XRPM_FIELD(FrameRow, alloc_bytes)},
    {"rfao", 4, kNone, XRPM_FIELD(FrameRow, alloc_objects)},
    {"rfgc", 4, kNone, XRPM_FIELD(FrameRow, gcs)},
    {"rfgp", 4, kNone, XRPM_FIELD(FrameRow, gc_pause_us)},
    {"rfbl", 8, kDelta, XRPM_FIELD(FrameRow, gc_budget_left)},
    {"rfgk", 4, kNone, XRPM_FIELD(FrameRow, gc_kinds), true},
};
const Column<SampleRow> kSampleColumns[] = {
    {"rsfr", 8, kDelta, XRPM_FIELD(SampleRow, frame)},
    {"rsst", 4, kNone, XRPM_FIELD(SampleRow, stack)},
    {"rsty", 4, kNone, XRPM_FIELD(SampleRow, type)},
    {"rssz", 4, kNone, XRPM_FIELD(SampleRow, size)},
    {"rstg", 4, kNone, XRPM_FIELD(SampleRow, tag)},
};
#undef XRPM_FIELD

template <class Row>
XrpmPart EncodeColumn(const Column<Row>& c, const std::vector<Row>& rows) {
  XrpmPart p;
  p.tag = std::string(c.tag);
  p.width = c.width;
  p.transform = c.transform;
  p.data.resize_uninitialized(rows.size() * c.width);
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint64_t v = c.get(rows[i]);
    std::memcpy(p.data.data() + i * c.width, &v, c.width);  // little-endian host (xrpm_blob.h)
  }
  return p;
}

XrpmPart BlobPart(std::string_view tag, BlobWriter& w) {
  return XrpmPart::Blob(std::string(tag), w.bytes());
}

void PutNames(BlobWriter& w, const std::vector<std::string>& names) {
  w.U32(static_cast<uint32_t>(names.size()));
  for (const std::string& n : names) w.Str(n);
}

// The parts of one file, by tag, and errors that name the file, the part and its offset.
class PartSet {
 public:
  PartSet(const formats::XrpmContents& c, const std::string& name) : name_(name) {
    for (const XrpmPart& p : c.parts) parts_[p.tag] = &p;
  }
  [[noreturn]] void Fail(const XrpmPart& p, const std::string& code, const std::string& msg) const {
    throw InputError(Diagnostic{
        name_, 0, code,
        "at byte offset " + std::to_string(p.offset) + ": part '" + p.tag + "': " + msg});
  }
  bool Has(std::string_view tag) const { return parts_.find(tag) != parts_.end(); }
  const XrpmPart& Need(std::string_view tag) const {
    auto it = parts_.find(std::string(tag));
    if (it == parts_.end())
      throw InputError(Diagnostic{
          name_, 0, "missing-part",
          "at byte offset 64: the file holds a recording (part 'rhdr') but not its part '" +
              std::string(tag) + "'"});
    return *it->second;
  }
  // Decodes a blob part; a read past its end or a check that throws becomes a "bad-part" error.
  template <class Fn>
  void Blob(std::string_view tag, Fn&& decode) const {
    const XrpmPart& p = Need(tag);
    if (p.width != 0)
      Fail(p, "bad-part", "a column of width " + std::to_string(p.width) + ", expected a blob");
    try {
      decode(BlobReader(
          std::string_view(reinterpret_cast<const char*>(p.data.data()), p.data.size())));
    } catch (const std::exception& x) {
      Fail(p, "bad-part", x.what());
    }
  }
  // Decodes the column parts of one row kind into `rows`: every column must have the width
  // this code writes and the first column's count.
  template <class Row, size_t N>
  void Columns(const Column<Row> (&cols)[N], std::vector<Row>& rows) const {
    const size_t n = Need(cols[0].tag).count();
    for (const Column<Row>& c : cols) {
      if (c.optional && !Has(c.tag)) continue;
      const XrpmPart& p = Need(c.tag);
      if (p.width != c.width)
        Fail(p, "bad-part",
             "width " + std::to_string(p.width) + ", expected " + std::to_string(c.width));
      if (p.count() != n)
        Fail(p, "bad-count",
             std::to_string(p.count()) + " values, expected " + std::to_string(n) +
                 " (the count of part '" + std::string(cols[0].tag) + "')");
    }
    rows.assign(n, Row{});
    for (const Column<Row>& c : cols) {
      if (c.optional && !Has(c.tag)) continue;
      const uint8_t* d = Need(c.tag).data.data();
      for (size_t i = 0; i < n; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, d + i * c.width, c.width);
        c.set(rows[i], v);
      }
    }
  }

 private:
  const std::string& name_;
  std::map<std::string, const XrpmPart*, std::less<>> parts_;
};

// "at blob offset N: what" for checks inside a blob (PartSet::Blob adds the part).
[[noreturn]] void BadBlob(const BlobReader& r, const std::string& what) {
  throw std::runtime_error("at blob offset " + std::to_string(r.pos()) + ": " + what);
}

std::string CheckedStr(BlobReader& r, size_t max_bytes, const char* what) {
  const size_t at = r.pos();
  std::string s = r.Str();
  if (s.size() > max_bytes)
    throw std::runtime_error("at blob offset " + std::to_string(at) + ": " + what + " of " +
                             std::to_string(s.size()) + " bytes, expected at most " +
                             std::to_string(max_bytes));
  return s;
}

void GetNames(BlobReader& r, uint32_t max_count, size_t max_bytes, const char* what,
              std::vector<std::string>& out) {
  const uint32_t n = r.Count(4);
  if (n > max_count)
    BadBlob(r, std::to_string(n) + " " + what + "s, expected at most " + std::to_string(max_count));
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) out.push_back(CheckedStr(r, max_bytes, what));
}

uint8_t Version(BlobReader& r, const char* what) {
  const uint8_t v = r.U8();
  if (v == 0) BadBlob(r, std::string(what) + " version 0, expected 1 or later");
  return v;
}

}  // namespace

const std::vector<std::string>& RecordingPartTags() {
  static const std::vector<std::string> tags = [] {
    std::vector<std::string> t = {std::string(kTagHeader), std::string(kTagDefs),
                                  std::string(kTagMarkers)};
    for (const auto& c : kFrameColumns) t.emplace_back(c.tag);
    for (const auto& c : kSampleColumns) t.emplace_back(c.tag);
    return t;
  }();
  return tags;
}

std::vector<XrpmPart> EncodeRecordingParts(const SavedRecording& s) {
  const FrameRecording& r = s.rec;
  std::vector<XrpmPart> parts;
  BlobWriter h;  // rhdr: version, then the recording's scalars
  h.U8(kHeaderVersion);
  h.Str(r.app);
  h.Str(s.endpoint);
  h.U32(r.sample_bytes);
  h.U64(r.dropped_markers);
  h.U64(r.dropped_records);
  h.U64(r.batches);
  h.U64(r.wire_bytes);
  h.U64(r.host_dropped_rows);
  h.U64(r.subscription);
  h.U8(static_cast<uint8_t>(r.frame_totals));
  parts.push_back(BlobPart(kTagHeader, h));
  BlobWriter d;  // rdef: the method, type, tag and stack tables
  d.U8(kDefsVersion);
  PutNames(d, r.methods);
  PutNames(d, r.types);
  PutNames(d, r.tags);
  d.U32(static_cast<uint32_t>(r.stacks.size()));
  for (const auto& st : r.stacks) {
    d.U32(static_cast<uint32_t>(st.size()));
    for (uint32_t m : st) d.U32(m);
  }
  parts.push_back(BlobPart(kTagDefs, d));
  BlobWriter m;  // rmrk: markers in posting order
  m.U8(kMarkersVersion);
  m.U32(static_cast<uint32_t>(r.markers.size()));
  for (const MarkerRow& x : r.markers) {
    m.U8(static_cast<uint8_t>(x.kind));
    m.U64(x.frame);
    m.U64(x.time_us);
    m.Str(x.text);
  }
  parts.push_back(BlobPart(kTagMarkers, m));
  for (const auto& c : kFrameColumns) parts.push_back(EncodeColumn(c, r.frames));
  for (const auto& c : kSampleColumns) parts.push_back(EncodeColumn(c, r.samples));
  return parts;
}

bool HasRecording(const formats::XrpmContents& c) {
  for (const XrpmPart& p : c.parts)
    if (p.tag == kTagHeader) return true;
  return false;
}

SavedRecording DecodeRecording(const formats::XrpmContents& c, const std::string& name) {
  const PartSet parts(c, name);
  SavedRecording out;
  FrameRecording& r = out.rec;
  parts.Blob(kTagHeader, [&](BlobReader b) {
    const uint8_t version = Version(b, "header");
    r.app = CheckedStr(b, protocol::kMaxShortString, "app name");
    out.endpoint = CheckedStr(b, kMaxEndpointBytes, "endpoint");
    r.sample_bytes = b.U32();
    if (r.sample_bytes != 0 &&
        (r.sample_bytes < protocol::kMinSampleBytes || r.sample_bytes > protocol::kMaxSampleBytes))
      BadBlob(b, "sample interval " + std::to_string(r.sample_bytes) + ", expected 0 or " +
                     std::to_string(protocol::kMinSampleBytes) + ".." +
                     std::to_string(protocol::kMaxSampleBytes));
    r.dropped_markers = b.U64();
    r.dropped_records = b.U64();
    r.batches = b.U64();
    r.wire_bytes = b.U64();
    r.host_dropped_rows = b.U64();
    r.subscription = b.U64();
    if (version >= 2) {
      const uint8_t totals = b.U8();
      if (totals > static_cast<uint8_t>(FrameTotals::kEstimated))
        BadBlob(b, "frame totals " + std::to_string(totals) +
                       ", expected 0 (exact) or 1 (estimated from samples)");
      r.frame_totals = static_cast<FrameTotals>(totals);
    }
  });
  parts.Blob(kTagDefs, [&](BlobReader b) {
    Version(b, "tables");
    GetNames(b, protocol::kMaxFrameDefs, kMaxNameBytes, "method name", r.methods);
    GetNames(b, protocol::kMaxFrameDefs, kMaxNameBytes, "type name", r.types);
    GetNames(b, protocol::kMaxFrameTags, protocol::kMaxMarkerBytes, "scope tag", r.tags);
    const uint32_t n = b.Count(4);
    if (n > protocol::kMaxFrameDefs)
      BadBlob(b, std::to_string(n) + " stacks, expected at most " +
                     std::to_string(protocol::kMaxFrameDefs));
    r.stacks.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t depth = b.Count(4);
      if (depth > protocol::kMaxStackDepth)
        BadBlob(b, "stack " + std::to_string(i + 1) + " of depth " + std::to_string(depth) +
                       ", expected at most " + std::to_string(protocol::kMaxStackDepth));
      for (uint32_t k = 0; k < depth; ++k) {
        const uint32_t id = b.U32();
        if (id == 0 || id > r.methods.size())
          BadBlob(b, "stack " + std::to_string(i + 1) + " names method " + std::to_string(id) +
                         ", expected 1.." + std::to_string(r.methods.size()));
        r.stacks[i].push_back(id);
      }
    }
  });
  parts.Blob(kTagMarkers, [&](BlobReader b) {
    Version(b, "markers");
    const uint32_t n = b.Count(1 + 8 + 8 + 4);
    r.markers.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t kind = b.U8();
      if (kind > static_cast<uint8_t>(MarkerKind::kCaptureRequest))
        BadBlob(b, "marker " + std::to_string(i) + " of kind " + std::to_string(kind) +
                       ", expected 0 (marker) or 1 (capture request)");
      MarkerRow m;
      m.kind = static_cast<MarkerKind>(kind);
      m.frame = b.U64();
      m.time_us = b.U64();
      m.text = CheckedStr(b, protocol::kMaxMarkerBytes, "marker text");
      r.markers.push_back(std::move(m));
    }
  });
  parts.Columns(kFrameColumns, r.frames);
  for (size_t i = 1; i < r.frames.size(); ++i)
    if (r.frames[i].frame <= r.frames[i - 1].frame)
      parts.Fail(parts.Need("rfnr"), "bad-part",
                 "frame row " + std::to_string(i) + " is frame " +
                     std::to_string(r.frames[i].frame) + ", expected a frame after " +
                     std::to_string(r.frames[i - 1].frame));
  for (size_t i = 0; i < r.frames.size(); ++i)
    if (!protocol::GcKindsValid(r.frames[i].gc_kinds, r.frames[i].gcs))
      parts.Fail(parts.Need("rfgk"), "bad-part",
                 "frame row " + std::to_string(i) + ": collection kinds " +
                     std::to_string(r.frames[i].gc_kinds) + " malformed for " +
                     std::to_string(r.frames[i].gcs) +
                     " collections (expected a byte per collection, bit 7 set, reason 0-4)");
  parts.Columns(kSampleColumns, r.samples);
  if (!r.samples.empty() && r.sample_bytes == 0)
    parts.Fail(parts.Need(kTagHeader), "bad-part",
               "sample interval 0 with " + std::to_string(r.samples.size()) + " samples");
  auto check_ids = [&](std::string_view tag, uint32_t SampleRow::*field, size_t defined,
                       const char* what) {
    for (size_t i = 0; i < r.samples.size(); ++i)
      if (r.samples[i].*field > defined)
        parts.Fail(parts.Need(tag), "bad-part",
                   "sample " + std::to_string(i) + " names " + what + " " +
                       std::to_string(r.samples[i].*field) + ", expected 0.." +
                       std::to_string(defined));
  };
  check_ids("rsst", &SampleRow::stack, r.stacks.size(), "stack");
  check_ids("rsty", &SampleRow::type, r.types.size(), "type");
  check_ids("rstg", &SampleRow::tag, r.tags.size(), "scope tag");
  return out;
}

void SaveRecordingFile(const SavedRecording& r, const std::string& path) {
  formats::XrpmWriteOptions w;
  w.extra_parts = EncodeRecordingParts(r);
  formats::WriteXrpmFile(Snapshot{}, path, w);
}

namespace {
SavedRecording FromContents(const formats::XrpmContents& c, const std::string& name) {
  if (!HasRecording(c))
    throw InputError(Diagnostic{name, 0, "no-recording",
                                "an .xrpm file without a recording (a heap snapshot?); record one "
                                "with `xrpm frames -o` or `xrpm allocations -o`"});
  return DecodeRecording(c, name);
}
}  // namespace

SavedRecording LoadRecordingFile(const std::string& path) {
  formats::XrpmReadOptions o;
  o.wanted = RecordingPartTags();
  return FromContents(formats::ReadXrpmFile(path, o), path);
}

SavedRecording ParseRecording(std::string_view bytes, const std::string& name,
                              bool verify_checksums) {
  formats::XrpmReadOptions o;
  o.wanted = RecordingPartTags();
  o.verify_checksums = verify_checksums;
  o.threads = 1;
  return FromContents(formats::ReadXrpm(bytes, name, o), name);
}

}  // namespace xrpm::formats
