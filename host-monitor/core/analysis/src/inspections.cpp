// Automatic inspections; the algorithms are described in inspections.h.
#include "xrpm/analysis/inspections.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_set>

#include "xrpm/analysis/paths.h"
#include "xrpm/model/object_fields.h"
#include "xrpm/model/type_name.h"

namespace xrpm::analysis {
namespace {

// ---- delegates (event-handler-leaks) ----
uint32_t DelegateTargetField(const TypeLayout* l) {
  if (!l || l->shape != TypeShape::kClass) return kNoSlot;
  for (std::string_view name : {"_target", "m_target"}) {
    const uint32_t f = FindField(*l, name);
    if (f != kNoSlot && l->fields[f].kind == FieldKind::kReference) return f;
  }
  return kNoSlot;
}

// The node a delegate's target field references, or kNoIndex.
uint32_t TargetOf(const GraphIndex& g, uint32_t v, uint32_t field) {
  const Snapshot& s = g.snapshot();
  if (s.fields.has_slots()) {
    const auto refs = s.object_refs(v);
    const uint64_t b = s.ref_begin(v);
    for (size_t k = 0; k < refs.size(); ++k)
      if (s.fields.slot_of(b + k) == field) return g.Find(refs[k]);
  }
  const FieldValue fv = ReadField(s, v, field);
  return fv.kind == FieldValue::Kind::kRef ? g.Find(fv.ref) : kNoIndex;
}

// Per type: the delegate's target field, kNoSlot for other types (and without layouts).
std::vector<uint32_t> DelegateTargetFields(const Snapshot& s) {
  std::vector<uint32_t> f(s.type_count(), kNoSlot);
  for (uint32_t t = 0; t < s.type_count(); ++t)
    f[t] = DelegateTargetField(s.fields.layout_of_type(t));
  return f;
}

struct Ctx {
  const GraphIndex& g;
  const Snapshot& s;
  const InspectOptions& o;
  std::vector<uint32_t> target_field;  // per type: a delegate's `_target` field, or kNoSlot
  // The live delegates with a target, (delegate, target) in node order; met by the forest.
  std::vector<std::pair<uint32_t, uint32_t>> delegates;
  std::vector<bool> without_delegates;  // reachable without delegate -> target edges
  // Liveness: one BFS from the strong roots that takes delegate -> target edges last, so it
  // also yields without_delegates (what event-handler-leaks needs) in the same pass.
  // Held by pointer so that RunInspections can hand them on (InspectionPaths) without moving
  // the forest the merger points to.
  std::unique_ptr<RootPathForest> forest_ptr;
  std::unique_ptr<PathMerger> merger_ptr;
  const RootPathForest& forest;
  PathMerger& merger;
  Ctx(const GraphIndex& gi, const InspectOptions& op, const Progress& progress)
      : g(gi),
        s(gi.snapshot()),
        o(op),
        target_field(DelegateTargetFields(s)),
        forest_ptr(BuildForest(progress)),
        merger_ptr(std::make_unique<PathMerger>(gi, *forest_ptr)),
        forest(*forest_ptr),
        merger(*merger_ptr) {
    std::sort(delegates.begin(), delegates.end());
  }
  bool live(uint32_t v) const { return forest.reachable(v); }

