// AnalyseDoc, what the monitor computes when a snapshot opens: its passes run on two threads
// (analysis::RunSharedPasses, whose threads tests/analysis/shared_passes_test.cpp checks
// under ThreadSanitizer), and sharing the forest and the path memo between them must not
// change a single figure: each part is compared with the one computed alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "inspect_game.h"
#include "test_heaps.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/inspections.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/analysis/suspects.h"
#include "xrpm/app/demo_heap.h"
#include "xrpm/app/doc_analysis.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

std::shared_ptr<const DocAnalysis> AnalyseOnWorker(std::shared_ptr<const Snapshot> s,
                                                   DocIndex index = DocIndex::kAuto) {
  std::shared_ptr<const DocAnalysis> out;
  Worker w;
  w.Post("analyse", [&](TaskContext& ctx) -> Completion {
    out = AnalyseDoc(s, ctx, index);
    return {};
  });
  EXPECT_TRUE(w.WaitTasksDone(60s));
  return out;
}

// `a` on the lean index: an object suspect's path is the forest's (as short as the search's,
// possibly through other objects).
void ExpectAsComputedAlone(const Snapshot& s, const DocAnalysis& a) {
  const analysis::HeapAnalysis alone = analysis::HeapAnalysis::Run(s);
  const analysis::GraphIndex& g = alone.index;
  ASSERT_EQ(a.heap.dom.node_count(), alone.dom.node_count());
  for (uint32_t v = 0; v < g.node_count(); ++v) {
    ASSERT_EQ(a.heap.dom.idom(v), alone.dom.idom(v)) << v;
    ASSERT_EQ(a.heap.dom.retained(v), alone.dom.retained(v)) << v;
  }
  const analysis::RootPathForest forest = analysis::RootPathForest::Build(g);
  for (uint32_t v = 0; v < g.node_count(); ++v) ASSERT_EQ(a.forest().parent(v), forest.parent(v));
  // The child lists, sorted, with their offsets or (lean index) without.
  const analysis::DominatorChildren children = analysis::DominatorChildren::Build(alone.dom);
  for (uint32_t v = 0; v <= g.node_count(); ++v) {
    const auto want = children.Children(v), got = a.children.Children(v);
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin(), got.end())) << v;
  }

  analysis::SuspectOptions so;
  const std::vector<analysis::Suspect> suspects = analysis::FindSuspects(alone, so);
  ASSERT_EQ(a.suspects.size(), suspects.size());
  for (size_t i = 0; i < suspects.size(); ++i) {
    EXPECT_EQ(a.suspects[i].reason, suspects[i].reason) << i;
    if (a.lean_index) {
      ASSERT_EQ(a.suspects[i].path.nodes.size(), suspects[i].path.nodes.size()) << i;
      if (!suspects[i].path.nodes.empty()) {
        EXPECT_EQ(a.suspects[i].path.nodes, a.forest().PathTo(suspects[i].node).nodes) << i;
      }
    } else {
      EXPECT_EQ(a.suspects[i].path.nodes, suspects[i].path.nodes) << i;
    }
    ASSERT_EQ(a.suspects[i].holders.paths.size(), suspects[i].holders.paths.size()) << i;
    for (size_t k = 0; k < suspects[i].holders.paths.size(); ++k) {
      EXPECT_EQ(MergedPathLabel(g, a.suspects[i].holders.paths[k], " -> "),
                MergedPathLabel(g, suspects[i].holders.paths[k], " -> "));
      EXPECT_EQ(a.suspects[i].holders.paths[k].count, suspects[i].holders.paths[k].count);
    }
  }
  const std::vector<analysis::Inspection> inspections = analysis::RunInspections(g);
  ASSERT_EQ(a.inspections.size(), inspections.size());
  for (size_t i = 0; i < inspections.size(); ++i) {
    EXPECT_EQ(a.inspections[i].name, inspections[i].name);
    EXPECT_EQ(a.inspections[i].total_count, inspections[i].total_count) << inspections[i].name;
    EXPECT_EQ(a.inspections[i].total_bytes, inspections[i].total_bytes) << inspections[i].name;
    EXPECT_EQ(a.inspections[i].findings.size(), inspections[i].findings.size());
  }
  EXPECT_EQ(a.totals.reachable_bytes, alone.dom.reachable_bytes());

  // The paths holding each type, from the memo the analysis kept (its suspects' types have
  // theirs already): what a fresh merger finds, and the same when asked twice.
  for (uint32_t grp = 0; grp < g.group_count(); ++grp) {
    const analysis::MergedPaths want = analysis::MergeShortestPaths(g, forest, &alone.dom, grp, 5);
    for (int again = 0; again < 2; ++again) {
      const analysis::MergedPaths got = a.MergeHolders(grp, 5);
      ASSERT_EQ(got.paths.size(), want.paths.size()) << g.group_name(grp);
      EXPECT_EQ(got.instances, want.instances);
      EXPECT_EQ(got.unreachable, want.unreachable);
      EXPECT_EQ(got.other_paths, want.other_paths);
      for (size_t k = 0; k < want.paths.size(); ++k) {
        EXPECT_EQ(MergedPathLabel(g, got.paths[k], " -> "),
                  MergedPathLabel(g, want.paths[k], " -> "));
        EXPECT_EQ(got.paths[k].count, want.paths[k].count);
        EXPECT_EQ(got.paths[k].retained_bytes, want.paths[k].retained_bytes);
        EXPECT_EQ(got.paths[k].example, want.paths[k].example);
      }
    }
  }
}

