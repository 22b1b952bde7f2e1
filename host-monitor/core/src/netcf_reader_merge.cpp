// Stitching parsed chunks into one Snapshot: sections, columns and the type table.
// See netcf_reader_stages.h.
#include <sys/mman.h>

#include <algorithm>

#include "xrpm/core/netcf_reader_stages.h"

namespace xrpm::netcf {

namespace {

std::string Quoted(const std::string& name) {
  return name.empty() ? "(unnamed)" : "'" + name + "'";
}

struct SectionBuilder {
  Snapshot& snap;
  PendingDiags& diags;
  SectionTypes types;
  std::vector<uint64_t> begin_line;
  std::vector<bool> implicit;
  int cur = -1;

  void Open(uint32_t version, std::string name, std::optional<uint64_t> stamp, uint64_t line,
            bool is_implicit, uint64_t objects, uint64_t roots) {
    AppDomainSection s;
    s.version = version;
    s.name = std::move(name);
    s.start_ms = stamp;
    s.closed = false;
    s.objects_begin = s.objects_end = objects;
    s.roots_begin = s.roots_end = roots;
    snap.sections.push_back(std::move(s));
    types.emplace_back();
    begin_line.push_back(line);
    implicit.push_back(is_implicit);
    cur = static_cast<int>(snap.sections.size() - 1);
  }

  void SetEnds(uint64_t objects, uint64_t roots) {
    AppDomainSection& s = snap.sections[static_cast<size_t>(cur)];
    s.objects_end = objects;
    s.roots_end = roots;
  }

  // The open section ends without its `c` record (another `a`, or the end of the file).
  void CloseUnclosed(uint64_t objects, uint64_t roots, uint64_t at_line, bool at_eof) {
    if (cur < 0) return;
    SetEnds(objects, roots);
    size_t i = static_cast<size_t>(cur);
    if (!implicit[i]) {
      diags.Add(begin_line[i], code::kUnclosedSection,
                "AppDomain section " + Quoted(snap.sections[i].name) + " has no end record (c); " +
                    (at_eof ? std::string("the file ends first")
                            : "a new section starts at line " + std::to_string(at_line)));
    }
    cur = -1;
  }

  void OpenImplicit(uint64_t line, uint64_t objects, uint64_t roots) {
    diags.Add(line, code::kOutsideSection,
              "record outside any AppDomain section (no a record before it); kept in an "
              "unnamed section");
    Open(2, "", std::nullopt, line, true, objects, roots);
  }
};

}  // namespace

SectionTypes AssembleSections(std::vector<ChunkResult>& chunks,
                              const std::vector<uint64_t>& line_base, Snapshot& snap,
                              PendingDiags& diags) {
  SectionBuilder b{snap, diags, {}, {}, {}};
  uint64_t ob = 0, rb = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    ChunkResult& ch = chunks[c];
    const uint64_t lb = line_base[c];
    if (ch.first_record_line && b.cur < 0) b.OpenImplicit(lb + ch.first_record_line, ob, rb);
    size_t ti = 0;
    auto take_types = [&](size_t upto) {
      for (; ti < upto; ++ti) {
        if (b.cur < 0) b.OpenImplicit(lb + ch.types[ti].line, ob, rb);
        ch.types[ti].line += lb;
        b.types[static_cast<size_t>(b.cur)].push_back(&ch.types[ti]);
      }
    };
    for (SectionEvent& e : ch.events) {
      take_types(e.types);
      const uint64_t line = lb + e.line;
      switch (e.kind) {
        case SectionEvent::Kind::kBegin:
          b.CloseUnclosed(ob + e.objects, rb + e.roots, line, false);
          b.Open(e.version, std::move(e.name), e.stamp, line, false, ob + e.objects, rb + e.roots);
          break;
        case SectionEvent::Kind::kImplicitBegin:
          b.CloseUnclosed(ob + e.objects, rb + e.roots, line, false);
          b.OpenImplicit(line, ob + e.objects, rb + e.roots);
          break;
        case SectionEvent::Kind::kEnd: {
          if (b.cur < 0) {
            diags.Add(line, code::kUnmatchedEnd,
                      "end AppDomain record (c) " + Quoted(e.name) +
                          " without an open section (a record); ignored");
            break;
          }
          size_t i = static_cast<size_t>(b.cur);
          AppDomainSection& s = snap.sections[i];
          b.SetEnds(ob + e.objects, rb + e.roots);
          s.closed = true;
          s.end_ms = e.stamp;
          if (b.implicit[i] && s.name.empty()) {
            s.name = e.name;
          } else if (!e.name.empty() && e.name != s.name) {
            diags.Add(line, code::kEndNameMismatch,
                      "end record names " + Quoted(e.name) + " but the section (line " +
                          std::to_string(b.begin_line[i]) + ") is " + Quoted(s.name));
            s.end_name = std::move(e.name);
          }
          b.cur = -1;
          break;
        }
      }
    }
    take_types(ch.types.size());
    ob += ch.object_id.size();
    rb += ch.root_object.size();
  }
  b.CloseUnclosed(ob, rb, 0, true);
  return std::move(b.types);
}

