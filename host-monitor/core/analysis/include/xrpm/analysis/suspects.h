// Leak suspects: short, ranked answers to "what is wrong with this heap", each with the path
// that holds it.
//
//  - Big objects: every dominator-tree branch retaining at least `min_share` of the reachable
//    heap is followed down while one child keeps at least `accumulation_share` of its parent's
//    retained size (and is itself big), stopping where the memory spreads out (the
//    accumulation point, e.g. the array of a List<T>) or where a run of one type starts (the
//    head of a linked list). That object is the suspect; its big children start new branches.
//  - Big types: types whose retained size (instances not nested in each other) is at least
//    `min_share` of the reachable heap while none of their instances is that big on its own
//    (many small objects: "5,000 Bullet retain 30%") and most of them are not inside an object
//    suspect already (the elements of a big array), with the merged paths that hold them.
//  - Growing types (series of snapshots): types whose instance count never drops and ends
//    higher than it began, ranked by retained growth, with the paths that hold them in the
//    last snapshot.
// Cost: one pass over the retained sizes for the nodes big enough to descend to; the dominator
// children (O(N), unsorted) once there is an object suspect, and one root-path forest
// (O(N + E)) once there is a type suspect, unless the caller hands them in (SuspectInputs);
// the type suspects' paths share one path merger (O(N + E) for all of them), which merges them
// on `threads` threads once the types are chosen.
//
// Thread-safety: reentrant.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/analysis/diff.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

struct SuspectOptions {
  double min_share = 0.10;           // of the reachable bytes
  double accumulation_share = 0.80;  // of the parent's retained bytes
  size_t max_suspects = 10;          // per kind
  size_t max_paths = 3;              // merged paths per type suspect
  unsigned threads = 0;              // that merge the type suspects' paths; 0: one per core
};

struct Suspect {
  enum class Kind { kObject, kType, kGrowingType };
  Kind kind = Kind::kObject;
  uint32_t group = kNoIndex;  // the type group (in the analysis the suspect was found in)
  uint32_t node = kNoIndex;   // kObject: the accumulation point
  uint64_t count = 0;         // kObject: objects it retains; types: instances
  uint64_t retained_bytes = 0;
  double share = 0;  // retained_bytes / reachable bytes
  // kObject: the type holding most of the accumulation point's retained memory among its
  // dominator-tree children, and how many such children there are.
  uint32_t top_child_group = kNoIndex;
  uint64_t top_child_count = 0, top_child_bytes = 0;
  // kGrowingType: the change from the first to the last snapshot.
  int64_t count_growth = 0, retained_growth = 0, shallow_growth = 0;
  std::string reason;   // one human sentence
  RootPath path;        // kObject: from the suspect to its root
  MergedPaths holders;  // types: the paths that hold the instances
};

// Passes over the same analysis the caller has already made, so FindSuspects does not make
// them again; null: FindSuspects builds its own.
struct SuspectInputs {
  // The dominator tree's children, sorted or not.
  const DominatorChildren* children = nullptr;
  // A path merger over RootPathForest::Build's forest of a.index (its memo grows: the type
  // suspects' paths then cost only what other callers have not walked yet).
  PathMerger* merger = nullptr;
  // RootPathForest::Build's forest of a.index. Without the reverse CSR (a lean index) an object
  // suspect's path is its path in this forest (built once when null), not a search from it.
  const RootPathForest* forest = nullptr;
};

std::vector<Suspect> FindSuspects(const HeapAnalysis& a, const SuspectOptions& opts = {},
                                  const Progress& progress = {}, const SuspectInputs& in = {});
// Work FindSuspects can have done ahead, on another thread while the dominator tree is being
// computed: memoises in `merger` (over `forest`, RootPathForest::Build's forest of g) the paths
// of the reachable instances of each type whose reachable shallow bytes alone reach the
// suspects' threshold (so it retains at least that: most likely a type suspect), largest
// first, at most opts.max_suspects types. Returns as soon as `stop` is set; FindSuspects with
// this merger gives the same result either way. O(N) for the per-type sums, then what the
// type suspects' merges would spend on these paths. Returns the instances it went through.
size_t PrepareTypeSuspectPaths(const GraphIndex& g, const RootPathForest& forest,
                               PathMerger& merger, const SuspectOptions& opts,
                               const std::atomic<bool>& stop);
// Growing types from a diff whose last snapshot is `last`.
std::vector<Suspect> FindGrowthSuspects(const HeapDiff& diff, const HeapAnalysis& last,
                                        const SuspectOptions& opts = {},
                                        const Progress& progress = {});

}  // namespace xrpm::analysis
