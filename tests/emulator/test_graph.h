// Test helpers: a small "Test.*" type system with logical ids that survive moves, random object
// graphs built in a Runtime, and a reference reachability model to check the collector against.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "xrpm/emulator/deterministic_random.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator::test {

// Test.Node (3 refs + id), Test.Leaf (id + payload), Test.Finalizable (finalizer, 1 ref + id)
// and Test.Node[] whose id is its length - 1.
struct TestTypes {
  TypeIndex node, leaf, finalizable, node_array;
  uint16_t node_id, leaf_id, fin_id, fin_ref;
  std::vector<uint16_t> node_refs;
  StaticId statics[4];
  explicit TestTypes(Runtime& rt);
};

// Logical id of a test object, or -1 for runtime objects.
int64_t IdOf(Runtime& rt, const TestTypes& t, Addr a);

struct RootSpec {
  enum Kind {
    kStatic,
    kLocal,
    kPinnedLocal,
    kInteriorLocal,
    kNormalHandle,
    kPinnedHandle,
    kWeakHandle,
    kLongWeakHandle
  } kind;
  uint32_t target;  // logical id
};

// A random graph: objects[i] has logical id i; edges[i] its referenced ids (-1 = null).
struct GraphSpec {
  std::vector<TypeIndex> type;  // per id
  std::vector<std::vector<int64_t>> edges;
  std::vector<RootSpec> roots;
};

GraphSpec RandomGraph(const TestTypes& t, uint64_t seed, uint32_t objects);

// Materialises `g` in `rt` (collections suppressed while building). Locals go into one frame
// pushed on the main thread; handle values are returned in `handles` (same order as the
// handle roots of g.roots).
struct Built {
  std::vector<uint32_t> handles;
  std::vector<RootSpec> handle_specs;
};
Built Build(Runtime& rt, const TestTypes& t, const GraphSpec& g);

// Reference model: ids reachable from the strong roots of g.
std::set<int64_t> StrongReach(const GraphSpec& g, const TestTypes& t);
std::set<int64_t> ReachFrom(const GraphSpec& g, std::vector<int64_t> from, std::set<int64_t> seen);

// id -> (address, referenced ids) of every test object in the heap now.
std::map<int64_t, std::pair<Addr, std::vector<int64_t>>> HeapContents(Runtime& rt,
                                                                      const TestTypes& t);

}  // namespace xrpm::emulator::test
