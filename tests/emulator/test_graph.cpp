#include "test_graph.h"

#include <deque>

#include "xrpm/emulator/object_refs.h"

namespace xrpm::emulator::test {

TestTypes::TestTypes(Runtime& rt) {
  TypeTable& tt = rt.types();
  node = tt.DefineClass("Test.Node", "test", 0,
                        {{"a", FieldType::kRef},
                         {"b", FieldType::kRef},
                         {"c", FieldType::kRef},
                         {"id", FieldType::kInt32}});
  leaf = tt.DefineClass("Test.Leaf", "test", 0,
                        {{"id", FieldType::kInt32}, {"payload", FieldType::kInt64}});
  finalizable =
      tt.DefineClass("Test.Finalizable", "test", 0,
                     {{"next", FieldType::kRef}, {"id", FieldType::kInt32}}, {.finalizable = true});
  node_array = tt.DefineRefArray(node, "test");
  node_id = tt.Offset(node, "id");
  leaf_id = tt.Offset(leaf, "id");
  fin_id = tt.Offset(finalizable, "id");
  fin_ref = tt.Offset(finalizable, "next");
  node_refs = tt[node].ref_offsets;
  TypeIndex holder = tt.DefineClass("Test.Statics", "test", 0, {});
  for (int i = 0; i < 4; ++i) statics[i] = rt.statics().Define(holder, "s" + std::to_string(i));
}

int64_t IdOf(Runtime& rt, const TestTypes& t, Addr a) {
  TypeIndex ty = rt.TypeOf(a);
  if (ty == t.node) return rt.I32(a, t.node_id);
  if (ty == t.leaf) return rt.I32(a, t.leaf_id);
  if (ty == t.finalizable) return rt.I32(a, t.fin_id);
  if (ty == t.node_array) return static_cast<int64_t>(rt.Length(a)) - 1;
  return -1;
}

GraphSpec RandomGraph(const TestTypes& t, uint64_t seed, uint32_t n) {
  DeterministicRandom rng(seed);
  GraphSpec g;
  g.type.resize(n);
  g.edges.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t r = rng.Below(100);
    g.type[i] = r < 55 ? t.node : r < 80 ? t.leaf : r < 90 ? t.finalizable : t.node_array;
  }
  auto random_ref = [&]() -> int64_t {
    return rng.Below(100) < 35 ? int64_t{-1} : int64_t{rng.Below(n)};
  };
  for (uint32_t i = 0; i < n; ++i) {
    size_t slots = g.type[i] == t.node ? 3 : g.type[i] == t.finalizable ? 1 : 0;
    if (g.type[i] == t.node_array) slots = i + 1;  // the length encodes the id
    if (g.type[i] == t.node_array) {
      // Arrays are long (their length is the id) but only a few elements are set.
      g.edges[i].assign(slots, -1);
      for (int k = 0; k < 3; ++k)
        g.edges[i][rng.Below(static_cast<uint32_t>(slots))] = random_ref();
    } else {
      for (size_t k = 0; k < slots; ++k) g.edges[i].push_back(random_ref());
    }
  }
  const RootSpec::Kind kinds[] = {RootSpec::kStatic,       RootSpec::kLocal,
                                  RootSpec::kPinnedLocal,  RootSpec::kInteriorLocal,
                                  RootSpec::kNormalHandle, RootSpec::kPinnedHandle,
                                  RootSpec::kWeakHandle,   RootSpec::kLongWeakHandle};
  uint32_t statics = 0;
  for (int k = 0; k < 16; ++k) {
    RootSpec::Kind kind = kinds[rng.Below(8)];
    if (kind == RootSpec::kStatic && statics == 4) kind = RootSpec::kLocal;
    if (kind == RootSpec::kStatic) ++statics;
    g.roots.push_back(RootSpec{kind, rng.Below(n)});
  }
  return g;
}

