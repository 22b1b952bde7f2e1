// Stitching parsed chunks into one Snapshot: sections, columns and the type table.
// See netcf_reader_stages.h.
#include <algorithm>
#include <cstring>

#include "netcf_reader_stages.h"

namespace xrpm::formats {

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
    ob += ch.stored.objects;
    rb += ch.stored.roots;
  }
  b.CloseUnclosed(ob, rb, 0, true);
  return std::move(b.types);
}

namespace {

template <class T>
T* Place(PodVector<T>& col, uint64_t n) {
  col.resize_uninitialized(n);
  return col.data();
}

template <class T>
void MoveDown(PodVector<T>& col, uint64_t from, uint64_t to, uint64_t n) {
  if (from != to && n) std::memmove(col.data() + to, col.data() + from, n * sizeof(T));
}

}  // namespace

std::vector<ColumnsOut> PlaceColumns(const std::vector<RecordCounts>& room, Snapshot& snap) {
  RecordCounts total;
  for (const RecordCounts& r : room) {
    total.objects += r.objects;
    total.refs += r.refs;
    total.roots += r.roots;
  }
  ColumnsOut base;
  base.object_id = Place(snap.object_id, total.objects);
  base.object_type = Place(snap.object_type, total.objects);
  base.object_size = Place(snap.object_size, total.objects);
  base.ref_end = Place(snap.ref_end, total.objects);
  base.refs = Place(snap.refs, total.refs);
  base.root_object = Place(snap.root_object, total.roots);
  base.root_kind = Place(snap.root_kind, total.roots);
  base.root_flags = Place(snap.root_flags, total.roots);
  base.root_container = Place(snap.root_container, total.roots);
  std::vector<ColumnsOut> out;
  RecordCounts at;
  for (const RecordCounts& r : room) {
    ColumnsOut w;
    w.store = true;
    w.object_id = base.object_id + at.objects;
    w.object_type = base.object_type + at.objects;
    w.object_size = base.object_size + at.objects;
    w.ref_end = base.ref_end + at.objects;
    w.refs = base.refs + at.refs;
    w.root_object = base.root_object + at.roots;
    w.root_kind = base.root_kind + at.roots;
    w.root_flags = base.root_flags + at.roots;
    w.root_container = base.root_container + at.roots;
    w.room = r;
    w.ref_base = at.refs;
    out.push_back(w);
    at.objects += r.objects;
    at.refs += r.refs;
    at.roots += r.roots;
  }
  return out;
}

void CompactColumns(const std::vector<RecordCounts>& room, const std::vector<ChunkResult>& chunks,
                    Snapshot& snap) {
  RecordCounts from, to;  // where each chunk's window starts, and where its records go
  for (size_t c = 0; c < chunks.size(); ++c) {
    const RecordCounts& n = chunks[c].stored;
    MoveDown(snap.object_id, from.objects, to.objects, n.objects);
    MoveDown(snap.object_type, from.objects, to.objects, n.objects);
    MoveDown(snap.object_size, from.objects, to.objects, n.objects);
    MoveDown(snap.ref_end, from.objects, to.objects, n.objects);
    if (from.refs != to.refs)
      for (uint64_t i = to.objects; i < to.objects + n.objects; ++i)
        snap.ref_end[i] -= from.refs - to.refs;
    MoveDown(snap.refs, from.refs, to.refs, n.refs);
    MoveDown(snap.root_object, from.roots, to.roots, n.roots);
    MoveDown(snap.root_kind, from.roots, to.roots, n.roots);
    MoveDown(snap.root_flags, from.roots, to.roots, n.roots);
    MoveDown(snap.root_container, from.roots, to.roots, n.roots);
    from.objects += room[c].objects;
    from.refs += room[c].refs;
    from.roots += room[c].roots;
    to.objects += n.objects;
    to.refs += n.refs;
    to.roots += n.roots;
  }
  snap.object_id.resize(to.objects);
  snap.object_type.resize(to.objects);
  snap.object_size.resize(to.objects);
  snap.ref_end.resize(to.objects);
  snap.refs.resize(to.refs);
  snap.root_object.resize(to.roots);
  snap.root_kind.resize(to.roots);
  snap.root_flags.resize(to.roots);
  snap.root_container.resize(to.roots);
  snap.root_origin.resize(to.roots, kNoIndex);
}

void BuildTypes(SectionTypes& section_types, Snapshot& snap, PendingDiags& diags) {
  constexpr uint64_t kDenseTypesFrom = 1 << 16;  // objects in a section
  constexpr uint32_t kDenseTypeIds = 1 << 16;
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
    // Big sections also use a direct table for small ids (type ids are small in practice).
    const uint32_t first_placeholder = static_cast<uint32_t>(snap.types.size());
    std::vector<uint64_t> first_use, uses;
    std::vector<uint32_t> dense;  // id -> index + 1, 0: not looked up yet
    if (s.objects_end - s.objects_begin >= kDenseTypesFrom) dense.assign(kDenseTypeIds, 0);
    uint32_t* col = snap.object_type.data();
    for (uint64_t i = s.objects_begin; i < s.objects_end; ++i) {
      const uint32_t id = col[i];
      uint32_t idx = id < dense.size() ? dense[id] : 0;
      if (idx) {
        --idx;
      } else {
        idx = map.Find(id);
        if (idx == TypeIdMap::kMissing) {
          idx = snap.AddType(id, "<unknown type " + HexString(id) + ">", sec, true);
          map.Insert(id, idx);
          first_use.push_back(i);
          uses.push_back(0);
        }
        if (id < dense.size()) dense[id] = idx + 1;
      }
      col[i] = idx;
      if (idx >= first_placeholder) ++uses[idx - first_placeholder];
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

}  // namespace xrpm::formats
