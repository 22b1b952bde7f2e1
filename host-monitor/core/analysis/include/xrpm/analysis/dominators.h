// DominatorTree: who keeps whom alive. Object d dominates object v when every path from a GC
// root to v passes through d; the retained size of d is the total size of the objects it
// dominates (itself included): what the GC would free if d became unreachable.
//
// The flow graph is the GraphIndex plus a virtual root (node id == node_count()) with an edge to
// every strong root; weak-only roots (kRootWeak) do not retain, so objects reachable only
// through them are unreachable here (idom kNoIndex, retained 0), like all garbage in the dump.
//
// Algorithm: Semi-NCA (Georgiadis' semidominators-then-nearest-common-ancestor variant of
// Lengauer–Tarjan, as LLVM's dominator tree uses), over the DFS preorder numbering:
//   1. iterative DFS from the virtual root (an edge cursor per vertex, the way back up through
//      the parents, so chains millions deep are fine) numbering vertices in preorder. It sorts
//      each reference as it reads it: an edge to a vertex numbered later offers its source's
//      number as a semidominator candidate at once; edges to a vertex numbered earlier (back
//      and cross edges, about one per object on heap-like graphs) are counted per target;
//   2. a second pass over the references (on `threads` threads) lists those back edges, in
//      preorder numbers, grouped by target: the only predecessors step 3 evaluates, so no
//      reverse CSR is needed;
//   3. reverse preorder: semidominators via eval() with iterative path compression ("simple"
//      linking); the forest keeps each path's minimal semidominator value, and no buckets;
//   4. preorder: idom(w) = the nearest common ancestor of parent(w) and semi(w) in the
//      dominator tree built so far, i.e. the parent's nearest dominator-tree ancestor numbered
//      at or above semi(w). The climb uses skew-binary jump pointers (Myers), O(log N) steps:
//      a plain climb is quadratic on a long list whose nodes an array also holds.
// Time O(E log N) worst case (O(E α) in practice for step 3); no recursion anywhere. Retained
// sizes are then summed in reverse preorder (children before their dominator), O(N).
// The references come from the index's forward CSR, or without one (GraphIndexOptions::forward
// false) from the snapshot, resolved through the index's IdResolver on each of the two passes:
// about twice the time, and the index holds only its resolver.
// Working memory: three 32-bit arrays (node -> preorder, preorder -> node, the back edges'
// offsets that become the DFS parents and then the immediate dominators), the forest (ancestor
// and minimal semidominator, 8 bytes, which step 4 reuses for the jump pointers and depths), the
// semidominators in place of node -> preorder, and 4 bytes per back edge: 20 bytes per object +
// 4 per back edge, 24 per object during the DFS (its cursor). The result keeps 12 bytes per
// object (idom 4 + retained 8). The arrays the DFS fills a vertex at a time (all but node ->
// preorder, which it reads at random and is written first) are faulted in on another thread
// while it runs (`threads` > 1, from 256 K objects), and the back edges and the semidominators
// take the memory of arrays done with (the cursors, node -> preorder): fresh memory's first
// touch is a fault, and on paravirtualised machines the host's backing of it.
//
// Thread-safety: immutable after Compute; any number of threads may read it.
#pragma once

#include <cstdint>
#include <span>

#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

class DominatorTree {
 public:
  DominatorTree() = default;
  // Throws Cancelled on cancel, std::length_error beyond 2^32 - 1 back edges. `threads` (0: as
  // many as the machine has) run the pass that lists the back edges; with more than one, a
  // thread faults the DFS's arrays in beside it (on a heap of 256 K objects or more).
  static DominatorTree Compute(const GraphIndex& g, const Progress& progress = {},
                               unsigned threads = 1);

  uint32_t node_count() const { return n_; }
  uint32_t virtual_root() const { return n_; }
  // The immediate dominator of v: a node, virtual_root() for objects held by more than one root
  // path (or roots themselves), kNoIndex for unreachable objects.
  uint32_t idom(uint32_t v) const { return idom_[v]; }
  bool reachable(uint32_t v) const { return idom_[v] != kNoIndex; }
  uint64_t retained(uint32_t v) const { return retained_[v]; }  // 0 when unreachable
  void PrefetchRetained(uint32_t v) const { __builtin_prefetch(&retained_[v]); }
  std::span<const uint32_t> idoms() const { return idom_.span(); }
  std::span<const uint64_t> retained_sizes() const { return retained_.span(); }

  uint64_t reachable_count() const { return reachable_count_; }
  uint64_t reachable_bytes() const { return reachable_bytes_; }  // retained by the virtual root

  size_t MemoryBytes() const { return idom_.bytes_reserved() + retained_.bytes_reserved(); }
  // Peak bytes of the working arrays of Compute (beyond the index), for benchmarks.
  size_t work_peak_bytes() const { return work_peak_bytes_; }
  // About the most Compute's working arrays hold per object (20 bytes + 4 per back edge, of
  // which heaps have one or two per object), for a caller that checks memory before it starts.
  static constexpr size_t kWorkBytesPerObject = 28;

 private:
  uint32_t n_ = 0;
  PodVector<uint32_t> idom_;
  PodVector<uint64_t> retained_;
  uint64_t reachable_count_ = 0, reachable_bytes_ = 0;
  size_t work_peak_bytes_ = 0;
};

// The dominator tree's child lists (CSR), each sorted by retained size, largest first
// (LargerFirst): for browsing the tree top-down. O(N log N) to build, 8 bytes per object.
// BuildUnsorted leaves each list in node order, O(N): for a reader that walks whole subtrees
// and sorts only the few children it descends to, as the leak suspects do.
// DropOffsets keeps only the lists (4 bytes per object): every list lies in order of its
// parent, so Children then finds one by binary search over the children's dominators,
// O(log N) per call. For a holder that reads a few lists at a time (a view), not whole
// subtrees.
// Thread-safety: immutable after Build (and DropOffsets).
class DominatorChildren {
 public:
  DominatorChildren() = default;
  static DominatorChildren Build(const DominatorTree& dom);
  static DominatorChildren BuildUnsorted(const DominatorTree& dom);
  // Children of v, where v is a node or the virtual root: largest first when sorted().
  std::span<const uint32_t> Children(uint32_t v) const {
    if (dom_) return Search(v);
    return {child_.data() + off_[v], child_.data() + off_[v + 1]};
  }
  bool sorted() const { return sorted_; }
  // Frees the offsets; `dom` is the tree these lists were built from and must outlive them.
  void DropOffsets(const DominatorTree& dom);
  size_t MemoryBytes() const { return off_.bytes_reserved() + child_.bytes_reserved(); }
  // The order of every sorted list: larger retained size first, then lower node index.
  static bool LargerFirst(const DominatorTree& dom, uint32_t a, uint32_t b) {
    return dom.retained(a) != dom.retained(b) ? dom.retained(a) > dom.retained(b) : a < b;
  }

 private:
  std::span<const uint32_t> Search(uint32_t v) const;

  PodVector<uint32_t> off_, child_;
  const DominatorTree* dom_ = nullptr;  // set by DropOffsets
  bool sorted_ = false;
};

}  // namespace xrpm::analysis
