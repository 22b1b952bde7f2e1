// V8 .heapsnapshot writer: counts first (edges per node, resolvable roots), then streams the
// nodes, the edges and the string table. See heapsnapshot_writer.h for the mapping.
// WriteHeapSnapshot groups the roots, resolves the references and counts, then writes one
// section at a time: header (meta and counts), nodes, edges, strings.
#include "xrpm/formats/heapsnapshot_writer.h"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "xrpm/model/atomic_file.h"
#include "xrpm/model/id_resolver.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::formats {
namespace {

constexpr size_t kFlushBytes = 256 * 1024;
constexpr uint64_t kNodeFields = 7;
// Indexes into meta.node_types[0] / meta.edge_types[0] below.
constexpr int kNodeString = 2, kNodeObject = 3, kNodeSynthetic = 9;
constexpr int kEdgeElement = 1, kEdgeProperty = 2, kEdgeWeak = 6;

constexpr std::string_view kMeta =
    R"({"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count",)"
    R"("trace_node_id","detachedness"],"node_types":[["hidden","array","string","object",)"
    R"("code","closure","regexp","number","native","synthetic","concatenated string",)"
    R"("sliced string","symbol","bigint","object shape"],"string","number","number","number",)"
    R"("number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":)"
    R"([["context","element","property","internal","hidden","shortcut","weak"],)"
    R"("string_or_number","node"],"trace_function_info_fields":["function_id","name",)"
    R"("script_name","script_id","line","column"],"trace_node_fields":["id",)"
    R"("function_info_index","count","size","children"],"sample_fields":["timestamp_us",)"
    R"("last_assigned_id"],"location_fields":["object_index","script_id","line","column"]},)";

// JsonOut: buffers JSON text and hands it to the sink in ~256 KiB chunks. Not thread-safe.
class JsonOut {
 public:
  explicit JsonOut(const std::function<void(std::string_view)>& sink) : sink_(sink) {
    buf_.reserve(kFlushBytes + 4096);
  }
  void Raw(std::string_view s) { buf_ += s; }
  void Num(uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
  }
  // A JSON string literal (nlohmann's escaping); invalid UTF-8 becomes U+FFFD.
  void Str(const std::string& s) {
    buf_ += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  const std::function<void(std::string_view)>& sink_;
  std::string buf_;
};

// StringTable: the snapshot's "strings" array, deduplicated; index 0 is "". Not thread-safe.
class StringTable {
 public:
  StringTable() { Add(""); }
  uint32_t Add(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> strings_;
};

std::string KindLabel(uint8_t kind) {
  if (kind < kRootKindCount) return std::string(RootKindName(static_cast<RootKind>(kind)));
  return "kind " + std::to_string(kind);
}

// One edge from a "(GC roots: ...)" node to a rooted object.
struct RootEdge {
  uint64_t target;  // node ordinal
  uint32_t type;    // edge type
  uint32_t name;    // string index, or element index
};

// The root edges, grouped by root kind, in kind order (one "(GC roots: ...)" node each).
using RootGroups = std::map<uint8_t, std::vector<RootEdge>>;

// Root r's edge name: its label, or a static's class; its origin; its flags ("" when none).
std::string RootName(const Snapshot& snap, uint64_t r, uint32_t section,
                     const std::unordered_map<uint64_t, uint32_t>& type_by_section_id) {
  std::string name;
  auto part = [&](const std::string& p) {
    if (p.empty()) return;
    if (!name.empty()) name += ' ';
    name += p;
  };
  const std::string_view label = snap.fields.label_of_root(r);
  if (!label.empty()) {
    part(std::string(label));  // "Bubbles.GameEvents.Popped", "in Game1.Update, thread 1"
  } else if (snap.root_kind[r] == static_cast<uint8_t>(RootKind::kStatic) &&
             snap.root_container[r] != 0) {
    auto it = type_by_section_id.find(uint64_t{section} << 32 | snap.root_container[r]);
    char hex[16];
    auto res = std::to_chars(hex, hex + sizeof hex, snap.root_container[r], 16);
    part(it != type_by_section_id.end() ? snap.types[it->second].name
                                        : "type 0x" + std::string(hex, res.ptr));
  }
  if (snap.root_origin[r] < snap.root_origins.size()) part(snap.root_origins[snap.root_origin[r]]);
  if (snap.root_flags[r]) part(RootFlagsName(snap.root_flags[r]));
  return name;
}

// Every root naming an object of the snapshot as an edge of its kind's group: weak ones as weak
// edges, named ones as properties, the rest as elements. Roots naming no object are counted in
// st.dropped_roots.
RootGroups GroupRoots(const Snapshot& snap, const IdResolver& index, StringTable& strings,
                      HeapSnapshotStats& st) {
  RootGroups groups;
  std::unordered_map<uint64_t, uint32_t> type_by_section_id;  // section << 32 | id -> index
  for (uint32_t t = 0; t < snap.type_count(); ++t)
    type_by_section_id.try_emplace(uint64_t{snap.types[t].section} << 32 | snap.types[t].id, t);
  for (uint8_t kind : snap.root_kind) groups[kind];  // the kinds present, in order
  const uint64_t first_object = 1 + groups.size();
  auto add_roots = [&](uint32_t section, uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      uint64_t target = index.Find(snap.root_object[r]);
      if (target == kNoIndex) {
        ++st.dropped_roots;
        continue;
      }
      const std::string name = RootName(snap, r, section, type_by_section_id);
      std::vector<RootEdge>& g = groups[snap.root_kind[r]];
      RootEdge e{first_object + target, kEdgeElement, static_cast<uint32_t>(g.size())};
      if (snap.root_flags[r] & kRootWeak) {
        e.type = kEdgeWeak;
        e.name = strings.Add(name);
      } else if (!name.empty()) {
        e.type = kEdgeProperty;
        e.name = strings.Add(name);
      }
      g.push_back(e);
    }
  };
  if (snap.sections.empty()) {
    add_roots(0, 0, snap.root_count());
  } else {
    for (uint32_t s = 0; s < snap.sections.size(); ++s)
      add_roots(s, snap.sections[s].roots_begin, snap.sections[s].roots_end);
  }
  return groups;
}

// A reference that resolves to no object.
constexpr uint32_t kDangling = 0xFFFFFFFFu;

// Every reference resolved once, to its object's index (kDangling when there is none): the
// node pass counts edges from it and the edge pass writes them without a second lookup.
PodVector<uint32_t> ResolveRefs(const Snapshot& snap, const IdResolver& index,
                                HeapSnapshotStats& st) {
  PodVector<uint32_t> target(snap.ref_count());
  for (size_t k = 0; k < snap.ref_count(); ++k) {
    const uint32_t t = index.Find(snap.refs[k]);
    target[k] = t == kNoIndex ? kDangling : t;
    st.dropped_refs += t == kNoIndex;
  }
  return target;
}

// The node count; throws when the format's 32-bit node indexes cannot hold the snapshot.
void CountNodes(const Snapshot& snap, const RootGroups& groups, HeapSnapshotStats& st) {
  st.root_groups = groups.size();
  st.node_count = 1 + groups.size() + snap.object_count();
  if (st.node_count * kNodeFields > 0xFFFFFFFFu)
    throw std::runtime_error("heapsnapshot export: " + std::to_string(snap.object_count()) +
                             " objects exceed the format's 32-bit node indexes");
}

// The edge count (st.dropped_refs known), and whether object ids can be node ids; throws when
// synthetic node ids would not fit in 32 bits.
void CountEdges(const Snapshot& snap, const IdResolver& index, const RootGroups& groups,
                HeapSnapshotStats& st) {
  const size_t nobj = snap.object_count();
  st.edge_count = groups.size() + (snap.ref_count() - st.dropped_refs);
  for (const auto& [kind, g] : groups) st.edge_count += g.size();
  const uint64_t max_synthetic_id = 2 * (1 + groups.size()) - 1;
  st.ids_are_addresses = nobj > 0 && index.duplicate_ids() == 0;
  for (size_t i = 0; i < nobj && st.ids_are_addresses; ++i)
    st.ids_are_addresses = snap.object_id[i] > max_synthetic_id && snap.object_id[i] <= 0xFFFFFFFFu;
  if (!st.ids_are_addresses && 2 * st.node_count + 1 > 0xFFFFFFFFu)
    throw std::runtime_error("heapsnapshot export: too many objects for 32-bit node ids");
}

// String indexes of the names nodes and edges use.
struct Names {
  std::vector<uint32_t> type;                // per type: its name
  std::vector<std::vector<uint32_t>> field;  // per layout and field: a reference field's name
  std::vector<uint32_t> group;               // per root group: "(GC roots: static)"
};

Names AddNames(const Snapshot& snap, const RootGroups& groups, StringTable& strings) {
  Names n;
  n.type.resize(snap.type_count());
  for (size_t t = 0; t < snap.type_count(); ++t) n.type[t] = strings.Add(snap.types[t].name);
  // Object contents: field names of the edges, string text as string nodes' names.
  n.field.resize(snap.fields.layouts.size());
  for (size_t t = 0; t < snap.fields.layouts.size(); ++t)
    for (const FieldLayout& f : snap.fields.layouts[t].fields)
      n.field[t].push_back(f.kind == FieldKind::kReference ? strings.Add(f.name) : 0);
  for (const auto& [kind, g] : groups)
    n.group.push_back(strings.Add("(GC roots: " + KindLabel(kind) + ")"));
  return n;
}

// The snapshot object: meta, counts, and the opening of the nodes array.
void WriteHeader(JsonOut& out, const HeapSnapshotStats& st) {
  out.Raw(kMeta);
  out.Raw("\"node_count\":");
  out.Num(st.node_count);
  out.Raw(",\"edge_count\":");
  out.Num(st.edge_count);
  out.Raw(",\"trace_function_count\":0},\n\"nodes\":[");
}

void WriteNode(JsonOut& out, bool first, int type, uint32_t name, uint64_t id, uint64_t size,
               uint64_t edges) {
  if (!first) out.Raw(",\n");
  out.Num(static_cast<uint64_t>(type));
  out.Raw(",");
  out.Num(name);
  out.Raw(",");
  out.Num(id);
  out.Raw(",");
  out.Num(size);
  out.Raw(",");
  out.Num(edges);
  out.Raw(",0,0");
  out.MaybeFlush();
}

// The nodes: the synthetic root, one per root group, then the objects (a string's node is
// named by its text).
void WriteNodes(JsonOut& out, const Snapshot& snap, const RootGroups& groups, const Names& names,
                const PodVector<uint32_t>& target, StringTable& strings,
                const HeapSnapshotStats& st) {
  const uint64_t first_object = 1 + groups.size();
  WriteNode(out, true, kNodeSynthetic, 0, 1, 0, groups.size());
  size_t k = 0;
  for (const auto& [kind, g] : groups) {
    WriteNode(out, false, kNodeSynthetic, names.group[k], 3 + 2 * k, 0, g.size());
    ++k;
  }
  auto edges_of = [&](size_t i) {
    uint32_t n = 0;
    for (uint64_t r = snap.ref_begin(i); r < snap.ref_end[i]; ++r) n += target[r] != kDangling;
    return n;
  };
  for (size_t i = 0; i < snap.object_count(); ++i) {
    uint64_t id = st.ids_are_addresses ? snap.object_id[i] : 2 * (first_object + i) + 1;
    if (const std::optional<StringValue> text = StringOf(snap, i))
      WriteNode(out, false, kNodeString,
                strings.Add(std::string(text->text) + (text->cut ? "…" : "")), id,
                snap.object_size[i], edges_of(i));
    else
      WriteNode(out, false, kNodeObject, names.type[snap.object_type[i]], id, snap.object_size[i],
                edges_of(i));
  }
}

// EdgeOut: writes the edges array's entries, comma-separated. Not thread-safe.
class EdgeOut {
 public:
  explicit EdgeOut(JsonOut& out) : out_(out) {}
  void Edge(uint32_t type, uint64_t name_or_index, uint64_t target) {
    if (!first_) out_.Raw(",\n");
    first_ = false;
    out_.Num(type);
    out_.Raw(",");
    out_.Num(name_or_index);
    out_.Raw(",");
    out_.Num(target * kNodeFields);
    out_.MaybeFlush();
  }

