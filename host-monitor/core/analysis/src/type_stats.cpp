#include "xrpm/analysis/type_stats.h"

#include <algorithm>
#include <numeric>

#include "retained_by_key.h"

namespace xrpm::analysis {

TypeStats TypeStats::Compute(const GraphIndex& g, const DominatorTree& dom,
                             const Progress& progress) {
  const uint32_t n = g.node_count();
  const Snapshot& snap = g.snapshot();
  TypeStats t;
  t.stats_.resize(g.group_count());
  for (uint32_t v = 0; v < n; ++v) {
    TypeStat& s = t.stats_[g.group_of(v)];
    ++s.count;
    s.shallow_bytes += snap.object_size[v];
    s.reachable_count += dom.reachable(v);
  }
  progress.Report("types: retained sizes", 0);
  std::vector<uint64_t> retained;
  AddRetainedByKey(
      dom, n, g.group_count(), [&g](uint32_t v) { return g.group_of(v); }, retained, progress,
      "types: retained sizes");
  for (uint32_t k = 0; k < g.group_count(); ++k) t.stats_[k].retained_bytes = retained[k];
  return t;
}

std::vector<uint32_t> TypeStats::ByRetained() const {
  std::vector<uint32_t> order(stats_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const TypeStat &x = stats_[a], &y = stats_[b];
    if (x.retained_bytes != y.retained_bytes) return x.retained_bytes > y.retained_bytes;
    if (x.shallow_bytes != y.shallow_bytes) return x.shallow_bytes > y.shallow_bytes;
    return a < b;
  });
  return order;
}

uint64_t RetainedBytesOfGroups(const GraphIndex& g, const DominatorTree& dom,
                               const std::vector<char>& in_set) {
  std::vector<uint64_t> retained;
  AddRetainedByKey(
      dom, g.node_count(), 2, [&](uint32_t v) { return in_set[g.group_of(v)] ? 1u : 0u; }, retained,
      {}, "types: retained sizes");
  return retained[1];
}

}  // namespace xrpm::analysis
