// Paths to roots: why is this object still alive?
//
//  - PathFinder::ShortestPathToRoot: breadth-first search over reverse references from one
//    object until the first level that holds a strong root (weak roots are not roots here),
//    taking that level's best root by RootRank (graph_index.h: a static field before a handle,
//    a precise stack slot, ..., a conservatively found stack slot last). O(N + E) worst case,
//    usually a tiny part of the heap; the visited marks are reset per query in time
//    proportional to what was visited. On an index without referrer lists (GraphIndex::
//    has_reverse false) it searches forward from the roots instead, as RootPathForest does,
//    until it meets the object: O(N + E) per query.
//  - RootPathForest: one multi-source BFS forward from every strong root, seeded best rank
//    first (GraphIndex::StrongRoots), gives every reachable object a shortest path from a root
//    at once, through the best-ranked root among those at the same distance (FIFO order keeps
//    the seeds' order level by level). O(N + E), 4 bytes/object (the parent; the holding field
//    is found again per step, only for paths that are shown).
//  - MergeShortestPaths: for all instances of a type, the few root paths that hold most of them
//    (MAT's "merge shortest paths"). Paths are aggregated by their root (descriptor and static
//    container) and the sequence of types along them, with runs of one type collapsed into one
//    step ("Node+"), so the thousand nodes of one linked list share one path. Memoised per
//    object in a trie of path prefixes: O(N + E) for any number of instances.
//    With object contents a step is keyed by its type *and* the field that holds it
//    (all elements of an array count as one field, "[]"), and a root by its label (the static
//    field), so paths through different fields stay apart and read
//    "static Bubbles.GameEvents.Popped -> System.EventHandler._target -> Bubbles.Bubble".
//  - PathMerger: the same for any sets of instances (the leak filter's (type, site) groups),
//    keeping the memo between sets, so any number of sets cost O(N + E) in all plus their sizes.
//    MergeEach merges several sets on several threads: once their paths are memoised, a merge
//    only reads the memo and the trie, and marks and counts in its own scratch.
//
// Thread-safety: PathFinder and PathMerger keep scratch state (one per thread; MergeEach
// runs its own threads inside); RootPathForest is immutable after Build; the free functions
// are reentrant.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

// A root record, described for display.
struct RootDescription {
  uint32_t record = kNoIndex;  // index into the snapshot's root columns
  RootKind kind = RootKind::kInternal;
  uint8_t flags = 0;
  std::string container;  // the static's containing class (kind 4): its name, or "type 0x13c"
  std::string origin;     // where the capture saw it ("thread 3 / Game1.Update"), or ""
  std::string label;      // the static field or the frame's method, or ""
};
RootDescription DescribeRoot(const GraphIndex& g, uint32_t record);
// "static Game1 (pinned)", "local", "handle (weak) [GCHandle table]"; with a label
// "static Bubbles.GameEvents.Popped", "local in Bubbles.Game1.Update, thread 1".
std::string RootLabel(const RootDescription& r);

struct RootPath {
  std::vector<uint32_t> nodes;      // nodes[0] is the object, nodes.back() is held by the root
  uint32_t root_record = kNoIndex;  // kNoIndex: no strong root reaches the object
  bool found() const { return root_record != kNoIndex; }
};

// The field of `holder` that references `target` (nodes): "_items", "[12]" for an array element,
// "" when unknown (no object contents). O(references of the holder).
std::string HoldingField(const GraphIndex& g, uint32_t holder, uint32_t target);
// A path from its root down to the object, with the field of every step:
// "static Bubbles.GameEvents.Popped -> System.EventHandler._target -> Bubbles.Bubble"; an
// array step reads "Bubbles.Bubble[] [12]". Without object contents just the types.
std::string RootPathText(const GraphIndex& g, const RootPath& p, std::string_view arrow);

class PathFinder {
 public:
  explicit PathFinder(const GraphIndex& g);
  // Shortest path from v to a strong root. Throws Cancelled on cancel.
  RootPath ShortestPathToRoot(uint32_t v, const Progress& progress = {});

 private:
  const GraphIndex* g_;
  PodVector<uint32_t> next_;  // next hop towards the object, kNoIndex when unvisited
  std::vector<uint32_t> queue_;
};

class RootPathForest {
 public:
  RootPathForest() = default;
  static RootPathForest Build(const GraphIndex& g, const Progress& progress = {});
  // As Build, but the edges v -> deferred(v) (kNoIndex: none; a delegate's target, say) are
  // followed only after everything reachable without them has been visited, in a second BFS
  // from those edges' targets in the order met. `first` gets 1 bit per node: reachable
  // without deferred edges. Paths avoid deferred edges wherever possible (then shortest among
  // such paths, not overall). Still one pass, O(N + E) plus a call of deferred per node.
  static RootPathForest BuildDeferring(const GraphIndex& g,
                                       const std::function<uint32_t(uint32_t)>& deferred,
                                       std::vector<bool>& first, const Progress& progress = {});
  // The BFS parent of v (a node), kSource for a root, kNoIndex when unreachable.
  static constexpr uint32_t kSource = kNoIndex - 1;
  uint32_t parent(uint32_t v) const { return parent_[v]; }
  bool reachable(uint32_t v) const { return parent_[v] != kNoIndex; }
  void PrefetchParent(uint32_t v) const { __builtin_prefetch(&parent_[v]); }
  // The slot (heap_fields.h) through which v's BFS parent holds it, kNoSlot when unknown (a
  // root, or a snapshot without object contents). Found again on each call (no column: the
  // first of the parent's references naming v, the edge the BFS took), O(references of the
  // parent): cheap for class instances, linear in the length for an array parent.
  uint32_t parent_slot(uint32_t v) const;
  RootPath PathTo(uint32_t v) const;  // same shape as PathFinder's result