 private:
  std::unique_ptr<RootPathForest> BuildForest(const Progress& progress) {
    const bool any_delegate_type = std::any_of(target_field.begin(), target_field.end(),
                                               [](uint32_t f) { return f != kNoSlot; });
    // Nothing to defer: the plain forest, without a call per node (no delegates, so
    // event-handler-leaks never reads without_delegates).
    if (!any_delegate_type)
      return std::make_unique<RootPathForest>(RootPathForest::Build(g, progress));
    return std::make_unique<RootPathForest>(RootPathForest::BuildDeferring(
        g,
        [this](uint32_t v) {
          const uint32_t f = target_field[s.object_type[v]];
          if (f == kNoSlot) return kNoIndex;
          const uint32_t t = TargetOf(g, v, f);
          if (t != kNoIndex) delegates.emplace_back(v, t);
          return t;
        },
        without_delegates, progress));
  }
};

// Reachability from the strong roots that never follows the edge v -> w when cut(v, w), one
// BFS, O(N + E); 1 bit/object.
template <class Cut>
std::vector<bool> ReachWithout(const Ctx& c, Cut cut) {
  std::vector<bool> reach(c.g.node_count(), false);
  std::vector<uint32_t> queue;
  for (uint32_t r : c.g.StrongRoots())
    if (!reach[r] && !cut(kNoIndex, r)) reach[r] = true, queue.push_back(r);
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const uint32_t v = queue[qi];
    c.g.ForEachOut(v, [&](uint32_t w) {
      if (!reach[w] && !cut(v, w)) reach[w] = true, queue.push_back(w);
    });
  }
  return reach;
}

// Claims for one group what `start` reaches among the objects `reach` does not (marking them),
// and returns their bytes: called for each group in turn after ReachWithout cut the group's
// holders, this gives each group what only it keeps alive (what would be freed with it), the
// objects several groups share going to the first. O(N + E) over all groups.
uint64_t Claim(const Ctx& c, std::vector<bool>& reach, uint32_t start,
               std::vector<uint32_t>& queue) {
  if (reach[start]) return 0;
  uint64_t bytes = 0;
  reach[start] = true;
  queue.assign(1, start);
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const uint32_t x = queue[qi];
    bytes += c.s.object_size[x];
    c.g.ForEachOut(x, [&](uint32_t w) {
      if (!reach[w]) reach[w] = true, queue.push_back(w);
    });
  }
  return bytes;
}

// A group of objects under one `what`, before it becomes a Finding.
struct Group {
  std::string what;
  uint64_t bytes = 0;
  std::vector<uint32_t> objects;  // all of them
};

void Finish(Ctx& c, Inspection& in, std::vector<Group>& groups) {
  std::sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.objects.size() != y.objects.size()) return x.objects.size() > y.objects.size();
    return x.what < y.what;
  });
  for (const Group& gr : groups) {
    in.total_count += gr.objects.size();
    in.total_bytes += gr.bytes;
    if (in.findings.size() >= c.o.max_findings) continue;
    Finding f;
    f.what = gr.what;
    f.count = gr.objects.size();
    f.bytes = gr.bytes;
    const MergedPaths m = c.merger.Merge(gr.objects, nullptr, 1);
    if (!m.paths.empty()) f.path = MergedPathLabel(c.g, m.paths[0], " -> ");
    f.objects.assign(gr.objects.begin(),
                     gr.objects.begin() + std::min(gr.objects.size(), c.o.max_objects));
    in.findings.push_back(std::move(f));
  }
}

// Groups nodes by their type group name; bytes by `size(i)` for nodes[i].
template <class Size>
std::vector<Group> ByType(Ctx& c, const std::vector<uint32_t>& nodes, Size size) {
  std::map<uint32_t, Group> by;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Group& gr = by[c.g.group_of(nodes[i])];
    gr.objects.push_back(nodes[i]);
    gr.bytes += size(i);
  }
  std::vector<Group> out;
  for (auto& [grp, gr] : by) {
    gr.what = c.g.group_name(grp);
    out.push_back(std::move(gr));
  }
  return out;
}

bool HasValues(const Snapshot& s) {
  return s.fields.has_values() && s.fields.has_layouts();
}
constexpr const char* kNoValues =
    "the snapshot has no field values (a --no-values capture or a format without them)";