namespace {

// Appends src to dst in blocks, giving src's pages back as they are copied, so the peak is
// dst + src + one block rather than twice the data. `add` is added to every value.
template <class T>
void AppendReleasing(PodVector<T>& dst, PodVector<T>& src, T add = T{}) {
  constexpr size_t kBlock = (size_t{4} << 20) / sizeof(T);
  dst.reserve(dst.size() + src.size());
  const bool mapped = src.bytes_reserved() >= (size_t{1} << 20);
  T tmp[1024];
  for (size_t i = 0; i < src.size(); i += kBlock) {
    size_t n = std::min(kBlock, src.size() - i);
    if (add == T{}) {
      dst.append(src.data() + i, src.data() + i + n);
    } else {
      for (size_t j = 0; j < n; j += 1024) {
        size_t m = std::min<size_t>(1024, n - j);
        for (size_t k = 0; k < m; ++k) tmp[k] = static_cast<T>(src[i + j + k] + add);
        dst.append(tmp, tmp + m);
      }
    }
    if (mapped) {
      // Whole pages inside the copied block only.
      uintptr_t b = (reinterpret_cast<uintptr_t>(src.data() + i) + 4095) & ~uintptr_t{4095};
      uintptr_t e = reinterpret_cast<uintptr_t>(src.data() + i + n) & ~uintptr_t{4095};
      if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
    }
  }
  src = PodVector<T>();
}

template <class T>
void Take(PodVector<T>& dst, PodVector<T>& src) {
  if (dst.empty())
    dst = std::move(src);
  else
    AppendReleasing(dst, src);
}

}  // namespace

void ConcatColumns(std::vector<ChunkResult>& chunks, Snapshot& snap) {
  for (ChunkResult& ch : chunks) {
    const uint64_t ref_base = snap.refs.size();
    Take(snap.object_id, ch.object_id);
    Take(snap.object_type, ch.object_type);
    Take(snap.object_size, ch.object_size);
    if (snap.ref_end.empty())
      snap.ref_end = std::move(ch.ref_end);
    else
      AppendReleasing(snap.ref_end, ch.ref_end, ref_base);
    Take(snap.refs, ch.refs);
    Take(snap.root_object, ch.root_object);
    Take(snap.root_kind, ch.root_kind);
    Take(snap.root_flags, ch.root_flags);
    Take(snap.root_container, ch.root_container);
  }
  snap.root_origin.resize(snap.root_object.size(), kNoIndex);
}

void BuildTypes(SectionTypes& section_types, Snapshot& snap, PendingDiags& diags) {
  for (size_t si = 0; si < snap.sections.size(); ++si) {
    AppDomainSection& s = snap.sections[si];
    const uint32_t sec = static_cast<uint32_t>(si);
    s.types_begin = static_cast<uint32_t>(snap.types.size());
    TypeIdMap map(section_types[si].size());
    for (TypeRecord* tr : section_types[si]) {
      if (map.Insert(tr->id, static_cast<uint32_t>(snap.types.size()))) {
        snap.AddType(tr->id, std::move(tr->name), sec);
      } else {
        diags.Add(tr->line, code::kDuplicateType,
                  "type id " + HexString(tr->id) + " is defined again in section " +
                      Quoted(s.name) + " as '" + tr->name + "'; the first definition is kept");
      }
    }
    // Objects: raw type id -> type index; ids without a `t` record get a placeholder type.
    const uint32_t first_placeholder = static_cast<uint32_t>(snap.types.size());
    std::vector<uint64_t> first_use, uses;
    uint32_t last_id = 0, last_index = TypeIdMap::kMissing;
    uint32_t* col = snap.object_type.data();
    for (uint64_t i = s.objects_begin; i < s.objects_end; ++i) {
      const uint32_t id = col[i];
      if (id != last_id || last_index == TypeIdMap::kMissing) {
        uint32_t idx = map.Find(id);
        if (idx == TypeIdMap::kMissing) {
          idx = snap.AddType(id, "<unknown type " + HexString(id) + ">", sec, true);
          map.Insert(id, idx);
          first_use.push_back(i);
          uses.push_back(0);
        }
        last_id = id;
        last_index = idx;
      }
      col[i] = last_index;
      if (last_index >= first_placeholder) ++uses[last_index - first_placeholder];
    }
    for (size_t k = 0; k < first_use.size(); ++k) {
      const TypeInfo& t = snap.types[first_placeholder + k];
      diags.AddAnchored(false, first_use[k], code::kUnknownType,
                        "type id " + HexString(t.id) + " has no type record (t) in section " +
                            Quoted(s.name) + "; " + std::to_string(uses[k]) +
                            " object(s) use it, shown as " + t.name);
    }
    s.types_end = static_cast<uint32_t>(snap.types.size());
  }
}

void RemoveObjects(Snapshot& snap, const std::vector<uint64_t>& drop) {
  if (drop.empty()) return;
  const uint64_t n = snap.object_count();
  uint64_t j = 0, w = 0, rb = 0;
  size_t d = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t re = snap.ref_end[i];
    if (d < drop.size() && drop[d] == i) {
      ++d;
    } else {
      snap.object_id[j] = snap.object_id[i];
      snap.object_type[j] = snap.object_type[i];
      snap.object_size[j] = snap.object_size[i];
      if (w != rb) std::copy(snap.refs.data() + rb, snap.refs.data() + re, snap.refs.data() + w);
      w += re - rb;
      snap.ref_end[j] = w;
      ++j;
    }
    rb = re;
  }
  snap.object_id.resize(j);
  snap.object_type.resize(j);
  snap.object_size.resize(j);
  snap.ref_end.resize(j);
  snap.refs.resize(w);
  auto shift = [&](uint64_t pos) {
    return pos -
           static_cast<uint64_t>(std::lower_bound(drop.begin(), drop.end(), pos) - drop.begin());
  };
  for (AppDomainSection& s : snap.sections) {
    s.objects_begin = shift(s.objects_begin);
    s.objects_end = shift(s.objects_end);
  }
}

}  // namespace xrpm::netcf