 private:
  JsonOut& out_;
  bool first_ = true;
};

// The edges: root to groups, groups to rooted objects, then each object's references (array
// elements by index, fields by name, the rest by position).
void WriteEdges(JsonOut& out, const Snapshot& snap, const RootGroups& groups, const Names& names,
                const PodVector<uint32_t>& target) {
  const uint64_t first_object = 1 + groups.size();
  out.Raw("],\n\"edges\":[");
  EdgeOut edges(out);
  for (size_t k = 0; k < groups.size(); ++k) edges.Edge(kEdgeElement, k + 1, 1 + k);
  for (const auto& [kind, g] : groups)
    for (const RootEdge& e : g) edges.Edge(e.type, e.name, e.target);
  for (size_t i = 0; i < snap.object_count(); ++i) {
    const uint64_t begin = snap.ref_begin(i);
    const TypeLayout* layout = snap.fields.has_slots() ? LayoutOf(snap, i) : nullptr;
    for (uint64_t k = begin; k < snap.ref_end[i]; ++k) {
      if (target[k] == kDangling) continue;
      const uint32_t slot = layout ? snap.fields.ref_slot[k] : kNoSlot;
      if (slot != kNoSlot && layout->shape == TypeShape::kArray)
        edges.Edge(kEdgeElement, slot, first_object + target[k]);
      else if (slot != kNoSlot && slot < layout->fields.size())
        edges.Edge(kEdgeProperty, names.field[snap.object_type[i]][slot], first_object + target[k]);
      else
        edges.Edge(kEdgeElement, k - begin, first_object + target[k]);
    }
  }
}

// The empty trace and sample arrays, the string table, and the end of the document.
void WriteStrings(JsonOut& out, const StringTable& strings) {
  out.Raw(
      "],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n"
      "\"locations\":[],\n\"strings\":[");
  const std::vector<std::string>& table = strings.strings();
  for (size_t s = 0; s < table.size(); ++s) {
    if (s) out.Raw(",\n");
    out.Str(table[s]);
    out.MaybeFlush();
  }
  out.Raw("]}\n");
}

}  // namespace

HeapSnapshotStats WriteHeapSnapshot(const Snapshot& snap,
                                    const std::function<void(std::string_view)>& sink) {
  HeapSnapshotStats st;
  const IdResolver index = IdResolver::Build(snap.object_id.span());
  StringTable strings;
  const RootGroups groups = GroupRoots(snap, index, strings, st);
  CountNodes(snap, groups, st);
  const PodVector<uint32_t> target = ResolveRefs(snap, index, st);
  CountEdges(snap, index, groups, st);
  const Names names = AddNames(snap, groups, strings);

  JsonOut out(sink);
  WriteHeader(out, st);
  WriteNodes(out, snap, groups, names, target, strings, st);
  WriteEdges(out, snap, groups, names, target);
  WriteStrings(out, strings);
  out.Flush();
  return st;
}

HeapSnapshotStats WriteHeapSnapshotFile(const Snapshot& snap, const std::string& path) {
  AtomicFile f(path);
  HeapSnapshotStats st = WriteHeapSnapshot(snap, [&](std::string_view b) { f.Write(b); });
  f.Commit();
  return st;
}

}  // namespace xrpm::formats