Built Build(Runtime& rt, const TestTypes& t, const GraphSpec& g) {
  const size_t n = g.type.size();
  std::vector<Addr> addr(n);
  Built b;
  {
    NoGcScope no_gc(rt);
    for (size_t i = 0; i < n; ++i) {
      TypeIndex ty = g.type[i];
      if (ty == t.node_array) {
        addr[i] = rt.NewArray(ty, static_cast<uint32_t>(g.edges[i].size()));
      } else {
        addr[i] = rt.New(ty);
        uint16_t id_off = ty == t.node ? t.node_id : ty == t.leaf ? t.leaf_id : t.fin_id;
        rt.SetI32(addr[i], id_off, static_cast<int32_t>(i));
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& e = g.edges[i];
    for (size_t k = 0; k < e.size(); ++k) {
      Addr v = e[k] < 0 ? kNull : addr[e[k]];
      if (g.type[i] == t.node)
        rt.SetRef(addr[i], t.node_refs[k], v);
      else if (g.type[i] == t.finalizable)
        rt.SetRef(addr[i], t.fin_ref, v);
      else
        rt.SetElem(addr[i], static_cast<uint32_t>(k), v);
    }
  }
  size_t depth = rt.PushFrame(rt.main_thread(), rt.methods().Intern("Test.Graph.Hold"), 0);
  uint32_t next_static = 0;
  for (const RootSpec& r : g.roots) {
    Addr a = addr[r.target];
    switch (r.kind) {
      case RootSpec::kStatic:
        rt.statics().Set(t.statics[next_static++], a);
        break;
      case RootSpec::kLocal:
      case RootSpec::kPinnedLocal:
      case RootSpec::kInteriorLocal: {
        uint8_t flags = r.kind == RootSpec::kPinnedLocal     ? kRootFlagPinned
                        : r.kind == RootSpec::kInteriorLocal ? kRootFlagInterior
                                                             : 0;
        rt.main_thread().frames[depth].locals.push_back(Local{a, flags});
        break;
      }
      case RootSpec::kNormalHandle:
      case RootSpec::kPinnedHandle:
      case RootSpec::kWeakHandle:
      case RootSpec::kLongWeakHandle: {
        HandleType ht = r.kind == RootSpec::kNormalHandle   ? HandleType::kNormal
                        : r.kind == RootSpec::kPinnedHandle ? HandleType::kPinned
                        : r.kind == RootSpec::kWeakHandle   ? HandleType::kWeak
                                                            : HandleType::kWeakTrackResurrection;
        b.handles.push_back(rt.handles().Alloc(a, ht));
        b.handle_specs.push_back(r);
        break;
      }
    }
  }
  return b;
}

std::set<int64_t> ReachFrom(const GraphSpec& g, std::vector<int64_t> from, std::set<int64_t> seen) {
  std::deque<int64_t> q;
  for (int64_t v : from)
    if (seen.insert(v).second) q.push_back(v);
  while (!q.empty()) {
    int64_t v = q.front();
    q.pop_front();
    for (int64_t w : g.edges[v])
      if (w >= 0 && seen.insert(w).second) q.push_back(w);
  }
  return seen;
}

std::set<int64_t> StrongReach(const GraphSpec& g, const TestTypes&) {
  std::vector<int64_t> from;
  for (const RootSpec& r : g.roots)
    if (r.kind != RootSpec::kWeakHandle && r.kind != RootSpec::kLongWeakHandle)
      from.push_back(r.target);
  return ReachFrom(g, from, {});
}

std::map<int64_t, std::pair<Addr, std::vector<int64_t>>> HeapContents(Runtime& rt,
                                                                      const TestTypes& t) {
  std::map<int64_t, std::pair<Addr, std::vector<int64_t>>> out;
  rt.heap().ForEachObject(rt.types(), [&](Addr a, uint32_t* h, uint32_t) {
    int64_t id = IdOf(rt, t, a);
    if (id < 0) return;
    std::vector<int64_t> refs;
    ForEachRefSlot(rt.types(), h, [&](uint32_t* slot) {
      refs.push_back(*slot == kNull ? -1 : IdOf(rt, t, *slot));
    });
    out[id] = {a, refs};
  });
  return out;
}

}  // namespace xrpm::emulator::test
