#include "xrpm/analysis/retained_order.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <utility>
#include <vector>

#include "xrpm/model/fork_join.h"

namespace xrpm::analysis {

RetainedOrder RetainedOrder::Build(const GraphIndex& g, const DominatorTree& dom, unsigned threads,
                                   const Progress& progress) {
  RetainedOrder o;
  const uint32_t groups = g.group_count();
  o.off_.resize(size_t{groups} + 1);
  uint64_t at = 0;
  for (uint32_t k = 0; k < groups; ++k) {
    o.off_[k] = at;
    at += g.group_size(k);
  }
  o.off_[groups] = at;
  o.nodes_.resize(at);
  std::vector<uint32_t> largest_first(groups);
  std::iota(largest_first.begin(), largest_first.end(), 0u);
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [&](uint32_t a, uint32_t b) { return g.group_size(a) > g.group_size(b); });
  const unsigned workers = ResolveThreads(threads);
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> scratch(workers);
  std::atomic<uint64_t> done{0};
  ForEachTask(groups, workers, [&](unsigned worker, size_t task) {
    const uint32_t grp = largest_first[task];
    const std::span<const uint32_t> instances = g.Instances(grp);
    std::vector<std::pair<uint64_t, uint32_t>>& keys = scratch[worker];
    keys.resize(instances.size());
    for (size_t i = 0; i < instances.size(); ++i)
      keys[i] = {~dom.retained(instances[i]), instances[i]};  // complemented: largest first
    std::sort(keys.begin(), keys.end());
    uint32_t* out = o.nodes_.data() + o.off_[grp];
    for (size_t i = 0; i < keys.size(); ++i) out[i] = keys[i].second;
    const uint64_t d = done.fetch_add(instances.size()) + instances.size();
    if (worker == 0 && (instances.size() >= (1u << 16) || task % 256 == 0))  // a few reports,
      progress.Report("instances by retained size", at ? double(d) / double(at) : 1.0);
    else  // and those on the calling thread only
      progress.ThrowIfCancelled();
  });
  return o;
}

}  // namespace xrpm::analysis
