// The passes `xrpm report` makes once and shares between its parts (heap_report.h): unsorted
// dominator children, the inspections' root-path forest and path merger handed on to the leak
// suspects. Sharing must not change a single figure: each result is compared with the one
// built from scratch. AnalyseAndReport runs the inspections on a second thread: threaded, so
// CI runs these under ThreadSanitizer.
// ctest-labels: threaded
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "game_heap.h"
#include "inspect_game.h"
#include "test_heaps.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/heap_report.h"
#include "xrpm/analysis/inspections.h"
#include "xrpm/analysis/suspects.h"

namespace xrpm::analysis {
namespace {

// Random NETCF-like heaps: many types, shared objects, roots of every kind.
Snapshot SharedPassesHeap(uint32_t seed) {
  return testing::MakeHeap({.seed = seed, .objects = 3000, .types = 9});
}

void ExpectSameSuspects(const HeapAnalysis& a, const std::vector<Suspect>& want,
                        const std::vector<Suspect>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Suspect &x = want[i], &y = got[i];
    EXPECT_EQ(x.kind, y.kind) << i;
    EXPECT_EQ(x.group, y.group) << i;
    EXPECT_EQ(x.node, y.node) << i;
    EXPECT_EQ(x.count, y.count) << i;
    EXPECT_EQ(x.retained_bytes, y.retained_bytes) << i;
    EXPECT_EQ(x.top_child_group, y.top_child_group) << i;
    EXPECT_EQ(x.top_child_count, y.top_child_count) << i;
    EXPECT_EQ(x.reason, y.reason) << i;
    EXPECT_EQ(x.path.nodes, y.path.nodes) << i;
    EXPECT_EQ(x.holders.instances, y.holders.instances) << i;
    EXPECT_EQ(x.holders.unreachable, y.holders.unreachable) << i;
    EXPECT_EQ(x.holders.other_paths, y.holders.other_paths) << i;
    EXPECT_EQ(x.holders.other_instances, y.holders.other_instances) << i;
    ASSERT_EQ(x.holders.paths.size(), y.holders.paths.size()) << i;
    for (size_t k = 0; k < x.holders.paths.size(); ++k) {
      const MergedPath &p = x.holders.paths[k], &q = y.holders.paths[k];
      EXPECT_EQ(MergedPathLabel(a.index, p, " -> "), MergedPathLabel(a.index, q, " -> "));
      EXPECT_EQ(p.count, q.count);
      EXPECT_EQ(p.shallow_bytes, q.shallow_bytes);
      EXPECT_EQ(p.retained_bytes, q.retained_bytes);
      EXPECT_EQ(p.example, q.example);
    }
  }
}

TEST(SharedPasses, UnsortedChildrenAreTheSortedOnesInNodeOrder) {
  const Snapshot s = SharedPassesHeap(7);
  const HeapAnalysis a = HeapAnalysis::Run(s);
  const DominatorChildren sorted = DominatorChildren::Build(a.dom);
  const DominatorChildren unsorted = DominatorChildren::BuildUnsorted(a.dom);
  EXPECT_TRUE(sorted.sorted());
  EXPECT_FALSE(unsorted.sorted());
  size_t lists_that_differ = 0;
  for (uint32_t v = 0; v <= a.dom.node_count(); ++v) {
    const auto kids = sorted.Children(v);
    std::vector<uint32_t> by_node(kids.begin(), kids.end());
    std::sort(by_node.begin(), by_node.end());
    const auto got = unsorted.Children(v);
    ASSERT_EQ(std::vector<uint32_t>(got.begin(), got.end()), by_node) << v;
    EXPECT_TRUE(std::is_sorted(kids.begin(), kids.end(), [&](uint32_t x, uint32_t y) {
      return DominatorChildren::LargerFirst(a.dom, x, y);
    })) << v;
    lists_that_differ += !std::equal(kids.begin(), kids.end(), got.begin());
  }
  EXPECT_GT(lists_that_differ, 0u);  // the heap exercises the order at all
}

TEST(SharedPasses, SuspectsAreTheSameWithWhatTheCallerHandsIn) {
  size_t type_suspects = 0, object_suspects = 0;
  std::vector<Snapshot> heaps;
  for (uint32_t seed : {1u, 2u, 3u, 4u}) heaps.push_back(SharedPassesHeap(seed));
  heaps.push_back(testing::GameSnapshot(1000, 5, 2000, 0x10000000));  // Enemy[], bullets
  for (const Snapshot& s : heaps) {
    const HeapAnalysis a = HeapAnalysis::Run(s);
    SuspectOptions so;
    so.min_share = 0.02;  // many suspects of both kinds
    const std::vector<Suspect> alone = FindSuspects(a, so);
    {  // a tiny share: most nodes are big enough to descend to; each suspect still retains it
      SuspectOptions tiny;
      tiny.min_share = 0.0005;
      const std::vector<Suspect> many = FindSuspects(a, tiny);
      EXPECT_FALSE(many.empty());
      for (const Suspect& x : many)
        EXPECT_GE(double(x.retained_bytes), 0.0005 * double(a.dom.reachable_bytes()));
    }
    for (const Suspect& x : alone)
      ++(x.kind == Suspect::Kind::kType ? type_suspects : object_suspects);

    const DominatorChildren sorted = DominatorChildren::Build(a.dom);
    const DominatorChildren unsorted = DominatorChildren::BuildUnsorted(a.dom);
    const RootPathForest forest = RootPathForest::Build(a.index);
    PathMerger merger(a.index, forest);
    // The merger's memo already holds other paths (as after the inspections).
    merger.Merge(a.index.Instances(0), nullptr, 1);
    ExpectSameSuspects(a, alone, FindSuspects(a, so, {}, {.children = &sorted}));
    ExpectSameSuspects(a, alone, FindSuspects(a, so, {}, {.children = &unsorted}));
    ExpectSameSuspects(a, alone,
                       FindSuspects(a, so, {}, {.children = &unsorted, .merger = &merger}));
  }
  EXPECT_GT(type_suspects, 0u);
  EXPECT_GT(object_suspects, 0u);
}

// A heap of the shared passes' shape with its index and root-path forest (not copyable: the
// index refers to the snapshot, the forest to the index).
struct ForestHeap {
  explicit ForestHeap(uint32_t seed)
      : s(SharedPassesHeap(seed)), g(GraphIndex::Build(s)), forest(RootPathForest::Build(g)) {}
  ForestHeap(const ForestHeap&) = delete;
  ForestHeap& operator=(const ForestHeap&) = delete;
  const Snapshot s;
  const GraphIndex g;
  const RootPathForest forest;
};

TEST(SharedPasses, AMergerKeptAcrossSetsMergesEachAsAFreshOne) {
  size_t runs = 0;
  for (uint32_t seed : {21u, 22u, 23u}) {
    const ForestHeap h(seed);
    PathMerger kept(h.g, h.forest);
    for (int round = 0; round < 2; ++round) {  // the second round finds everything memoised
      for (uint32_t grp = 0; grp < h.g.group_count(); ++grp) {
        const MergedPaths want = MergeShortestPaths(h.g, h.forest, nullptr, grp, 4);
        const MergedPaths got = kept.Merge(h.g.Instances(grp), nullptr, 4);
        ASSERT_EQ(want.paths.size(), got.paths.size()) << grp;
        EXPECT_EQ(want.other_paths, got.other_paths) << grp;
        for (size_t k = 0; k < want.paths.size(); ++k) {
          const std::string label = MergedPathLabel(h.g, want.paths[k], " -> ");
          EXPECT_EQ(label, MergedPathLabel(h.g, got.paths[k], " -> ")) << grp;
          EXPECT_EQ(want.paths[k].count, got.paths[k].count) << grp;
          runs += label.find('+') != std::string::npos;
        }
      }
    }
  }
  EXPECT_GT(runs, 0u);  // runs of one type occur, so a leaked "+" would show
}

TEST(SharedPasses, AMergerMarksRunsAfterItsWalkMarksWrap) {
  // A merge marks the nodes it walks with a byte (1..255, every node forgotten when it wraps):
  // a set merged, then 254 merges that walk nothing, then the set again under the same byte.
  size_t checked = 0;
  for (uint32_t seed : {21u, 22u, 23u}) {
    const ForestHeap h(seed);
    for (uint32_t grp = 0; grp < h.g.group_count(); ++grp) {
      const MergedPaths want = MergeShortestPaths(h.g, h.forest, nullptr, grp, 1);
      if (want.paths.empty() ||
          MergedPathLabel(h.g, want.paths[0], " -> ").find('+') == std::string::npos)
        continue;
      PathMerger kept(h.g, h.forest);
      for (int wrap = 0; wrap < 2; ++wrap) {
        const MergedPaths got = kept.Merge(h.g.Instances(grp), nullptr, 1);
        ASSERT_EQ(got.paths.size(), 1u);
        EXPECT_EQ(MergedPathLabel(h.g, want.paths[0], " -> "),
                  MergedPathLabel(h.g, got.paths[0], " -> "))
            << seed << " " << grp << " " << wrap;
        for (int i = 0; i < 254; ++i) kept.Merge({}, nullptr, 1);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(SharedPasses, PathsMemoisedAheadMergeAsAFreshMergerDoes) {
  for (uint32_t seed : {24u, 25u}) {
    const ForestHeap h(seed);
    PathMerger ahead(h.g, h.forest);
    const std::atomic<bool> stopped{true}, running{false};
    EXPECT_EQ(ahead.Memoise(h.g.Instances(0), stopped), 0u);  // asked to stop before the first
    // Memoised in an order no Merge uses: the last group first, so the trie is numbered anew.
    for (uint32_t grp = h.g.group_count(); grp-- > 0;) {
      const auto instances = h.g.Instances(grp);
      ASSERT_EQ(ahead.Memoise(instances, running), instances.size()) << grp;
    }
    for (uint32_t grp = 0; grp < h.g.group_count(); ++grp) {
      const MergedPaths want = MergeShortestPaths(h.g, h.forest, nullptr, grp, 4);
      const MergedPaths got = ahead.Merge(h.g.Instances(grp), nullptr, 4);
      EXPECT_EQ(want.unreachable, got.unreachable) << grp;
      EXPECT_EQ(want.other_instances, got.other_instances) << grp;
      ASSERT_EQ(want.paths.size(), got.paths.size()) << grp;
      for (size_t k = 0; k < want.paths.size(); ++k) {
        EXPECT_EQ(MergedPathLabel(h.g, want.paths[k], " -> "),
                  MergedPathLabel(h.g, got.paths[k], " -> "))
            << grp;
        EXPECT_EQ(want.paths[k].count, got.paths[k].count) << grp;
        EXPECT_EQ(want.paths[k].example, got.paths[k].example) << grp;
      }
    }
  }
}

TEST(SharedPasses, ALargeSetMergedOnTwoThreadsAsOnOne) {
  // From 65,536 instances on, a Merge asked for two threads tallies each half on its own, the
  // walk's marks shared: the same paths, counts, runs and examples as on one thread.
  const Snapshot s = testing::MakeHeap({.seed = 26, .objects = 400'000, .types = 3});
  const GraphIndex g = GraphIndex::Build(s);
  const RootPathForest forest = RootPathForest::Build(g);
  const DominatorTree dom = DominatorTree::Compute(g);
  PathMerger one(g, forest), two(g, forest);
  size_t large = 0, runs = 0;
  for (int round = 0; round < 2; ++round) {  // the second with every path memoised
    for (uint32_t grp = 0; grp < g.group_count(); ++grp) {
      const auto instances = g.Instances(grp);
      large += instances.size() >= 65'536;
      const MergedPaths want = one.Merge(instances, &dom, 6, 1);
      const MergedPaths got = two.Merge(instances, &dom, 6, 2);
      EXPECT_EQ(want.instances, got.instances) << grp;
      EXPECT_EQ(want.unreachable, got.unreachable) << grp;
      EXPECT_EQ(want.other_paths, got.other_paths) << grp;
      EXPECT_EQ(want.other_instances, got.other_instances) << grp;
      ASSERT_EQ(want.paths.size(), got.paths.size()) << grp;
      for (size_t k = 0; k < want.paths.size(); ++k) {
        const std::string label = MergedPathLabel(g, want.paths[k], " -> ");
        EXPECT_EQ(label, MergedPathLabel(g, got.paths[k], " -> ")) << grp;
        EXPECT_EQ(want.paths[k].count, got.paths[k].count) << grp;
        EXPECT_EQ(want.paths[k].shallow_bytes, got.paths[k].shallow_bytes) << grp;
        EXPECT_EQ(want.paths[k].retained_bytes, got.paths[k].retained_bytes) << grp;
        EXPECT_EQ(want.paths[k].example, got.paths[k].example) << grp;
        runs += label.find('+') != std::string::npos;
      }
    }
  }
  EXPECT_GT(large, 0u);
  EXPECT_GT(runs, 0u);
}

TEST(SharedPasses, SetsMergedOnSeveralThreadsAreMergedAsOneAfterAnother) {
  size_t runs = 0;
  for (uint32_t seed : {26u, 27u}) {
    const Snapshot s = SharedPassesHeap(seed);
    const HeapAnalysis a = HeapAnalysis::Run(s);
    const GraphIndex& g = a.index;
    const RootPathForest forest = RootPathForest::Build(g);
    std::vector<std::span<const uint32_t>> sets;
    for (uint32_t grp = 0; grp < g.group_count(); ++grp) sets.push_back(g.Instances(grp));
    sets.push_back(g.Instances(0));  // a set twice: each merge marks its own runs
    for (const unsigned threads : {1u, 2u, 3u}) {
      PathMerger merger(g, forest);
      merger.Merge(g.Instances(1), &a.dom, 2);  // part of the memo there already
      const std::vector<MergedPaths> got = merger.MergeEach(sets, &a.dom, 4, threads);
      ASSERT_EQ(got.size(), sets.size());
      for (size_t i = 0; i < sets.size(); ++i) {
        const uint32_t grp = i < g.group_count() ? uint32_t(i) : 0;
        const MergedPaths want = MergeShortestPaths(g, forest, &a.dom, grp, 4);
        EXPECT_EQ(want.instances, got[i].instances) << threads << " " << i;
        EXPECT_EQ(want.unreachable, got[i].unreachable) << threads << " " << i;
        EXPECT_EQ(want.other_paths, got[i].other_paths) << threads << " " << i;
        EXPECT_EQ(want.other_instances, got[i].other_instances) << threads << " " << i;
        ASSERT_EQ(want.paths.size(), got[i].paths.size()) << threads << " " << i;
        for (size_t k = 0; k < want.paths.size(); ++k) {
          const std::string label = MergedPathLabel(g, want.paths[k], " -> ");
          EXPECT_EQ(label, MergedPathLabel(g, got[i].paths[k], " -> ")) << threads << " " << i;
          EXPECT_EQ(want.paths[k].count, got[i].paths[k].count) << threads << " " << i;
          EXPECT_EQ(want.paths[k].retained_bytes, got[i].paths[k].retained_bytes) << i;
          EXPECT_EQ(want.paths[k].example, got[i].paths[k].example) << threads << " " << i;
          runs += label.find('+') != std::string::npos;
        }
      }
      // The merger goes on merging one set at a time as before.
      const MergedPaths again = merger.Merge(g.Instances(0), &a.dom, 4);
      EXPECT_EQ(again.other_paths, got[0].other_paths);
    }
    EXPECT_TRUE(PathMerger(g, forest).MergeEach({}, &a.dom, 4, 2).empty());
  }
  EXPECT_GT(runs, 0u);  // runs of one type occur, so a "+" marked by the wrong merge would show
}

TEST(SharedPasses, SuspectsAreTheSameOnOneThreadAndOnSeveral) {
  size_t type_suspects = 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Snapshot s = SharedPassesHeap(seed);
    const HeapAnalysis a = HeapAnalysis::Run(s);
    SuspectOptions one, several;
    one.min_share = several.min_share = 0.02;
    one.threads = 1;
    several.threads = 2;
    const std::vector<Suspect> want = FindSuspects(a, one);
    for (const Suspect& x : want) type_suspects += x.kind == Suspect::Kind::kType;
    ExpectSameSuspects(a, want, FindSuspects(a, several));
  }
  EXPECT_GT(type_suspects, 1u);  // more than one set to merge at once
}

TEST(SharedPasses, SuspectsAreTheSameWithTheirPathsPreparedAhead) {
  size_t type_suspects = 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Snapshot s = SharedPassesHeap(seed);
    const HeapAnalysis a = HeapAnalysis::Run(s);
    SuspectOptions so;
    so.min_share = 0.02;
    const std::vector<Suspect> alone = FindSuspects(a, so);
    for (const Suspect& x : alone) type_suspects += x.kind == Suspect::Kind::kType;
    const RootPathForest forest = RootPathForest::Build(a.index);
    PathMerger merger(a.index, forest);
    const std::atomic<bool> running{false};
    EXPECT_GT(PrepareTypeSuspectPaths(a.index, forest, merger, so, running), 0u);
    const std::atomic<bool> stopped{true};
    EXPECT_EQ(PrepareTypeSuspectPaths(a.index, forest, merger, so, stopped), 0u);
    ExpectSameSuspects(a, alone, FindSuspects(a, so, {}, {.merger = &merger}));
  }
  EXPECT_GT(type_suspects, 0u);
}

TEST(SharedPasses, InspectionsHandOnTheirForestOnlyWhenNothingWasDeferred) {
  {  // no delegates: the plain forest
    const Snapshot s = SharedPassesHeap(5);
    const GraphIndex g = GraphIndex::Build(s);
    InspectionPaths paths;
    const std::vector<Inspection> with = RunInspections(g, {}, {}, &paths);
    ASSERT_TRUE(paths.forest);
    ASSERT_TRUE(paths.merger);
    const RootPathForest plain = RootPathForest::Build(g);
    for (uint32_t v = 0; v < g.node_count(); ++v)
      ASSERT_EQ(paths.forest->parent(v), plain.parent(v));
    EXPECT_EQ(with.size(), RunInspections(g).size());
  }
  {  // delegates with targets: their edges were taken last, so the forest is not the plain one
    const Snapshot s = testing::MakeInspectGame();
    const GraphIndex g = GraphIndex::Build(s);
    InspectionPaths paths;
    RunInspections(g, {}, {}, &paths);
    EXPECT_FALSE(paths.forest);
    EXPECT_FALSE(paths.merger);
  }
}

TEST(SharedPasses, ReportSuspectsAreTheOnesFoundAlone) {
  for (uint32_t seed : {11u, 12u}) {
    const Snapshot s = SharedPassesHeap(seed);
    const HeapAnalysis a = HeapAnalysis::Run(s);
    SuspectOptions so;
    so.min_share = 0.03;
    ExpectSameSuspects(a, FindSuspects(a, so), BuildHeapReport(a, {.min_share = 0.03}).suspects);
  }
  const Snapshot game = testing::GameSnapshot(10, 0, 2000, 0x10000000);
  const HeapAnalysis a = HeapAnalysis::Run(game);
  ExpectSameSuspects(a, FindSuspects(a), BuildHeapReport(a).suspects);
}

TEST(SharedPasses, RunSharedPassesGivesWhatEachPassGivesAlone) {
  std::vector<Snapshot> heaps;
  heaps.push_back(SharedPassesHeap(33));
  heaps.push_back(testing::MakeInspectGame());  // delegates: the plain forest is built apart
  for (const Snapshot& s : heaps) {
    const HeapAnalysis alone = HeapAnalysis::Run(s);
    const GraphIndex& g = alone.index;
    const RootPathForest plain = RootPathForest::Build(g);
    const DominatorChildren children = DominatorChildren::Build(alone.dom);
    const std::vector<Inspection> inspections = RunInspections(g);
    for (unsigned threads : {1u, 2u}) {
      HeapAnalysis a = HeapAnalysis::Indexed(s, {.threads = threads});
      SuspectOptions so;
      so.min_share = 0.03;
      SharedPasses p = RunSharedPasses(
          a, {.threads = threads, .suspects = so, .plain_forest = true, .children = true});
      for (uint32_t v = 0; v < g.node_count(); ++v) {
        ASSERT_EQ(a.dom.idom(v), alone.dom.idom(v)) << v;
        ASSERT_EQ(a.dom.retained(v), alone.dom.retained(v)) << v;
        ASSERT_EQ(p.paths.forest->parent(v), plain.parent(v)) << v;
      }
      for (uint32_t grp = 0; grp < g.group_count(); ++grp)
        EXPECT_EQ(a.types[grp].retained_bytes, alone.types[grp].retained_bytes) << grp;
      for (uint32_t v = 0; v <= g.node_count(); ++v) {
        const auto want = children.Children(v), got = p.children.Children(v);
        ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin(), got.end())) << v;
      }
      ASSERT_EQ(p.inspections.size(), inspections.size());
      for (size_t i = 0; i < inspections.size(); ++i) {
        EXPECT_EQ(p.inspections[i].total_count, inspections[i].total_count);
        EXPECT_EQ(p.inspections[i].total_bytes, inspections[i].total_bytes);
      }
      ExpectSameSuspects(alone, FindSuspects(alone, so),
                         FindSuspects(a, so, {}, {.merger = p.paths.merger.get()}));
    }
  }
}

TEST(SharedPasses, AnalyseAndReportIsRunThenBuildHeapReport) {
  for (unsigned threads : {1u, 2u}) {
    const Snapshot s = SharedPassesHeap(31);
    const HeapAnalysis a = HeapAnalysis::Run(s);
    const HeapReport want = BuildHeapReport(a, {.min_share = 0.03});
    const AnalysedReport got = AnalyseAndReport(s, {.min_share = 0.03}, {.threads = threads});
    EXPECT_EQ(got.a.dom.reachable_bytes(), a.dom.reachable_bytes());
    EXPECT_EQ(got.report.totals.reachable_objects, want.totals.reachable_objects);
    EXPECT_EQ(got.report.top_types, want.top_types);
    ExpectSameSuspects(a, want.suspects, got.report.suspects);
    ASSERT_EQ(got.report.inspections.size(), want.inspections.size());
    for (size_t i = 0; i < want.inspections.size(); ++i) {
      const Inspection &x = want.inspections[i], &y = got.report.inspections[i];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.total_count, y.total_count) << x.name;
      EXPECT_EQ(x.total_bytes, y.total_bytes) << x.name;
      ASSERT_EQ(x.findings.size(), y.findings.size()) << x.name;
      for (size_t k = 0; k < x.findings.size(); ++k) {
        EXPECT_EQ(x.findings[k].what, y.findings[k].what);
        EXPECT_EQ(x.findings[k].path, y.findings[k].path);
        EXPECT_EQ(x.findings[k].objects, y.findings[k].objects);
      }
    }
  }
}

}  // namespace
}  // namespace xrpm::analysis