// ---- duplicate-strings ----
void DuplicateStrings(Ctx& c, Inspection& in) {
  if (!HasValues(c.s)) return void(in.skipped = kNoValues);
  struct Str {
    std::string_view text;
    uint32_t node;
  };
  std::vector<Str> strs;
  for (uint32_t v = 0; v < c.g.node_count(); ++v) {
    if (!c.live(v)) continue;
    const auto t = StringOf(c.s, v);
    if (t && !t->cut) strs.push_back({t->text, v});
  }
  std::sort(strs.begin(), strs.end(), [](const Str& x, const Str& y) {
    return x.text != y.text ? x.text < y.text : x.node < y.node;
  });
  std::vector<Group> groups;
  for (size_t i = 0; i < strs.size();) {
    size_t j = i;
    while (j < strs.size() && strs[j].text == strs[i].text) ++j;
    if (j - i >= c.o.min_copies) {
      Group gr;
      gr.what = std::string(strs[i].text);
      uint64_t total = 0, largest = 0;
      for (size_t k = i; k < j; ++k) {
        gr.objects.push_back(strs[k].node);
        total += c.s.object_size[strs[k].node];
        largest = std::max<uint64_t>(largest, c.s.object_size[strs[k].node]);
      }
      gr.bytes = total - largest;
      groups.push_back(std::move(gr));
    }
    i = j;
  }
  Finish(c, in, groups);
}

void EventHandlerLeaks(Ctx& c, Inspection& in) {
  if (!c.s.fields.has_layouts())
    return void(in.skipped = "the snapshot has no type layouts (field names)");
  if (c.delegates.empty()) return;
  const std::vector<uint32_t>& target_field = c.target_field;
  // Reachability without the delegate -> target edges (from the forest's pass), then claimed.
  std::vector<bool> reach = c.without_delegates;
  std::vector<uint32_t> queue;
  // Attribute what only delegates hold to the first delegate target reaching it.
  std::map<std::pair<std::string, uint32_t>, Group> groups;  // (holder field, target group)
  auto is_delegate_part = [&](uint32_t v) {
    if (target_field[c.s.object_type[v]] != kNoSlot) return true;
    const uint32_t p = c.forest.parent(v);  // an invocation array held by a delegate
    return p != RootPathForest::kSource && p != kNoIndex &&
           target_field[c.s.object_type[p]] != kNoSlot;
  };
  for (const auto& [d, t] : c.delegates) {
    if (reach[t]) continue;  // held elsewhere too (or already attributed)
    // The field holding the delegate chain.
    uint32_t v = d, p = c.forest.parent(v);
    while (p != RootPathForest::kSource && p != kNoIndex && is_delegate_part(p))
      v = p, p = c.forest.parent(v);
    std::string holder;
    if (p == RootPathForest::kSource || p == kNoIndex) {
      const uint32_t rec = c.g.StrongRootRecord(v);
      holder = rec == kNoIndex ? "" : RootLabel(DescribeRoot(c.g, rec));
    } else {
      const std::string field = HoldingField(c.g, p, v);
      holder = c.g.group_name(c.g.group_of(p)) + (field.empty() ? "" : "." + field);
    }
    Group& gr = groups[{holder, c.g.group_of(t)}];
    gr.objects.push_back(t);
    gr.bytes += Claim(c, reach, t, queue);
  }
  std::vector<Group> out;
  for (auto& [key, gr] : groups) {
    gr.what = key.first + " -> " + c.g.group_name(key.second);
    out.push_back(std::move(gr));
  }
  Finish(c, in, out);
}

