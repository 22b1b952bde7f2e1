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

// The report around inspections already run; `paths` as RunInspections left them.
HeapReport ReportWithInspections(const HeapAnalysis& a, const HeapReportOptions& o,
                                 std::vector<Inspection> inspections,
                                 const InspectionPaths& paths) {
  HeapReport r;
  r.totals = Totals(a);
  r.inspections = std::move(inspections);
  // When the inspections' liveness forest is the plain one, the suspects merge their paths
  // through the inspections' merger (one forest, one memo for both).
  SuspectOptions so;
  so.min_share = o.min_share;
  r.suspects = FindSuspects(a, so, {}, {.merger = paths.merger.get()});
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
  return ReportWithInspections(a, o, std::move(inspections), paths);
}

AnalysedReport AnalyseAndReport(const Snapshot& snap, const HeapReportOptions& o,
                                const HeapAnalysisOptions& ao) {
  AnalysedReport out;
  out.a = HeapAnalysis::Indexed(snap, ao);
  HeapAnalysis& a = out.a;
  InspectionPaths paths;  // points into a.index: used up before `out` is returned
  std::vector<Inspection> inspections;
  // The inspections usually end well before the dominator tree; their thread then memoises the
  // paths the type suspects will merge, until the dominance is done (or has failed).
  std::atomic<bool> dominance_over{false};
  auto analyse = [&] {
    const RaiseOnExit over{dominance_over};
    a.ComputeDominance();
  };
  auto inspect = [&] {
    inspections = RunInspections(a.index, {}, {}, &paths);
    if (paths.merger) {
      SuspectOptions so;
      so.min_share = o.min_share;
      PrepareTypeSuspectPaths(a.index, *paths.forest, *paths.merger, so, dominance_over);
    }
  };
  if (ResolveThreads(ao.threads) >= 2) {
    ForkJoin(2, [&](unsigned i) { i == 0 ? analyse() : inspect(); });
  } else {
    analyse();
    inspect();
  }
  out.report = ReportWithInspections(a, o, std::move(inspections), paths);
  return out;
}

}  // namespace xrpm::analysis
