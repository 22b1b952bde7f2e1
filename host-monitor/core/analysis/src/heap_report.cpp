#include "xrpm/analysis/heap_report.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "xrpm/model/fork_join.h"

namespace xrpm::analysis {

std::vector<SiteRetainedRow> SitesByRetained(const HeapAnalysis& a) {
  const Snapshot& s = *a.snapshot;
  const std::vector<uint64_t> retained = SiteRetained(a.index, a.dom);
  std::vector<SiteRetainedRow> rows;
  for (const SiteRow& r : SiteStats(s))
    rows.push_back({r, retained[r.site == kUnknownSite ? retained.size() - 1 : r.site]});
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    return x.retained != y.retained ? x.retained > y.retained : x.row.bytes > y.row.bytes;
  });
  return rows;
}

namespace {

// The leak suspects' options of a report.
SuspectOptions SuspectsOf(const HeapReportOptions& o) {
  SuspectOptions so;
  so.min_share = o.min_share;
  return so;
}

// The report around inspections already run; `paths` as RunInspections left them.
HeapReport ReportWithInspections(const HeapAnalysis& a, const HeapReportOptions& o,
                                 const SuspectOptions& so, std::vector<Inspection> inspections,
                                 const InspectionPaths& paths) {
  HeapReport r;
  r.totals = Totals(a);
  r.inspections = std::move(inspections);
  // When the inspections' liveness forest is the plain one, the suspects merge their paths
  // through the inspections' merger (one forest, one memo for both).
  r.suspects = FindSuspects(
      a, so, {},
      {.merger = paths.merger.get(), .forest = paths.merger ? paths.forest.get() : nullptr});
  r.top_types = a.types.ByRetained();
  std::erase_if(r.top_types, [&](uint32_t g) { return a.types[g].count == 0; });  // no instances
  r.top_types.resize(std::min(o.top, r.top_types.size()));
  if (o.by_site) {
    r.top_sites = SitesByRetained(a);
    r.top_sites.resize(std::min(o.top, r.top_sites.size()));
  }
  return r;
}

}  // namespace

HeapReport BuildHeapReport(const HeapAnalysis& a, const HeapReportOptions& o) {
  InspectionPaths paths;
  std::vector<Inspection> inspections = RunInspections(a.index, {}, {}, &paths);
  return ReportWithInspections(a, o, SuspectsOf(o), std::move(inspections), paths);
}

SharedPasses RunSharedPasses(HeapAnalysis& a, const SharedPassOptions& o,
                             const Progress& progress) {
  SharedPasses out;
  const GraphIndex& g = a.index;
  // Raised when the dominator tree is done, and when the type statistics are too: the memo
  // uses the time until the child lists can be built, or until the dominance is over.
  std::atomic<bool> dominators_done{false}, dominance_over{false};
  auto dominance = [&] {
    const RaiseOnExit over{dominance_over};
    {
      const RaiseOnExit done{dominators_done};
      a.dom = DominatorTree::Compute(g, progress);
    }
    a.types = TypeStats::Compute(g, a.dom, progress);
  };
  auto beside = [&] {
    const Progress cancel_only{.cancel = progress.cancel};
    out.inspections = RunInspections(g, {}, cancel_only, &out.paths);
    if (!out.paths.forest && o.plain_forest) {  // delegates: theirs took those edges last
      out.paths.forest = std::make_unique<RootPathForest>(RootPathForest::Build(g, cancel_only));
      out.paths.merger = std::make_unique<PathMerger>(g, *out.paths.forest);
    }
    if (out.paths.merger)
      PrepareTypeSuspectPaths(g, *out.paths.forest, *out.paths.merger, o.suspects,
                              o.children ? dominators_done : dominance_over);
    if (o.children) {
      dominators_done.wait(false, std::memory_order_acquire);
      cancel_only.ThrowIfCancelled();  // else the tree is complete
      out.children = DominatorChildren::Build(a.dom);
    }
  };
  if (ResolveThreads(o.threads) >= 2) {
    ForkJoin(2, [&](unsigned i) { i == 0 ? dominance() : beside(); });
  } else {
    dominance();
    beside();
  }
  return out;
}

AnalysedReport AnalyseAndReport(const Snapshot& snap, const HeapReportOptions& o,
                                const HeapAnalysisOptions& ao) {
  AnalysedReport out;
  out.a = HeapAnalysis::Indexed(snap, ao);
  SuspectOptions so = SuspectsOf(o);
  so.threads = ao.threads;  // the suspects' merges use as many threads as the rest
  SharedPasses p = RunSharedPasses(out.a, {.threads = ao.threads, .suspects = so});
  out.report = ReportWithInspections(out.a, o, so, std::move(p.inspections), p.paths);
  return out;
}

}  // namespace xrpm::analysis