// ---- disposed-but-held ----
void DisposedButHeld(Ctx& c, Inspection& in) {
  if (!HasValues(c.s)) return void(in.skipped = kNoValues);
  std::vector<uint32_t> flag(c.s.type_count(), kNoSlot);
  for (uint32_t t = 0; t < c.s.type_count(); ++t) {
    const TypeLayout* l = c.s.fields.layout_of_type(t);
    if (!l) continue;
    for (const std::string& name : c.o.disposed_fields) {
      const uint32_t f = FindField(*l, name);
      if (f != kNoSlot && l->fields[f].kind == FieldKind::kBoolean) {
        flag[t] = f;
        break;
      }
    }
  }
  std::vector<uint32_t> hits;
  for (uint32_t v = 0; v < c.g.node_count(); ++v) {
    const uint32_t f = flag[c.s.object_type[v]];
    if (f == kNoSlot || !c.live(v)) continue;
    const FieldValue fv = ReadField(c.s, v, f);
    if (fv.kind == FieldValue::Kind::kBool && fv.b) hits.push_back(v);
  }
  // Retained: what the disposed objects keep alive that nothing else does (ReachWithout
  // entering none of them, then each type's objects claim theirs).
  if (hits.empty()) return;
  std::vector<bool> hit(c.g.node_count(), false);
  for (uint32_t v : hits) hit[v] = true;
  std::vector<bool> reach = ReachWithout(c, [&](uint32_t, uint32_t w) { return hit[w]; });
  auto groups = ByType(c, hits, [](size_t) { return uint64_t{0}; });
  std::vector<uint32_t> queue;
  for (Group& gr : groups)
    for (uint32_t v : gr.objects) gr.bytes += Claim(c, reach, v, queue);
  Finish(c, in, groups);
}

// ---- sparse-collections ----
// A BCL collection by its generic definition's canonical name (type_name.h: the same for the
// NETCF, emulator and Mono names of List<T> whatever T) and its fields in the class libraries
// that lay it out (NETCF, Mono/corefx).
struct CollectionShape {
  std::string_view definition;
  std::string_view count[2];  // first present is the count
  std::string_view free[2];   // subtracted when present
  std::string_view store[3];  // the backing array (capacity = its length)
};
constexpr CollectionShape kCollections[] = {
    {"System.Collections.Generic.List<>", {"_size", "size"}, {}, {"_items", "items"}},
    {"System.Collections.Generic.Dictionary<,>",
     {"count", "_count"},
     {"freeCount", "_freeCount"},
     {"buckets", "_buckets", "table"}},
    {"System.Collections.Generic.HashSet<>",
     {"m_count", "_count"},
     {"m_freeCount", "_freeCount"},
     {"m_buckets", "_buckets", "table"}},
    {"System.Collections.Generic.Queue<>", {"_size", "size"}, {}, {"_array", "array"}},
    {"System.Collections.Generic.Stack<>", {"_size", "size"}, {}, {"_array", "array"}},
};

uint32_t FirstField(const TypeLayout& l, std::span<const std::string_view> names) {
  for (std::string_view n : names)
    if (!n.empty())
      if (uint32_t f = FindField(l, n); f != kNoSlot) return f;
  return kNoSlot;
}

int64_t IntValue(const FieldValue& v) {
  switch (v.kind) {
    case FieldValue::Kind::kSigned:
    case FieldValue::Kind::kEnum:
      return v.i;
    case FieldValue::Kind::kUnsigned:
      return static_cast<int64_t>(v.u);
    default:
      return -1;
  }
}

bool IsValueTypeName(std::string_view n);
std::vector<uint8_t> ValueTypes(const Snapshot& s);

constexpr const char* kNamesOnlyNote =
    "this snapshot carries no type traits: value types are guessed from names and field "
    "declarations (a boxed struct that no field declares is missed)";

