// RetainedOrder: every type group's instances, largest retained size first and then by node,
// the same on any number of threads as a plain sort of each group.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "test_heaps.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/retained_order.h"

namespace xrpm::analysis {
namespace {

TEST(RetainedOrder, EachGroupLargestRetainedFirstThenByNode) {
  const Snapshot s = testing::MakeHeap({.seed = 11, .objects = 20'000, .types = 7});
  const GraphIndex g = GraphIndex::Build(s);
  const DominatorTree dom = DominatorTree::Compute(g);
  uint64_t ties = 0;
  for (unsigned threads : {1u, 2u, 3u}) {
    const RetainedOrder o = RetainedOrder::Build(g, dom, threads);
    for (uint32_t grp = 0; grp < g.group_count(); ++grp) {
      std::vector<uint32_t> want(g.Instances(grp).begin(), g.Instances(grp).end());
      std::stable_sort(want.begin(), want.end(),
                       [&](uint32_t a, uint32_t b) { return dom.retained(a) > dom.retained(b); });
      const std::span<const uint32_t> got = o.Instances(grp);
      ASSERT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want) << grp << " " << threads;
      for (size_t i = 1; i < want.size(); ++i)
        ties += dom.retained(want[i]) == dom.retained(want[i - 1]);
    }
  }
  EXPECT_GT(ties, 0u);  // equal sizes occur (unreachable objects retain 0): the node decides
}

TEST(RetainedOrder, CancelStopsIt) {
  const Snapshot s = testing::MakeHeap({.seed = 3, .objects = 2000, .types = 5});
  const GraphIndex g = GraphIndex::Build(s);
  const DominatorTree dom = DominatorTree::Compute(g);
  std::atomic<bool> cancel{true};
  Progress p;
  p.cancel = &cancel;
  EXPECT_THROW(RetainedOrder::Build(g, dom, 1, p), Cancelled);
}

}  // namespace
}  // namespace xrpm::analysis
