#include "xrpm/core/analysis/type_stats.h"

#include <algorithm>
#include <numeric>

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

  // Dominator tree as first-child / next-sibling lists; the virtual root is n.
  const uint32_t root = dom.virtual_root();
  PodVector<uint32_t> first(size_t{n} + 1, kNoIndex), next(n, kNoIndex);
  for (uint32_t v = n; v-- > 0;) {
    if (!dom.reachable(v)) continue;
    const uint32_t p = dom.idom(v);
    next[v] = first[p];
    first[p] = v;
  }
  // Depth-first over the tree; on_path[g] = instances of g on the path from the root to here.
  std::vector<uint32_t> on_path(g.group_count(), 0);
  uint64_t visited = 0;
  uint32_t v = first[root];
  while (v != kNoIndex) {
    if ((++visited & 0xFFFFF) == 0)
      progress.Report("types: retained sizes", double(visited) / dom.reachable_count());
    const uint32_t grp = g.group_of(v);
    if (on_path[grp]++ == 0) t.stats_[grp].retained_bytes += dom.retained(v);
    if (first[v] != kNoIndex) {
      v = first[v];
      continue;
    }
    while (true) {  // leave v and every ancestor whose children are all done
      --on_path[g.group_of(v)];
      if (next[v] != kNoIndex) {
        v = next[v];
        break;
      }
      v = dom.idom(v);
      if (v == root) {
        v = kNoIndex;
        break;
      }
    }
  }
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

}  // namespace xrpm::analysis