void SparseCollections(Ctx& c, Inspection& in) {
  if (!HasValues(c.s)) return void(in.skipped = kNoValues);
  struct Kind {
    uint32_t count = kNoSlot, free = kNoSlot, store = kNoSlot;
    bool array = false;
  };
  std::vector<Kind> kinds(c.s.type_count());
  // With traits an array's element type is the runtime's, and whether it is a value type too.
  const bool traits = c.s.has_type_traits();
  std::unordered_set<std::string_view> value_types;
  if (traits) {
    const std::vector<uint8_t> value = ValueTypes(c.s);
    for (uint32_t t = 0; t < c.s.type_count(); ++t)
      if (value[t]) value_types.insert(c.s.types[t].name);
  } else {
    in.note = kNamesOnlyNote;
  }
  std::unordered_set<std::string_view> groups_with_objects;
  for (uint32_t gi = 0; gi < c.g.group_count(); ++gi)
    if (c.g.group_size(gi) != 0) groups_with_objects.insert(c.g.group_name(gi));
  for (uint32_t t = 0; t < c.s.type_count(); ++t) {
    const TypeLayout* l = c.s.fields.layout_of_type(t);
    const std::string& name = c.s.types[t].name;
    if (!l) continue;
    const TypeTraits& tr = c.s.types[t].traits;
    if (traits && tr.kind == TypeKind::kArray) {
      // One-dimensional arrays of references: the element is no value type (the runtime's
      // word) and an object type the heap has, or Object / String.
      const std::string_view elem = tr.element_type;
      kinds[t].array = tr.array_rank == 1 && !elem.empty() && !IsValueTypeName(elem) &&
                       !value_types.contains(elem) &&
                       (elem == "System.Object" || elem == "System.String" ||
                        groups_with_objects.contains(elem));
      continue;
    }
    if (!traits && l->shape == TypeShape::kArray && name.size() > 2 && name.ends_with("[]")) {
      // Arrays of references only: the element type is an object type the heap has (or
      // Object / String), not a primitive or a value type.
      const std::string_view elem = std::string_view(name).substr(0, name.size() - 2);
      kinds[t].array =
          !IsValueTypeName(elem) && (elem == "System.Object" || elem == "System.String" ||
                                     groups_with_objects.contains(elem));
      continue;
    }
    const std::string definition = GenericDefinitionName(name);
    for (const CollectionShape& cs : kCollections) {
      if (definition != cs.definition) continue;
      kinds[t].count = FirstField(*l, cs.count);
      kinds[t].free = FirstField(*l, cs.free);
      kinds[t].store = FirstField(*l, cs.store);
      if (kinds[t].count == kNoSlot || kinds[t].store == kNoSlot) kinds[t] = {};
    }
  }
  std::vector<bool> is_store(c.g.node_count(), false);  // arrays backing a collection
  std::vector<uint32_t> hits;
  std::vector<uint64_t> wasted;  // per hit
  auto sparse = [&](int64_t count, uint32_t capacity) {
    return capacity >= c.o.min_capacity && count >= 0 &&
           static_cast<double>(count) <= c.o.sparse_ratio * capacity;
  };
  for (uint32_t v = 0; v < c.g.node_count(); ++v) {
    const Kind& k = kinds[c.s.object_type[v]];
    if (k.count == kNoSlot) continue;
    const FieldValue st = ReadField(c.s, v, k.store);
    const uint32_t arr = st.kind == FieldValue::Kind::kRef ? c.g.Find(st.ref) : kNoIndex;
    if (arr == kNoIndex) continue;
    is_store[arr] = true;
    if (!c.live(v)) continue;
    int64_t count = IntValue(ReadField(c.s, v, k.count));
    if (k.free != kNoSlot) count -= std::max<int64_t>(0, IntValue(ReadField(c.s, v, k.free)));
    const auto cap = ArrayLengthOf(c.s, arr);
    if (!cap || !sparse(count, *cap)) continue;
    hits.push_back(v);
    const uint64_t size = c.s.object_size[arr];
    wasted.push_back(*cap ? size * (*cap - static_cast<uint64_t>(count)) / *cap : 0);
  }
  for (uint32_t v = 0; v < c.g.node_count(); ++v) {
    if (!kinds[c.s.object_type[v]].array || is_store[v] || !c.live(v)) continue;
    const auto cap = ArrayLengthOf(c.s, v);
    const uint64_t count = c.g.OutCount(v);
    if (!cap || !sparse(static_cast<int64_t>(count), *cap)) continue;
    hits.push_back(v);
    wasted.push_back(c.s.object_size[v] * (*cap - count) / *cap);
  }
  auto groups = ByType(c, hits, [&](size_t i) { return wasted[i]; });
  Finish(c, in, groups);
}

