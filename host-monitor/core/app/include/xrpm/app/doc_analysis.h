// DocAnalysis: everything the monitor's views need from the analysis engine for one snapshot,
// computed once on the worker thread (with a second thread beside the dominator tree for the
// inspections, the root-path forest, the suspects' path memo and the sorted child lists: one
// forest serves the inspections, the suspects and the views when it is the plain one) and
// immutable afterwards: the graph index, dominator tree and retained sizes
// (analysis::HeapAnalysis), the dominator tree's sorted child lists, a shortest-path-to-root
// forest (any object's path in O(path length)), the leak suspects, the
// per-type summary Compare diffs, the Roots view's groupings, and the allocation-origin rows
// and age histogram (DocOrigins; empty when the snapshot has no origins), and the automatic
// inspections (analysis/inspections.h) the Inspections view lists, and the characters its text
// needs from the monitor's fonts (glyph_set.h).
//
// It owns a reference to its snapshot, so the snapshot lives as long as the analysis does.
// Memory: the engine's (≈ 8 B/reference + 12 B/object index, 12 B/object dominators) plus
// 8 B/object child lists, 4 B/object path forest, 5 B/object path memo and 4 B/object instances by
// retained size. A heap whose index copies would not fit in the memory available (index_budget.h)
// gets the lean index instead (≈ 6 B/object: the id resolver and the instance lists): every view
// works the same, the dominators take about twice as long, an object's referrers are found by a
// scan of every reference (GraphIndex:: Referrers) instead of read from the reverse CSR, and the
// child lists keep 4 B/object (a list found by binary search, DominatorChildren::DropOffsets).
//
// Thread-safety: immutable after AnalyseDoc returns, but for the path memo that MergeHolders
// extends under its own mutex; share it freely between threads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/inspections.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/analysis/retained_order.h"
#include "xrpm/analysis/suspects.h"
#include "xrpm/app/doc_origins.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {

// Roots grouped for the Roots view: by descriptor and flags, and statics by container class.
struct RootGroup {
  RootKind kind = RootKind::kInternal;
  uint8_t flags = 0;
  uint32_t container = kNoIndex;  // statics by container: the class's type index
  std::vector<uint32_t> records;  // root records, largest retained first
  uint64_t objects = 0;           // distinct objects
  uint64_t retained = 0;          // sum of the objects' retained sizes (may overlap)
};

struct RootsOverview {
  std::vector<RootGroup> by_kind;  // (descriptor, flags) groups, largest retained first
  std::vector<RootGroup> statics;  // kind 4 by container class, largest retained first
  uint64_t dangling = 0;           // records naming no object of the snapshot
};

// Which graph index AnalyseDoc builds.
enum class DocIndex : uint8_t {
  kAuto,  // the full one when it fits in the memory available (index_budget.h), else the lean
  kFull,  // forward and reverse CSR: referrers at once
  kLean,  // the id resolver and the instance lists only
};

struct DocAnalysis {
  std::shared_ptr<const Snapshot> snapshot;
  bool lean_index = false;  // no CSRs: referrers are found by a scan (GraphIndex::Referrers)
  analysis::HeapAnalysis heap;
  analysis::HeapTotals totals;
  analysis::DominatorChildren children;
  analysis::RetainedOrder by_retained;  // each type's instances, largest retained first
  std::unique_ptr<analysis::RootPathForest> path_forest;  // never null once analysed
  std::vector<analysis::Suspect> suspects;
  analysis::HeapSummary summary;           // what Compare needs
  std::vector<uint64_t> retained_by_type;  // per type index: its name group's retained bytes
  RootsOverview roots;
  DocOrigins origins;  // sites and ages (present == false when the snapshot has none)
  std::vector<analysis::Inspection> inspections;  // all six, default thresholds
  std::vector<char32_t> glyphs;  // the text's characters beyond ASCII (glyph_set.h), for fonts
  double seconds = 0;

  const analysis::GraphIndex& index() const { return heap.index; }
  const analysis::DominatorTree& dom() const { return heap.dom; }
  const analysis::RootPathForest& forest() const { return *path_forest; }
  // The paths holding a type's instances (MergeShortestPaths), merged with the analysis's own
  // path memo: the inspections and the leak suspects memoised the largest types' paths already,
  // so a click on one of those only tallies them. Serialised by a mutex (the memo grows).
  analysis::MergedPaths MergeHolders(uint32_t group, size_t max_paths) const;
  size_t MemoryBytes() const;  // beyond the snapshot

  // Memoises the paths of the types with the most instances (those a merge would otherwise
  // take long to find) on a thread of its own, largest type first, a chunk at a time under
  // merger_mutex, so that a click on one of them merges memoised paths only. AnalyseDoc starts
  // it; the destructor stops it. The trie it grows is held to 2 bytes per object.
  void StartMemoisingAhead();
  // Returns once that thread has finished (all memoised, stopped, or the trie's budget spent).
  void WaitMemoisedAhead() const { memoised_ahead.wait(false, std::memory_order_acquire); }
  ~DocAnalysis();

  // The merger over *path_forest whose memo MergeHolders keeps (5 bytes per object).
  mutable std::mutex merger_mutex;
  std::unique_ptr<analysis::PathMerger> merger;  // guarded by merger_mutex
  // Its MemoryBytes as of its last use: MemoryBytes (the Summary view, every frame) reads it
  // without waiting for a merge that holds the mutex.
  mutable std::atomic<size_t> merger_bytes{0};
  std::atomic<bool> stop_ahead{false}, memoised_ahead{false};
  std::thread ahead;
};

// Runs the whole analysis with progress and cancel through `ctx` (throws Cancelled).
std::shared_ptr<const DocAnalysis> AnalyseDoc(std::shared_ptr<const Snapshot> snap,
                                              TaskContext& ctx, DocIndex index = DocIndex::kAuto);
// The bytes per object beyond the index copies that AnalyseDoc needs at its peak: the dominator
// tree's working arrays, and the root-path forest, the inspections' and the suspects' scratch
// beside them (measured: 86 bytes per object beyond the snapshot with the copies' 32 on a heap
// of 3 references per object, xrpm_gui_frame_bench at 100 M objects). What kAuto weighs the
// full index against.
inline constexpr uint64_t kDocWorkBytesPerObject = 56;

// Root records naming object v (all descriptors, weak ones too), in record order. O(roots).
std::vector<uint32_t> RootRecordsOf(const DocAnalysis& a, uint32_t v);

}  // namespace xrpm::app
