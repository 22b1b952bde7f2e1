// HeapAnalysis: the whole per-snapshot analysis in one call (graph index, dominator tree,
// per-type statistics), plus the totals and per-type summary the reports and the diff use.
//
//   Snapshot snap = formats::LoadSnapshot(path, diags);
//   HeapAnalysis a = HeapAnalysis::Run(snap, {}, progress);   // GUI: on a worker thread
//   HeapSummary sum = Summarize(a);                            // small; outlives the snapshot
//
// Thread-safety: immutable after Run; the snapshot must outlive the analysis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/type_stats.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

struct HeapAnalysisOptions {
  unsigned threads = 0;  // 0: as many as the machine has
  // What the index keeps (its own `threads` are ignored: the above serve), everything by
  // default. The dominator tree and the type statistics read none of the reverse CSR and the
  // instance lists, and can do without the forward CSR too (`xrpm dominators --lean`).
  GraphIndexOptions index;
};

struct HeapAnalysis {
  const Snapshot* snapshot = nullptr;
  GraphIndex index;
  DominatorTree dom;
  TypeStats types;

  // Throws Cancelled on cancel, std::length_error beyond the 32-bit index limits.
  static HeapAnalysis Run(const Snapshot& snap, const HeapAnalysisOptions& opts = {},
                          const Progress& progress = {});
  // Run's two halves, for callers that do other work on the index in between or beside the
  // second (AnalyseAndReport): the index alone, then the dominator tree and type statistics.
  static HeapAnalysis Indexed(const Snapshot& snap, const HeapAnalysisOptions& opts = {},
                              const Progress& progress = {});
  void ComputeDominance(const Progress& progress = {});

  unsigned threads = 0;  // Indexed's: ComputeDominance's passes that can share the work
};

struct HeapTotals {
  uint64_t objects = 0, references = 0, types = 0;  // types: distinct names
  uint64_t total_bytes = 0;
  uint64_t reachable_objects = 0, reachable_bytes = 0;  // from strong roots
  uint64_t unreachable_objects = 0, unreachable_bytes = 0;
  uint64_t root_records = 0, strong_root_objects = 0, weak_only_root_objects = 0;
  uint64_t dangling_refs = 0, dangling_roots = 0, duplicate_ids = 0;
};
HeapTotals Totals(const HeapAnalysis& a);

struct TypeSummary {
  std::string name;
  uint64_t count = 0, shallow_bytes = 0, retained_bytes = 0;
};

// What the diff needs from one snapshot; keeps no reference to it.
struct HeapSummary {
  std::string source;               // the snapshot's source (file path)
  std::vector<std::string> apps;    // AppDomain names, for the same-app check
  std::optional<uint64_t> time_ms;  // the first section's start time, when known
  HeapTotals totals;
  std::vector<TypeSummary> types;  // sorted by name
};
HeapSummary Summarize(const HeapAnalysis& a);

}  // namespace xrpm::analysis
