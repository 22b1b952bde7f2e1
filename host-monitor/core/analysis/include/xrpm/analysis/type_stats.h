// TypeStats: per type (a GraphIndex type group: all types of one name) the instance count,
// shallow bytes and retained bytes.
//
// The retained size of a type is the sum of the retained sizes of its instances that no other
// instance of the same type dominates (so nested instances, e.g. the nodes of one linked list,
// are not counted twice): what the GC would free if every instance of the type went away.
// Computed by one iterative walk of the dominator tree (first-child / next-sibling links, the
// idom array to climb back; no recursion, no stack) keeping a per-type count of instances on
// the current tree path. O(N) time, 8 bytes per object of transient memory.
//
// Thread-safety: immutable after Compute.
#pragma once

#include <cstdint>
#include <vector>

#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

struct TypeStat {
  uint64_t count = 0;            // instances
  uint64_t shallow_bytes = 0;    // sum of instance sizes
  uint64_t reachable_count = 0;  // instances reachable from a strong root
  uint64_t retained_bytes = 0;   // see above; 0 when no instance is reachable
};

class TypeStats {
 public:
  TypeStats() = default;
  static TypeStats Compute(const GraphIndex& g, const DominatorTree& dom,
                           const Progress& progress = {});

  size_t size() const { return stats_.size(); }  // == group_count()
  const TypeStat& operator[](uint32_t group) const { return stats_[group]; }
  // Group ids ordered by retained bytes, then shallow bytes, largest first (ties: by id).
  std::vector<uint32_t> ByRetained() const;

 private:
  std::vector<TypeStat> stats_;
};

}  // namespace xrpm::analysis
