#include "xrpm/analysis/heap_analysis.h"

#include <algorithm>

namespace xrpm::analysis {

HeapAnalysis HeapAnalysis::Run(const Snapshot& snap, const HeapAnalysisOptions& opts,
                               const Progress& progress) {
  HeapAnalysis a = Indexed(snap, opts, progress);
  a.ComputeDominance(progress);
  return a;
}

HeapAnalysis HeapAnalysis::Indexed(const Snapshot& snap, const HeapAnalysisOptions& opts,
                                   const Progress& progress) {
  HeapAnalysis a;
  a.snapshot = &snap;
  a.threads = opts.threads;
  GraphIndexOptions io = opts.index;
  io.threads = opts.threads;
  a.index = GraphIndex::Build(snap, io, progress);
  return a;
}

void HeapAnalysis::ComputeDominance(const Progress& progress) {
  dom = DominatorTree::Compute(index, progress, threads);
  types = TypeStats::Compute(index, dom, progress);
}

HeapTotals Totals(const HeapAnalysis& a) {
  const Snapshot& s = *a.snapshot;
  const GraphIndex& g = a.index;
  HeapTotals t;
  t.objects = s.object_count();
  t.references = g.edge_count();
  t.types = g.group_count();
  t.total_bytes = s.total_bytes();
  t.reachable_objects = a.dom.reachable_count();
  t.reachable_bytes = a.dom.reachable_bytes();
  t.unreachable_objects = t.objects - t.reachable_objects;
  t.unreachable_bytes = t.total_bytes - t.reachable_bytes;
  t.root_records = s.root_count();
  t.strong_root_objects = g.StrongRoots().size();
  t.weak_only_root_objects = g.weak_only_roots();
  t.dangling_refs = g.dangling_refs();
  t.dangling_roots = g.dangling_roots();
  t.duplicate_ids = g.duplicate_ids();
  return t;
}

HeapSummary Summarize(const HeapAnalysis& a) {
  HeapSummary sum;
  sum.source = a.snapshot->source;
  for (const auto& sec : a.snapshot->sections) {
    if (std::find(sum.apps.begin(), sum.apps.end(), sec.name) == sum.apps.end())
      sum.apps.push_back(sec.name);
  }
  if (!a.snapshot->sections.empty()) sum.time_ms = a.snapshot->sections.front().start_ms;
  sum.totals = Totals(a);
  sum.types.reserve(a.index.group_count());
  for (uint32_t grp = 0; grp < a.index.group_count(); ++grp) {
    const TypeStat& st = a.types[grp];
    if (st.count == 0) continue;  // a type record with no instances
    sum.types.push_back({a.index.group_name(grp), st.count, st.shallow_bytes, st.retained_bytes});
  }
  std::sort(sum.types.begin(), sum.types.end(),
            [](const TypeSummary& x, const TypeSummary& y) { return x.name < y.name; });
  return sum;
}

}  // namespace xrpm::analysis
