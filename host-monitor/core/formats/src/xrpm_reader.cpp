// .xrpm reader (xrpm_file.h, docs/FORMAT.md): the parts of a file into a Snapshot. Steps 1-3 are
// the container's (xrpm_container_reader.h), steps 4-6 this file's.
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
//      verified before it is decompressed, values range-checked (type indices, origins, CSR ends);
//   6. object contents: the value lengths (VLEN; 1.2 files: OVAL's ends) into the model's value
//      ranges, then CheckFields (layouts, slots, labels, values), both on the reader's threads.
// Every failure is an InputError with the part's tag and a byte offset.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/object_fields.h"
#include "xrpm_blocks.h"
#include "xrpm_container_reader.h"
#include "xrpm_fields.h"
#include "xrpm_layout.h"
#include "xrpm_meta.h"

namespace xrpm::formats {
namespace {

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
    FinishValues(s);
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
    if (Part(kTagTypeFinalizers))
      Blob(kTagTypeFinalizers, [&](std::string_view b) { DecodeTypeFinalizers(b, s); });
    if (Part(kTagTypeTraits))
      Blob(kTagTypeTraits, [&](std::string_view b) { DecodeTypeTraits(b, s); });
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
    needs(kTagValueLength, kTagFieldLayouts);
    needs(kTagValueLength, kTagValueBytes);
    needs(kTagValueBytes, kTagValueLength);
    needs(kTagRootLabel, kTagRootLabels);
    needs(kTagRootLabels, kTagRootLabel);
    if (Part(kTagValueEnd) && Part(kTagValueLength))
      f_.FailPart(Need(kTagValueLength).e, Need(kTagValueLength).toc_offset, "bad-toc",
                  "the file also has part 'OVAL': values come as 'VLEN' and 'VBYT' (format 1.3) "
                  "or as 'OVAL' and 'VDAT' (1.2), not both");
    if (Part(kTagRefSlots)) SameCount(kTagRefSlots, kTagRefs);
    if (Part(kTagRootLabel)) SameCount(kTagRootLabel, kTagRootObject);
    if (Part(kTagValueEnd)) SameCount(kTagValueEnd, kTagObjectId);
    if (Part(kTagValueLength)) SameCount(kTagValueLength, kTagObjectId);
  }

  // The part holding the values' per-object lengths or ends (for errors), or nullptr.
  PartState* ValuesPart() {
    if (PartState* p = Part(kTagValueLength)) return p;
    return Part(kTagValueEnd);
  }

  // After the columns are decoded: the lengths (1.3) or the u64 ends (1.2) into the model's
  // value ranges.
  void FinishValues(Snapshot& s) {
    PartState* p = ValuesPart();
    if (!p) return;
    ValueRanges& v = s.fields.values;
    if (p->known->tag == kTagValueEnd) {
      // 1.2: ends that never decrease and stop at the value bytes' end, as lengths.
      uint64_t prev = 0;
      for (size_t i = 0; i < objects_; ++i) {
        const uint64_t e = old_value_end_[i];
        if (e < prev || e > v.data.size() || e - prev > UINT32_MAX)
          f_.FailPart(p->e, p->e.offset, "bad-part",
                      "object " + std::to_string(i) + ": value end " + std::to_string(e) +
                          " is below the previous object's (" + std::to_string(prev) +
                          "), beyond the " + std::to_string(v.data.size()) +
                          " value bytes or 4 GiB past it");
        v.end[i] = static_cast<uint32_t>(e - prev);
        prev = e;
      }
      old_value_end_ = {};
    }
    const std::string problem = v.FinishLengths(threads_);
    if (!problem.empty()) f_.FailPart(p->e, p->e.offset, "bad-part", problem);
  }

  // After every column is decoded: slots, labels and values against the layouts and objects.
  void CheckFieldParts(const Snapshot& s) {
    if (!s.fields.present()) return;
    FieldsPart where = FieldsPart::kLayouts;
    const std::string problem = CheckFields(s, &where, threads_);
    if (problem.empty()) return;
    const PartState* values = ValuesPart();
    const std::string_view tag = where == FieldsPart::kSlots              ? kTagRefSlots
                                 : where == FieldsPart::kLabels           ? kTagRootLabel
                                 : where == FieldsPart::kValues && values ? values->known->tag
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

  // A column at its final size, on huge pages when large (PodVector): the
  // blocks are decoded straight into it.
  template <class T>
  static void Size(PodVector<T>& v, uint64_t n) {
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
    if (Part(kTagValueLength))
      s.fields.values.ResizeForLengths(objects_, Need(kTagValueBytes).e.count);
    if (Part(kTagValueEnd)) {
      Size(old_value_end_, objects_);
      s.fields.values.ResizeForLengths(objects_, Need(kTagValueData).e.count);
    }
    for (PartState& p : L_.parts) {
      if (!p.wanted) continue;
      XrpmPart x;
      x.tag = p.e.tag_string();
      x.required = p.e.required();
      x.width = p.e.width;
      x.transform = static_cast<XrpmTransform>(p.e.transform);
      x.offset = p.e.offset;
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
    if (Part(kTagValueLength)) {
      jobs.push_back({&Need(kTagValueLength), View(s.fields.values.end, XrpmTransform::kNone), 0});
      jobs.push_back({&Need(kTagValueBytes), View(s.fields.values.data, XrpmTransform::kNone), 0});
    }
    if (Part(kTagValueEnd)) {
      jobs.push_back({&Need(kTagValueEnd), View(old_value_end_, XrpmTransform::kDelta), 0});
      jobs.push_back({&Need(kTagValueData), View(s.fields.values.data, XrpmTransform::kNone), 0});
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
  PodVector<uint64_t> old_value_end_;  // a 1.2 file's value ends (OVAL), until FinishValues
  bool has_alloc_ = false;             // the file has allocation origins (ASIT, OAFR, OASI)
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