// ---- boxed-values ----
bool IsValueTypeName(std::string_view n) {
  static constexpr std::string_view kNames[] = {"System.Boolean",
                                                "System.Char",
                                                "System.SByte",
                                                "System.Byte",
                                                "System.Int16",
                                                "System.UInt16",
                                                "System.Int32",
                                                "System.UInt32",
                                                "System.Int64",
                                                "System.UInt64",
                                                "System.IntPtr",
                                                "System.UIntPtr",
                                                "System.Single",
                                                "System.Double",
                                                "System.Decimal",
                                                "System.DateTime",
                                                "System.TimeSpan",
                                                "System.Guid",
                                                "Microsoft.Xna.Framework.Vector2",
                                                "Microsoft.Xna.Framework.Vector3",
                                                "Microsoft.Xna.Framework.Vector4",
                                                "Microsoft.Xna.Framework.Point",
                                                "Microsoft.Xna.Framework.Rectangle",
                                                "Microsoft.Xna.Framework.Color",
                                                "Microsoft.Xna.Framework.Graphics.Color",
                                                "Microsoft.Xna.Framework.Matrix",
                                                "Microsoft.Xna.Framework.Quaternion"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

// Value types: the runtime's traits (TypeInfo::traits) when the snapshot carries them; else
// guessed from the type layouts: enums the capture names; the types some field stores
// inline (a non-reference field declared of that type: a game's own structs, primitives);
// boxes by their shape (a class whose one instance field is a non-reference `m_value` /
// `_value`, as the CLR and Mono lay out Int32, Single, ..., or an enum's `value__`). The BCL and
// XNA names of IsValueTypeName stay known for snapshots without layouts (and for structs no field
// declares). An enum's box has the one field `value__`. O(types + fields).
std::vector<uint8_t> ValueTypes(const Snapshot& s) {
  if (s.has_type_traits()) {  // the runtime said which types are value types
    std::vector<uint8_t> value(s.type_count(), 0);
    for (uint32_t t = 0; t < s.type_count(); ++t) value[t] = s.types[t].traits.value_type();
    return value;
  }
  // Layouts name types as their source writes them: compared in canonical form (type_name.h).
  std::unordered_set<std::string> names;
  for (const EnumTypeInfo& e : s.fields.enums) names.insert(CanonicalTypeName(e.name));
  for (uint32_t t = 0; t < s.type_count(); ++t)
    if (const TypeLayout* l = s.fields.layout_of_type(t))
      for (const FieldLayout& f : l->fields)
        if (f.kind != FieldKind::kReference && !f.type_name.empty() &&
            f.name.find('.') == std::string::npos)  // "position.X": a flattened struct's part
          names.insert(CanonicalTypeName(f.type_name));
  std::vector<uint8_t> value(s.type_count(), 0);
  for (uint32_t t = 0; t < s.type_count(); ++t) {
    const TypeLayout* l = s.fields.layout_of_type(t);
    const bool primitive_box = l && l->shape == TypeShape::kClass && l->fields.size() == 1 &&
                               l->fields[0].kind != FieldKind::kReference &&
                               (l->fields[0].name == "m_value" || l->fields[0].name == "_value" ||
                                l->fields[0].name == "value__");
    value[t] = primitive_box || names.contains(s.types[t].name) || IsValueTypeName(s.types[t].name);
  }
  return value;
}

void BoxedValues(Ctx& c, Inspection& in) {
  const std::vector<uint8_t> boxed = ValueTypes(c.s);
  if (!c.s.has_type_traits()) in.note = kNamesOnlyNote;
  std::vector<uint32_t> hits;
  for (uint32_t v = 0; v < c.g.node_count(); ++v)
    if (boxed[c.s.object_type[v]] && c.live(v)) hits.push_back(v);
  auto groups = ByType(c, hits, [&](size_t i) { return uint64_t{c.s.object_size[hits[i]]}; });
  Finish(c, in, groups);
}

// ---- finalizable ----
void Finalizable(Ctx& c, Inspection& in) {
  std::vector<bool> seen(c.g.node_count(), false);
  std::vector<uint32_t> hits;
  for (size_t r = 0; r < c.s.root_count(); ++r) {
    const uint32_t v = c.g.root_node(r);
    if (c.s.root_kind_of(r) != RootKind::kFinalizer || v == kNoIndex || seen[v]) continue;
    seen[v] = true;
    hits.push_back(v);
  }
  // Live objects of types with a finalizer (when the capture says which: TypeInfo).
  std::vector<uint8_t> finalizer(c.s.type_count(), 0);
  bool any = false;
  for (uint32_t t = 0; t < c.s.type_count(); ++t) any |= finalizer[t] = c.s.types[t].has_finalizer;
  if (any)
    for (uint32_t v = 0; v < c.g.node_count(); ++v)
      if (finalizer[c.s.object_type[v]] && !seen[v] && c.live(v)) hits.push_back(v);
  auto groups = ByType(c, hits, [&](size_t i) { return uint64_t{c.s.object_size[hits[i]]}; });
  Finish(c, in, groups);
}

}  // namespace

std::vector<Inspection> RunInspections(const GraphIndex& g, const InspectOptions& opts,
                                       const Progress& progress, InspectionPaths* paths) {
  for (const std::string& n : opts.only)
    if (std::find(std::begin(kInspectionNames), std::end(kInspectionNames), n) ==
        std::end(kInspectionNames))
      throw std::invalid_argument("unknown inspection '" + n +
                                  "' (expected duplicate-strings, event-handler-leaks, "
                                  "disposed-but-held, sparse-collections, boxed-values or "
                                  "finalizable)");
  Ctx c(g, opts, progress);
  using Fn = void (*)(Ctx&, Inspection&);
  static constexpr Fn kFns[] = {DuplicateStrings,  EventHandlerLeaks, DisposedButHeld,
                                SparseCollections, BoxedValues,       Finalizable};
  static constexpr const char* kBytes[] = {"wasted", "retained", "retained",
                                           "wasted", "shallow",  "shallow"};
  std::vector<Inspection> out;
  for (size_t i = 0; i < std::size(kInspectionNames); ++i) {
    const std::string name(kInspectionNames[i]);
    if (!opts.only.empty() &&
        std::find(opts.only.begin(), opts.only.end(), name) == opts.only.end())
      continue;
    Inspection in;
    in.name = name;
    in.bytes_meaning = kBytes[i];
    kFns[i](c, in);
    out.push_back(std::move(in));
  }
  if (paths && c.delegates.empty()) {  // no edge was deferred: RootPathForest::Build's forest
    paths->forest = std::move(c.forest_ptr);
    paths->merger = std::move(c.merger_ptr);
  }
  return out;
}

std::vector<Inspection> DiffInspections(const std::vector<Inspection>& before,
                                        const std::vector<Inspection>& after) {
  std::vector<Inspection> out;
  for (const Inspection& b : after) {
    Inspection d;
    d.name = b.name;
    d.bytes_meaning = b.bytes_meaning;
    d.skipped = b.skipped;
    d.note = b.note;
    const Inspection* old = nullptr;
    for (const Inspection& x : before)
      if (x.name == b.name) old = &x;
    if (old && old->skipped && !d.skipped)
      d.skipped = "skipped in the first snapshot: " + *old->skipped;
    for (const Finding& f : b.findings) {
      const Finding* was = nullptr;
      if (old)
        for (const Finding& x : old->findings)
          if (x.what == f.what) was = &x;
      if (was && f.count <= was->count && f.bytes <= was->bytes) continue;
      Finding g = f;
      if (was) {
        g.count = f.count > was->count ? f.count - was->count : 0;
        g.bytes = f.bytes > was->bytes ? f.bytes - was->bytes : 0;
      }
      d.total_count += g.count;
      d.total_bytes += g.bytes;
      d.findings.push_back(std::move(g));
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace xrpm::analysis
