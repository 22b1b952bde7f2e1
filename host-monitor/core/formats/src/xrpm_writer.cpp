// .xrpm writer (xrpm_file.h, docs/FORMAT.md).
//
// Plan every part (tag, width, transform, source bytes), write a zeroed header and TOC, then
// stream the parts: all blocks of all parts form one task list, compressed in windows of a few
// blocks per thread and written in order; each part ends with its block table. Finally the header
// and TOC are overwritten with the real offsets and checksums and the file is committed
// (AtomicFile: readers see the old file or the complete new one).
//
// Memory: the metadata blobs plus one window of compressed blocks (threads x 4 x <= 1 MiB).
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/atomic_file.h"
#include "xrpm_blocks.h"
#include "xrpm_fields.h"
#include "xrpm_layout.h"
#include "xrpm_meta.h"

namespace xrpm::formats {
namespace {

struct PartPlan {
  TocEntry e;
  ColumnView col;                     // columns (e.width != 0)
  std::string owned;                  // blobs built here
  PodVector<uint32_t> owned_column;   // u32 columns built here (col points into it)
  const uint8_t* external = nullptr;  // blobs of extra parts (owned by the caller)
  const char* blob() const {
    return external ? reinterpret_cast<const char*>(external) : owned.data();
  }
};

struct BlockTask {
  size_t part;
  uint32_t block;
};

struct CtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

void SetTag(TocEntry& e, std::string_view tag) {
  std::memcpy(e.tag, tag.data(), 4);
}

PartPlan Blob(std::string_view tag, std::string bytes, bool required) {
  PartPlan p;
  SetTag(p.e, tag);
  p.e.flags = required ? kFlagRequired : 0;
  p.e.width = 0;
  p.e.count = bytes.size();
  p.owned = std::move(bytes);
  return p;
}

template <class T>
PartPlan Column(std::string_view tag, const PodVector<T>& v, XrpmTransform t,
                bool required = true) {
  PartPlan p;
  SetTag(p.e, tag);
  p.e.flags = required ? kFlagRequired : 0;
  p.e.width = sizeof(T);
  p.e.transform = static_cast<uint8_t>(t);
  p.e.count = v.size();
  p.col = ColumnView{reinterpret_cast<uint8_t*>(const_cast<T*>(v.data())), sizeof(T), t};
  return p;
}

// Object contents: optional parts, so that 1.1 readers skip them.
void PlanFields(const Snapshot& s, std::vector<PartPlan>& parts) {
  const HeapFields& f = s.fields;
  if (!f.present()) return;
  auto size_check = [](const char* what, size_t have, size_t want) {
    if (have != want)
      throw std::invalid_argument(std::string("snapshot has ") + std::to_string(have) + " " + what +
                                  " for " + std::to_string(want));
  };
  if ((f.has_slots() || f.has_values()) && !f.has_layouts())
    throw std::invalid_argument("snapshot has reference slots or values but no type layouts");
  if (f.has_layouts()) size_check("type layouts", f.layouts.size(), s.type_count());
  if (f.has_slots()) size_check("reference slots", f.ref_slot.size(), s.ref_count());
  if (!f.root_label.empty()) size_check("root labels", f.root_label.size(), s.root_count());
  if (f.has_values()) size_check("values", f.values.size(), s.object_count());
  if (f.has_layouts()) parts.push_back(Blob(kTagFieldLayouts, EncodeFieldLayouts(f), false));
  if (f.has_slots()) parts.push_back(Column(kTagRefSlots, f.ref_slot, XrpmTransform::kNone, false));
  if (!f.root_label.empty()) {
    parts.push_back(Blob(kTagRootLabels, EncodeRootLabels(f), false));
    parts.push_back(Column(kTagRootLabel, f.root_label, XrpmTransform::kDelta, false));
  }
  if (f.has_values()) {  // format 1.3: u32 lengths (a 1.2 reader skips VLEN and VBYT)
    const ValueRanges& v = f.values;
    PodVector<uint32_t> lengths;
    lengths.resize_uninitialized(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      lengths[i] = v.end[i] - ((i & (ValueRanges::kChunk - 1)) ? v.end[i - 1] : 0);
    PartPlan len = Column(kTagValueLength, lengths, XrpmTransform::kNone, false);
    len.owned_column = std::move(lengths);  // PodVector moves keep the data where it is
    parts.push_back(std::move(len));
    PartPlan data;
    SetTag(data.e, kTagValueBytes);
    data.e.count = v.data.size();
    data.external = v.data.data();
    parts.push_back(std::move(data));
  }
}

std::vector<PartPlan> Plan(const Snapshot& s, const XrpmWriteOptions& opts) {
  std::vector<PartPlan> parts;
  parts.push_back(Blob(kTagSections, EncodeSections(s), true));
  parts.push_back(Blob(kTagTypes, EncodeTypes(s), true));
  if (std::string fin = EncodeTypeFinalizers(s); !fin.empty())
    parts.push_back(Blob(kTagTypeFinalizers, std::move(fin), false));
  if (std::string traits = EncodeTypeTraits(s); !traits.empty())
    parts.push_back(Blob(kTagTypeTraits, std::move(traits), false));
  parts.push_back(Blob(kTagOrigins, EncodeOrigins(s), true));
  if (s.capture) parts.push_back(Blob(kTagCapture, EncodeCapture(*s.capture), false));
  parts.push_back(Column(kTagObjectId, s.object_id, XrpmTransform::kDelta));
  parts.push_back(Column(kTagObjectType, s.object_type, XrpmTransform::kNone));
  parts.push_back(Column(kTagObjectSize, s.object_size, XrpmTransform::kNone));
  parts.push_back(Column(kTagRefEnd, s.ref_end, XrpmTransform::kDelta));
  PartPlan refs = Column(kTagRefs, s.refs, XrpmTransform::kOwnerDelta);
  refs.col.owner_id = s.object_id.data();
  refs.col.ref_end = s.ref_end.data();
  refs.col.owners = s.object_count();
  parts.push_back(std::move(refs));
  parts.push_back(Column(kTagRootObject, s.root_object, XrpmTransform::kDelta));
  parts.push_back(Column(kTagRootKind, s.root_kind, XrpmTransform::kNone));
  parts.push_back(Column(kTagRootFlags, s.root_flags, XrpmTransform::kNone));
  parts.push_back(Column(kTagRootContainer, s.root_container, XrpmTransform::kNone));
  parts.push_back(Column(kTagRootOrigin, s.root_origin, XrpmTransform::kDelta));
  if (s.origins) {  // optional: readers of format 1.0 skip them and see no origins
    if (s.object_alloc_frame.size() != s.object_count() ||
        s.object_alloc_site.size() != s.object_count())
      throw std::invalid_argument(
          "snapshot has allocation origins but " + std::to_string(s.object_alloc_frame.size()) +
          " / " + std::to_string(s.object_alloc_site.size()) + " origin entries for " +
          std::to_string(s.object_count()) + " objects");
    parts.push_back(Blob(kTagAllocSites, EncodeAllocSites(*s.origins), false));
    parts.push_back(Column(kTagAllocFrame, s.object_alloc_frame, XrpmTransform::kDelta, false));
    parts.push_back(Column(kTagAllocSite, s.object_alloc_site, XrpmTransform::kNone, false));
  }
  PlanFields(s, parts);

  std::set<std::string> tags;
  for (const PartPlan& p : parts) tags.insert(p.e.tag_string());
  for (const XrpmPart& x : opts.extra_parts) {
    if (!IsValidTag(x.tag))
      throw std::invalid_argument("extra .xrpm part tag '" + x.tag +
                                  "' is not 4 printable ASCII characters");
    if (!tags.insert(x.tag).second)
      throw std::invalid_argument("extra .xrpm part tag '" + x.tag + "' is used twice");
    PartPlan p;
    SetTag(p.e, x.tag);
    p.e.flags = x.required ? kFlagRequired : 0;
    p.e.width = x.width;
    if (x.width == 0) {
      if (x.transform != XrpmTransform::kNone)
        throw std::invalid_argument("extra .xrpm part '" + x.tag + "': a blob has no transform");
      p.e.count = x.data.size();
      p.external = x.data.data();
    } else {
      if (x.width != 1 && x.width != 2 && x.width != 4 && x.width != 8)
        throw std::invalid_argument("extra .xrpm part '" + x.tag + "': width " +
                                    std::to_string(x.width) + " is not 1, 2, 4 or 8");
      if (x.transform == XrpmTransform::kOwnerDelta)
        throw std::invalid_argument("extra .xrpm part '" + x.tag +
                                    "': owner delta is for references only");
      if (x.data.size() % x.width)
        throw std::invalid_argument("extra .xrpm part '" + x.tag +
                                    "': " + std::to_string(x.data.size()) +
                                    " bytes is not a multiple of " + std::to_string(x.width));
      p.e.transform = static_cast<uint8_t>(x.transform);
      p.e.count = x.data.size() / x.width;
      p.col = ColumnView{const_cast<uint8_t*>(x.data.data()), x.width, x.transform};
    }
    parts.push_back(std::move(p));
  }
  for (PartPlan& p : parts) {
    const uint32_t bytes = std::clamp<uint32_t>(opts.block_bytes, 8, kMaxBlockRawBytes - 9);
    p.e.block_values = p.e.width ? bytes / p.e.width : bytes;
    p.e.block_count = static_cast<uint32_t>((p.e.count + p.e.block_values - 1) / p.e.block_values);
  }
  return parts;
}

// An in-memory output with AtomicFile's Write/Overwrite.
struct StringOut {
  std::string bytes;
  void Write(std::string_view b) { bytes.append(b); }
  void Overwrite(uint64_t offset, std::string_view b) {
    std::memcpy(bytes.data() + offset, b.data(), b.size());
  }
};

// Writes the planned parts to `out` (AtomicFile or StringOut).
template <class Out>
void WriteParts(std::vector<PartPlan>& parts, const XrpmWriteOptions& opts, Out& out) {
  std::vector<BlockTask> tasks;
  for (size_t i = 0; i < parts.size(); ++i)
    for (uint32_t b = 0; b < parts[i].e.block_count; ++b) tasks.push_back({i, b});

  const size_t front = kHeaderBytes + parts.size() * kTocEntryBytes;
  out.Write(std::string(front, '\0'));

  const unsigned threads = ResolveThreads(opts.threads);
  struct Worker {
    std::unique_ptr<ZSTD_CCtx, CtxDeleter> ctx{ZSTD_createCCtx()};
    std::string packed;
    std::vector<uint64_t> scratch;
  };
  std::vector<Worker> workers(threads);
  for (Worker& w : workers)
    if (!w.ctx) throw std::bad_alloc();
  struct Done {
    std::string stored;
    BlockEntry entry;
  };
  const size_t window = size_t{threads} * 4;
  std::vector<Done> done(window);
  std::vector<std::vector<BlockEntry>> tables(parts.size());
  uint64_t offset = front;
  for (PartPlan& p : parts) p.e.offset = 0;

  auto finish_part = [&](size_t i) {
    PartPlan& p = parts[i];
    std::string table(tables[i].size() * kBlockEntryBytes, '\0');
    for (size_t b = 0; b < tables[i].size(); ++b) {
      char* q = table.data() + b * kBlockEntryBytes;
      PutU32(q, tables[i][b].stored_bytes);
      PutU32(q + 4, tables[i][b].decoded_bytes);
      PutU64(q + 8, tables[i][b].xxh3);
    }
    p.e.block_table_xxh3 = Xxh3(table.data(), table.size());
    out.Write(table);
    offset += table.size();
    p.e.stored_bytes = offset - p.e.offset;
  };

  size_t next_part = 0;  // parts before it are finished
  auto start_parts_up_to = [&](size_t part) {
    // Finishes every part before `part` (including empty ones) and starts `part`.
    while (next_part < part) {
      if (parts[next_part].e.offset == 0) parts[next_part].e.offset = offset;
      finish_part(next_part++);
    }
    if (parts[part].e.offset == 0) parts[part].e.offset = offset;
  };

  for (size_t w0 = 0; w0 < tasks.size(); w0 += window) {
    const size_t n = std::min(window, tasks.size() - w0);
    ForEachTask(n, threads, [&](unsigned worker, size_t k) {
      const BlockTask& t = tasks[w0 + k];
      const PartPlan& p = parts[t.part];
      Worker& wk = workers[worker];
      const uint64_t begin = uint64_t{t.block} * p.e.block_values;
      const uint64_t end = std::min<uint64_t>(p.e.count, begin + p.e.block_values);
      std::string_view raw;
      if (p.e.width) {
        PackColumnBlock(p.col, begin, end, wk.packed, wk.scratch);
        raw = wk.packed;
      } else {
        raw = std::string_view(p.blob() + begin, end - begin);
      }
      Done& d = done[k];
      d.stored.resize(ZSTD_compressBound(raw.size()));
      const size_t z = ZSTD_compressCCtx(wk.ctx.get(), d.stored.data(), d.stored.size(), raw.data(),
                                         raw.size(), opts.zstd_level);
      if (ZSTD_isError(z)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(z));
      if (z >= raw.size())
        d.stored.assign(raw);  // incompressible: stored as is
      else
        d.stored.resize(z);
      d.entry = {static_cast<uint32_t>(d.stored.size()), static_cast<uint32_t>(raw.size()),
                 Xxh3(d.stored.data(), d.stored.size())};
    });
    for (size_t k = 0; k < n; ++k) {
      const BlockTask& t = tasks[w0 + k];
      start_parts_up_to(t.part);
      out.Write(done[k].stored);
      offset += done[k].stored.size();
      tables[t.part].push_back(done[k].entry);
      if (t.block + 1 == parts[t.part].e.block_count) {
        finish_part(t.part);
        next_part = t.part + 1;
      }
    }
  }
  while (next_part < parts.size()) {
    if (parts[next_part].e.offset == 0) parts[next_part].e.offset = offset;
    finish_part(next_part++);
  }

  std::string front_bytes(front, '\0');
  for (size_t i = 0; i < parts.size(); ++i)
    EncodeTocEntry(parts[i].e, front_bytes.data() + kHeaderBytes + i * kTocEntryBytes);
  Header h;
  h.major = kXrpmMajorVersion;
  h.minor = kXrpmMinorVersion;
  h.part_count = static_cast<uint32_t>(parts.size());
  h.file_bytes = offset;
  h.toc_xxh3 = Xxh3(front_bytes.data() + kHeaderBytes, parts.size() * kTocEntryBytes);
  EncodeHeader(h, front_bytes.data());
  out.Overwrite(0, front_bytes);
}

std::vector<PartPlan> CheckedPlan(const Snapshot& snap, const XrpmWriteOptions& opts) {
  std::vector<PartPlan> parts = Plan(snap, opts);
  if (parts.size() > kMaxParts)
    throw std::invalid_argument("too many .xrpm parts: " + std::to_string(parts.size()));
  return parts;
}

}  // namespace

void WriteXrpmFile(const Snapshot& snap, const std::string& path, const XrpmWriteOptions& opts) {
  std::vector<PartPlan> parts = CheckedPlan(snap, opts);
  AtomicFile out(path);
  WriteParts(parts, opts, out);
  out.Commit();
}

std::string WriteXrpm(const Snapshot& snap, const XrpmWriteOptions& opts) {
  std::vector<PartPlan> parts = CheckedPlan(snap, opts);
  StringOut out;
  WriteParts(parts, opts, out);
  return std::move(out.bytes);
}

}  // namespace xrpm::formats
