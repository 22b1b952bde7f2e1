// RetainedByKey: the retained size of groups of objects (all objects of one type, of one
// allocation site, ...) given a key per object: the sum of the retained sizes of the group's
// objects that no other object of the same group dominates, so nested members (the nodes of one
// linked list) are not counted twice — what the GC would free if every member went away.
//
// Algorithm: one iterative walk of the dominator tree (first-child / next-sibling links, the
// idom array to climb back; no recursion, no stack) keeping per key the number of members on
// the current tree path. O(N) time, 8 bytes per object + 4 per key of transient memory.
//
// Thread-safety: a pure function of its inputs (private to the analysis library).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "xrpm/analysis/dominators.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

// key_of(v) < key_count for every reachable node v of the n nodes; adds into retained[key].
template <class KeyOf>
void AddRetainedByKey(const DominatorTree& dom, uint32_t n, uint32_t key_count, KeyOf key_of,
                      std::vector<uint64_t>& retained, const Progress& progress,
                      std::string_view phase) {
  retained.resize(key_count, 0);
  // Dominator tree as first-child / next-sibling lists; the virtual root is n.
  const uint32_t root = dom.virtual_root();
  PodVector<uint32_t> first, next;
  first.resize(size_t{n} + 1, kNoIndex);
  next.resize(n, kNoIndex);
  for (uint32_t v = n; v-- > 0;) {
    if (!dom.reachable(v)) continue;
    const uint32_t p = dom.idom(v);
    next[v] = first[p];
    first[p] = v;
  }
  // Depth-first over the tree; on_path[k] = members of k on the path from the root to here.
  std::vector<uint32_t> on_path(key_count, 0);
  uint64_t visited = 0;
  uint32_t v = first[root];
  while (v != kNoIndex) {
    if ((++visited & 0xFFFFF) == 0) progress.Report(phase, double(visited) / dom.reachable_count());
    const uint32_t k = key_of(v);
    if (on_path[k]++ == 0) retained[k] += dom.retained(v);
    if (first[v] != kNoIndex) {
      v = first[v];
      continue;
    }
    while (true) {  // leave v and every ancestor whose children are all done
      --on_path[key_of(v)];
      if (next[v] != kNoIndex) {
        v = next[v];
        break;
      }
      v = dom.idom(v);
      if (v == root) {
        v = kNoIndex;
        break;
      }
    }
  }
}

}  // namespace xrpm::analysis
