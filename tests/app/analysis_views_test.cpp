// The session's use of the analysis engine: documents get retained sizes, the dominator tree
// browser pages and reveals, Compare ranks the leaking type first, holders are found.
#include <gtest/gtest.h>
#include <unistd.h>
#include <atomic>

#include <filesystem>
#include <set>

#include "xrpm/app/app_session.h"
#include "xrpm/app/compare_order.h"
#include "xrpm/app/dominator_browser.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

class AnalysisViews : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_analysis_views_" + std::to_string(getpid()) +
                    "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  AppSession::Options Opts() { return {dir, /*persist=*/false, {}}; }
};

TEST_F(AnalysisViews, DocumentsGetRetainedSizesSuspectsAndRoots) {
  AppSession s(Opts());
  const uint32_t id = s.documents().OpenDemo({.objects = 30'000, .generation = 2});
  ASSERT_TRUE(s.WaitIdle(60s));
  SnapshotDoc* d = s.documents().doc(id);
  ASSERT_EQ(d->state, DocState::kReady);
  ASSERT_TRUE(d->analysis);
  EXPECT_TRUE(d->types->has_retained);
  uint64_t max_retained = 0;
  for (const auto& r : d->types->rows) {
    ASSERT_NE(r.retained, kUnknown);
    max_retained = std::max(max_retained, r.retained);
  }
  EXPECT_GT(max_retained, 0u);
  EXPECT_LE(max_retained, d->analysis->totals.reachable_bytes);
  EXPECT_FALSE(d->analysis->suspects.empty());
  // Roots: every record is in exactly one (descriptor, flags) group.
  uint64_t records = 0;
  for (const auto& g : d->analysis->roots.by_kind) records += g.records.size();
  EXPECT_EQ(records, d->snapshot->root_count());
  EXPECT_FALSE(d->analysis->roots.statics.empty());

  // Holders of the leaking type: one path holds nearly all of them.
  ASSERT_TRUE(s.selection().SelectType("Game.ParticleEffect"));
  s.documents().FindHolders(id, uint32_t(d->selection.type));
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_TRUE(d->holders);
  ASSERT_FALSE(d->holders->paths.paths.empty());
  EXPECT_GT(d->holders->paths.paths.front().count, d->holders->paths.instances * 9 / 10);
}

TEST_F(AnalysisViews, DominatorBrowserPagesExpandsAndReveals) {
  AppSession s(Opts());
  const uint32_t id = s.documents().OpenDemo({.objects = 20'000});
  ASSERT_TRUE(s.WaitIdle(60s));
  auto a = s.documents().doc(id)->analysis;
  ASSERT_TRUE(a);
  DominatorBrowser b;
  b.Reset(a);
  const uint32_t first = b.Rows().at(0).node;
  EXPECT_TRUE(b.Expanded(first));  // the largest retainer starts open
  b.Toggle(first);
  const auto top = b.Rows();
  ASSERT_FALSE(top.empty());
  for (const auto& r : top) EXPECT_EQ(r.depth, 0u);
  // Largest first.
  for (size_t i = 1; i < top.size(); ++i) {
    if (!top[i].more && !top[i - 1].more) {
      EXPECT_GE(a->dom().retained(top[i - 1].node), a->dom().retained(top[i].node));
    }
  }
  const uint64_t rebuilds = b.rebuilds();
  b.Rows();
  EXPECT_EQ(b.rebuilds(), rebuilds);  // no change, no rebuild
  // Expanding the first node shows its children right below it, one level deeper.
  ASSERT_TRUE(b.HasChildren(top[0].node));
  b.Toggle(top[0].node);
  const auto& rows = b.Rows();
  ASSERT_GT(rows.size(), top.size());
  EXPECT_EQ(rows[1].depth, 1u);
  EXPECT_EQ(a->dom().idom(rows[1].node), top[0].node);
  // Reveal a deep object: every dominator on its chain gets expanded.
  uint32_t deep = kNoIndex, depth = 0;
  for (uint32_t v = 0; v < a->dom().node_count(); v += 97) {
    uint32_t dd = 0;
    for (uint32_t u = v; u != a->dom().virtual_root() && a->dom().reachable(u);
         u = a->dom().idom(u))
      ++dd;
    if (a->dom().reachable(v) && dd > depth) deep = v, depth = dd;
  }
  ASSERT_NE(deep, kNoIndex);
  const int64_t row = b.Reveal(deep);
  ASSERT_GE(row, 0);
  EXPECT_EQ(b.Rows()[size_t(row)].node, deep);
  EXPECT_EQ(b.Rows()[size_t(row)].depth, depth - 1);
}

TEST_F(AnalysisViews, CompareRanksTheLeakFirstAndKeepsSuspectsOnTop) {
  AppSession s(Opts());
  std::vector<uint32_t> ids;
  for (uint32_t gen : {0u, 1u, 2u})
    ids.push_back(s.documents().OpenDemo({.objects = 20'000, .generation = gen}));
  ASSERT_TRUE(s.WaitIdle(60s));
  s.comparisons().CompareSnapshots({ids[0]});  // one snapshot is not a comparison
  EXPECT_NE(s.last_error().find("at least two"), std::string::npos);
  s.comparisons().CompareSnapshots(ids);
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_TRUE(s.comparisons().snapshots());
  const CompareResult& r = *s.comparisons().snapshots();
  ASSERT_GE(r.growth.size(), 3u);
  // The leak, ranked by retained growth: the hub (retains it all) first, its effects near.
  std::set<std::string> top;
  for (int i = 0; i < 3; ++i) top.insert(r.last->index().group_name(r.growth[i].group));
  EXPECT_EQ(r.last->index().group_name(r.growth[0].group), "Game.EventHub");
  EXPECT_TRUE(top.count("Game.ParticleEffect"));
  // Sorted by name, suspects still come first.
  auto order = CompareOrder(r, "", CompareColumn::kName, false);
  ASSERT_EQ(order.size(), r.diff.rows.size());
  for (size_t i = 0; i < r.growth.size(); ++i) EXPECT_TRUE(IsGrowthSuspect(r, order[i]));
  EXPECT_FALSE(IsGrowthSuspect(r, order[r.growth.size()]));
  EXPECT_EQ(r.diff.rows[order[0]].name, r.last->index().group_name(r.growth[0].group));
  auto filtered = CompareOrder(r, "bubble", CompareColumn::kCountDelta, true);
  for (uint32_t i : filtered) EXPECT_NE(r.diff.rows[i].name.find("Bubble"), std::string::npos);
  EXPECT_FALSE(filtered.empty());
}

TEST_F(AnalysisViews, CancelledAnalysisLeavesAReadyDocumentThatCanBeAnalysedAgain) {
  // Cancel from the worker's own wake-up when the analysis task announces its first phase:
  // the task is then certainly running and has work left, so the cancel always lands.
  std::atomic<AppSession*> session{nullptr};
  std::atomic<bool> cancelled{false};
  AppSession::Options o = Opts();
  o.wake = [&] {
    AppSession* sp = session.load();
    if (!sp || cancelled.load()) return;
    const TaskStatus st = sp->work();
    if (st.label.rfind("Analysing", 0) == 0 && !st.phase.empty() && !cancelled.exchange(true))
      sp->CancelWork();
  };
  AppSession s(o);
  session = &s;
  const uint32_t id = s.documents().OpenDemo({.objects = 300'000});
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_TRUE(cancelled.load()) << "the analysis never reported a phase";
  SnapshotDoc* d = s.documents().doc(id);
  EXPECT_EQ(d->state, DocState::kReady);
  EXPECT_FALSE(d->analysis);
  EXPECT_NE(d->analysis_note.find("cancelled"), std::string::npos) << d->analysis_note;
  session = nullptr;  // the second analysis runs to the end
  s.documents().Analyse(id);
  ASSERT_TRUE(s.WaitIdle(60s));
  EXPECT_TRUE(d->analysis);
}

}  // namespace
}  // namespace xrpm::app