TEST(DocAnalysis, TwoThreadsGiveWhatEachPassGivesAlone) {
  size_t type_suspects = 0;
  for (uint32_t seed : {41u, 42u}) {
    auto s =
        std::make_shared<Snapshot>(testing::MakeHeap({.seed = seed, .objects = 3000, .types = 9}));
    const auto a = AnalyseOnWorker(s);
    ASSERT_TRUE(a);
    ExpectAsComputedAlone(*s, *a);
    for (const analysis::Suspect& x : a->suspects)
      type_suspects += x.kind == analysis::Suspect::Kind::kType;
  }
  EXPECT_GT(type_suspects, 0u);
}

TEST(DocAnalysis, ClicksWhileTheLargestTypesAreMemoisedAheadGetAFreshMergersPaths) {
  // Three types of ~130,000 instances: each is memoised ahead once the analysis is done (from
  // 100,000 instances on). Merges asked while that runs, and after it, give what a fresh merger
  // gives.
  auto s =
      std::make_shared<Snapshot>(testing::MakeHeap({.seed = 44, .objects = 400'000, .types = 3}));
  const auto a = AnalyseOnWorker(s);
  ASSERT_TRUE(a);
  const analysis::GraphIndex& g = a->index();
  size_t large = 0;
  for (uint32_t grp = 0; grp < g.group_count(); ++grp) large += g.Instances(grp).size() >= 100'000;
  ASSERT_GT(large, 0u);
  const auto expect_fresh = [&](uint32_t grp) {
    const analysis::MergedPaths want =
        analysis::MergeShortestPaths(g, a->forest(), &a->dom(), grp, 4);
    const analysis::MergedPaths got = a->MergeHolders(grp, 4);
    EXPECT_EQ(got.instances, want.instances);
    EXPECT_EQ(got.other_paths, want.other_paths);
    ASSERT_EQ(got.paths.size(), want.paths.size()) << grp;
    for (size_t k = 0; k < want.paths.size(); ++k) {
      EXPECT_EQ(MergedPathLabel(g, got.paths[k], " -> "),
                MergedPathLabel(g, want.paths[k], " -> "));
      EXPECT_EQ(got.paths[k].count, want.paths[k].count);
      EXPECT_EQ(got.paths[k].example, want.paths[k].example);
    }
  };
  for (uint32_t grp = g.group_count(); grp-- > 0;) expect_fresh(grp);  // beside the memo ahead
  a->WaitMemoisedAhead();
  for (uint32_t grp = 0; grp < g.group_count(); ++grp) expect_fresh(grp);
}

TEST(DocAnalysis, DelegatesGetThePlainForestAllTheSame) {
  // The inspections' forest takes delegate -> target edges last: the document still gets the
  // plain shortest-path forest the Inspector shows paths from.
  auto s = std::make_shared<Snapshot>(testing::MakeInspectGame());
  const auto a = AnalyseOnWorker(s);
  ASSERT_TRUE(a);
  ExpectAsComputedAlone(*s, *a);
}

// A heap too big for the index copies gets the lean index: the same dominators, forest,
// suspects and inspections (the object suspects' paths as short), from the snapshot's own
// references.
TEST(DocAnalysis, TheLeanIndexGivesWhatTheFullOneGives) {
  size_t object_suspects = 0;
  std::vector<std::shared_ptr<const Snapshot>> heaps;
  for (uint32_t seed : {41u, 43u})
    heaps.push_back(
        std::make_shared<Snapshot>(testing::MakeHeap({.seed = seed, .objects = 3000, .types = 9})));
  // A leaking cache: one object retains most of the heap.
  heaps.push_back(std::make_shared<Snapshot>(
      GenerateDemoHeap({.objects = 5000, .generation = 2, .extra_refs_per_object = 1})));
  for (const std::shared_ptr<const Snapshot>& s : heaps) {
    const auto full = AnalyseOnWorker(s, DocIndex::kFull);
    const auto lean = AnalyseOnWorker(s, DocIndex::kLean);
    ASSERT_TRUE(full && lean);
    EXPECT_FALSE(full->lean_index);
    EXPECT_TRUE(lean->lean_index);
    EXPECT_TRUE(full->index().has_forward() && full->index().has_reverse());
    EXPECT_FALSE(lean->index().has_forward() || lean->index().has_reverse());
    EXPECT_LT(lean->MemoryBytes(), full->MemoryBytes());
    ExpectAsComputedAlone(*s, *lean);
    for (const analysis::Suspect& x : lean->suspects)
      object_suspects += x.kind == analysis::Suspect::Kind::kObject;
  }
  EXPECT_GT(object_suspects, 0u);
  // A small heap fits: kAuto picks the full index.
  auto small = std::make_shared<Snapshot>(testing::MakeHeap({.seed = 1, .objects = 500}));
  EXPECT_FALSE(AnalyseOnWorker(small)->lean_index);
}

}  // namespace
}  // namespace xrpm::app