 private:
  const GraphIndex* g_ = nullptr;
  PodVector<uint32_t> parent_;
};

struct MergedStep {
  uint32_t group = kNoIndex;  // type group
  bool repeated = false;      // a run of several objects of this type (e.g. list nodes)
  // The field of the previous step's type (or "[]": an element of the previous step's array)
  // holding this step; for the first step the root's label is in MergedPath::root_label.
  // "" when unknown.
  std::string field;
};

struct MergedPath {
  RootKind root_kind = RootKind::kInternal;
  uint32_t root_container = kNoIndex;  // type index of the static's class, or kNoIndex
  std::string root_label;              // the static field or method, or ""
  bool root_conservative = false;      // a stack slot a conservative scan found
  std::vector<MergedStep> steps;       // from the root-held object down to the instances
  uint64_t count = 0;                  // instances held along this path
  uint64_t shallow_bytes = 0;
  uint64_t retained_bytes = 0;  // sum of the instances' own retained sizes (0 without dom)
  uint32_t example = kNoIndex;  // one instance on this path (the first by index)
};

struct MergedPaths {
  std::vector<MergedPath> paths;  // most instances first (then retained bytes)
  uint64_t instances = 0;         // all instances of the type
  uint64_t unreachable = 0;       // instances no strong root reaches
  uint64_t other_paths = 0;       // distinct paths beyond `paths`
  uint64_t other_instances = 0;   // instances on those
};

// "static Game.Events -> EventHandler -> Object[] -> Bubble+": the root (descriptor and static
// container, "local (conservative)" for a conservatively found slot), then the types along the
// path; "+" marks a run of one type. `arrow` separates.
// With fields: "static Bubbles.GameEvents.Popped -> System.EventHandler._invocationList ->
// System.Delegate[] [] -> System.EventHandler._target -> Bubbles.Bubble".
std::string MergedPathLabel(const GraphIndex& g, const MergedPath& p, std::string_view arrow);

// Merges the root paths of sets of instances against one forest (which, like g, must outlive
// the merger). Each Merge gives what MergeShortestPaths (a fresh merger) gives for its set: the
// trie and its memo are shared, but a step reads "Type+" only where one of this set's own paths
// has a run (each Merge climbs its paths up to where it met them already, O(their union),
// without a trie lookup). Memory: 5 bytes per node (the memo with its run bit, the walk's marks)
// plus the trie of path prefixes seen so far.
class PathMerger {
 public:
  PathMerger(const GraphIndex& g, const RootPathForest& forest);
  ~PathMerger();
  PathMerger(PathMerger&&) noexcept;
  PathMerger& operator=(PathMerger&&) noexcept;
  // As MergeShortestPaths, for the nodes in `instances` (listed once each). Once their paths
  // are memoised, a large set is tallied on up to 2 `threads` (0: as many as the cores),
  // sharing the walk's marks; the same result on any number.
  MergedPaths Merge(std::span<const uint32_t> instances, const DominatorTree* dom,
                    size_t max_paths = 10, unsigned threads = 1);
  // Merge of each set, the same results as one Merge after another: their missing paths are
  // memoised first on the calling thread, then the sets are merged up to `threads` at once
  // (0: one per core), largest first, each thread with its own scratch (a byte per node for
  // each thread beyond the first, while they run).
  std::vector<MergedPaths> MergeEach(std::span<const std::span<const uint32_t>> sets,
                                     const DominatorTree* dom, size_t max_paths = 10,
                                     unsigned threads = 0);
  // Finds and memoises the paths of these nodes (unreachable ones skipped) ahead of the Merges
  // that will ask for them, checking `stop` every few thousand nodes and returning once it is
  // set. Merge gives the same result whether or not a node's path was memoised ahead (only the
  // trie's numbering differs). Returns the nodes done.
  size_t Memoise(std::span<const uint32_t> nodes, const std::atomic<bool>& stop);
  size_t MemoryBytes() const;  // the memo, the marks and the trie

 private:
  struct State;
  std::unique_ptr<State> st_;
};

// `dom` may be null (retained bytes then stay 0). Keeps the `max_paths` largest groups.
MergedPaths MergeShortestPaths(const GraphIndex& g, const RootPathForest& forest,
                               const DominatorTree* dom, uint32_t group, size_t max_paths = 10);

}  // namespace xrpm::analysis
