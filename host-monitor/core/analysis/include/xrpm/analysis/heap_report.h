// HeapReport: the one-page answer for a heap dump, as data: the totals, the types (or the
// allocation sites) that retain the most, the leak suspects and the automatic inspections.
// `xrpm report` builds it once and renders it as text or as JSON.
//
// RunSharedPasses is the schedule of the passes the report and the monitor's analysis share
// (two threads; see there).
//
// Cost: suspects and inspections as in suspects.h and inspections.h, the inspections first:
// the suspects reuse their root-path forest and path merger when it is the plain one
// (InspectionPaths); the site rows one dominator tree walk (SiteRetained) and a sort of the
// sites.
//
// Thread-safety: a pure function over an immutable analysis; the report is a value (its rows
// name type groups and nodes of that analysis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/inspections.h"
#include "xrpm/analysis/site_stats.h"
#include "xrpm/analysis/suspects.h"

namespace xrpm::analysis {

struct HeapReportOptions {
  size_t top = 15;          // type (and site) rows
  double min_share = 0.10;  // suspects retain at least this share of the reachable bytes
  bool by_site = false;     // also the allocation sites (the snapshot must have origins)
};

// An allocation site (or the unknown origin) and the bytes its objects retain.
struct SiteRetainedRow {
  SiteRow row;
  uint64_t retained = 0;
};

struct HeapReport {
  HeapTotals totals;
  std::vector<uint32_t> top_types;         // type groups with instances, most retained first
  std::vector<SiteRetainedRow> top_sites;  // by_site: most retained first (then shallow)
  std::vector<Suspect> suspects;
  std::vector<Inspection> inspections;  // every inspection, default thresholds
};

HeapReport BuildHeapReport(const HeapAnalysis& a, const HeapReportOptions& o = {});

// The passes `xrpm report` and the monitor make once, on two threads when `threads` allows
// (0: the machine's cores): the dominator tree and the type statistics of `a` (indexed, not
// yet dominated) on the calling thread, with `progress`; beside them (cancel only) the
// inspections (they read the graph index only), then the root-path forest and path merger
// they leave (InspectionPaths; when `plain_forest`, RootPathForest::Build's forest is built
// if theirs is not the plain one), whose memo then gets the likely type suspects' paths
// (PrepareTypeSuspectPaths) while the dominance runs, and when `children`, the dominator
// tree's sorted child lists, built as soon as the tree is done. Same CPU time as in turn,
// less wall time; the memo and trie grow while the dominator tree's working arrays are still
// held (peak +3-6 % at 10 M objects). Throws as HeapAnalysis::Run and RunInspections.
struct SharedPassOptions {
  unsigned threads = 0;
  SuspectOptions suspects;    // as FindSuspects will get them, for the paths memoised ahead
  bool plain_forest = false;  // paths.forest and paths.merger always set
  bool children = false;      // children built (sorted)
};
struct SharedPasses {
  std::vector<Inspection> inspections;
  InspectionPaths paths;  // point into a.index
  DominatorChildren children;
};
SharedPasses RunSharedPasses(HeapAnalysis& a, const SharedPassOptions& o,
                             const Progress& progress = {});

// HeapAnalysis::Run and BuildHeapReport in one, for `xrpm report`: the same analysis and the
// same report through RunSharedPasses (ao.threads). Throws as HeapAnalysis::Run.
struct AnalysedReport {
  HeapAnalysis a;
  HeapReport report;
};
AnalysedReport AnalyseAndReport(const Snapshot& snap, const HeapReportOptions& o = {},
                                const HeapAnalysisOptions& ao = {});

// Every site of the snapshot by retained bytes (then shallow), largest first, the unknown origin
// as one row (empty without origins).
std::vector<SiteRetainedRow> SitesByRetained(const HeapAnalysis& a);

}  // namespace xrpm::analysis
