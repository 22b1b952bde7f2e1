#include "xrpm/analysis/heap_report.h"

#include <algorithm>

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

HeapReport BuildHeapReport(const HeapAnalysis& a, const HeapReportOptions& o) {
  HeapReport r;
  r.totals = Totals(a);
  // The inspections first: when their liveness forest is the plain one, the suspects merge
  // their paths through the inspections' merger (one forest, one memo for both).
  InspectionPaths paths;
  r.inspections = RunInspections(a.index, {}, {}, &paths);
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

}  // namespace xrpm::analysis
