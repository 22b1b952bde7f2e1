// Paths to roots and merged shortest paths on hand-made heaps.
#include <gtest/gtest.h>

#include "heap_builder.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/paths.h"

namespace xrpm::analysis {
namespace {

using testing::HeapBuilder;

// Game (static of class Game) -> List -> Enemy[] -> 3 Enemy; Enemy 0x400 -> Texture 0x500.
// Player (local root) -> Texture 0x500, Enemy 0x430. Cache (weak root) -> Texture 0x510.
struct GameHeap {
  Snapshot snap;
  GraphIndex g;
  DominatorTree dom;
  GameHeap() {
    HeapBuilder b;
    b.Obj(0x100, "Game", 40, {0x200});
    b.Obj(0x200, "List", 24, {0x300});
    b.Obj(0x300, "Enemy[]", 28, {0x400, 0x410, 0x420});
    b.Obj(0x400, "Enemy", 32, {0x500});
    b.Obj(0x410, "Enemy", 32);
    b.Obj(0x420, "Enemy", 32, {0xdead});
    b.Obj(0x430, "Enemy", 32);
    b.Obj(0x500, "Texture", 1000);
    b.Obj(0x510, "Texture", 2000);
    b.Obj(0x600, "Player", 16, {0x500, 0x430});
    b.Obj(0x700, "Cache", 16, {0x510});
    const TypeId game = b.RawTypeId("Game");
    b.Root(0x100, RootKind::kStatic, 0, game);
    b.Root(0x600, RootKind::kLocal, kRootPinned);
    b.Root(0x700, RootKind::kHandle, kRootWeak);
    snap = b.Build();
    snap.root_origins.push_back("thread 1 / Game1.Update");
    snap.root_origin[1] = 0;
    g = GraphIndex::Build(snap);
    dom = DominatorTree::Compute(g);
  }
  uint32_t N(ObjectId id) const { return g.Find(id); }
  std::vector<uint32_t> Nodes(std::initializer_list<ObjectId> ids) const {
    std::vector<uint32_t> v;
    for (ObjectId id : ids) v.push_back(N(id));
    return v;
  }
};

TEST(Paths, ShortestPathPrefersTheNearestRoot) {
  GameHeap h;
  PathFinder f(h.g);
  RootPath p = f.ShortestPathToRoot(h.N(0x500));
  ASSERT_TRUE(p.found());
  EXPECT_EQ(p.nodes, h.Nodes({0x500, 0x600}));
  RootDescription r = DescribeRoot(h.g, p.root_record);
  EXPECT_EQ(r.kind, RootKind::kLocal);
  EXPECT_EQ(r.flags, kRootPinned);
  EXPECT_EQ(r.origin, "thread 1 / Game1.Update");
  EXPECT_EQ(RootLabel(r), "local (pinned) [thread 1 / Game1.Update]");

  p = f.ShortestPathToRoot(h.N(0x410));
  ASSERT_TRUE(p.found());
  EXPECT_EQ(p.nodes, h.Nodes({0x410, 0x300, 0x200, 0x100}));
  r = DescribeRoot(h.g, p.root_record);
  EXPECT_EQ(r.kind, RootKind::kStatic);
  EXPECT_EQ(r.container, "Game");
  EXPECT_EQ(RootLabel(r), "static Game");

  p = f.ShortestPathToRoot(h.N(0x100));  // a root itself
  EXPECT_EQ(p.nodes, h.Nodes({0x100}));
}

TEST(Paths, WeakRootsDoNotCount) {
  GameHeap h;
  PathFinder f(h.g);
  EXPECT_FALSE(f.ShortestPathToRoot(h.N(0x510)).found());
  EXPECT_FALSE(f.ShortestPathToRoot(h.N(0x700)).found());
  EXPECT_FALSE(h.dom.reachable(h.N(0x510)));
  // The finder is reusable after a failed search.
  EXPECT_EQ(f.ShortestPathToRoot(h.N(0x420)).nodes, h.Nodes({0x420, 0x300, 0x200, 0x100}));
  EXPECT_FALSE(f.ShortestPathToRoot(kNoIndex).found());
}

// A Holder reachable in two steps both from a conservatively scanned stack slot (recorded
// first) and from a static; a Pinned object rooted directly by a conservative slot and a handle.
struct TiedRootsHeap {
  Snapshot snap;
  GraphIndex g;
  TiedRootsHeap() {
    HeapBuilder b;
    b.Obj(0xc00, "Temp", 16, {0xb00});
    b.Obj(0xa00, "Registry", 16, {0xb00});
    b.Obj(0xb00, "Holder", 24);
    b.Obj(0xd00, "Pinned", 24);
    b.Root(0xc00, RootKind::kLocal, kRootConservative);
    b.Root(0xd00, RootKind::kLocal, kRootConservative);
    b.Root(0xa00, RootKind::kStatic, 0, b.RawTypeId("Registry"));
    b.Root(0xd00, RootKind::kHandle, kRootPinned);
    snap = b.Build();
    g = GraphIndex::Build(snap);
  }
  uint32_t N(ObjectId id) const { return g.Find(id); }
};

TEST(Paths, RootsAUserCanActOnComeFirst) {
  EXPECT_LT(RootRank(RootKind::kStatic, 0), RootRank(RootKind::kHandle, kRootPinned));
  EXPECT_LT(RootRank(RootKind::kHandle, 0), RootRank(RootKind::kLocal, 0));
  EXPECT_LT(RootRank(RootKind::kLocal, kRootPinned), RootRank(RootKind::kFinalizer, 0));
  EXPECT_LT(RootRank(RootKind::kFinalizer, 0), RootRank(RootKind::kInternal, 0));
  EXPECT_LT(RootRank(RootKind::kInternal, 0), RootRank(RootKind::kLocal, kRootConservative));
}

TEST(Paths, AmongEqualPathsTheStaticBeatsAConservativeStackSlot) {
  TiedRootsHeap h;
  PathFinder f(h.g);
  RootPathForest forest = RootPathForest::Build(h.g);
  for (const RootPath& p : {f.ShortestPathToRoot(h.N(0xb00)), forest.PathTo(h.N(0xb00))}) {
    ASSERT_TRUE(p.found());
    EXPECT_EQ(p.nodes, (std::vector<uint32_t>{h.N(0xb00), h.N(0xa00)}));
    EXPECT_EQ(h.snap.root_kind_of(p.root_record), RootKind::kStatic);
  }
  // An object rooted twice names the better root; a conservative root says so.
  EXPECT_EQ(h.snap.root_kind_of(h.g.StrongRootRecord(h.N(0xd00))), RootKind::kHandle);
  EXPECT_EQ(RootLabel(DescribeRoot(h.g, h.g.StrongRootRecord(h.N(0xc00)))), "local (conservative)");
  EXPECT_EQ(h.g.StrongRoots().front(), h.N(0xa00));
  EXPECT_EQ(h.g.StrongRoots().back(), h.N(0xc00));
  // Merged, the temp's path says its root was found conservatively.
  const MergedPaths m = MergeShortestPaths(h.g, forest, nullptr, h.g.FindGroup("Temp"));
  ASSERT_EQ(m.paths.size(), 1u);
  EXPECT_TRUE(m.paths[0].root_conservative);
  EXPECT_EQ(MergedPathLabel(h.g, m.paths[0], " -> "), "local (conservative) -> Temp");
  // The temp, rooted only conservatively, still has its path.
  EXPECT_EQ(f.ShortestPathToRoot(h.N(0xc00)).nodes, (std::vector<uint32_t>{h.N(0xc00)}));
}

TEST(Paths, ForestGivesShortestPathsToo) {
  GameHeap h;
  RootPathForest forest = RootPathForest::Build(h.g);
  PathFinder f(h.g);
  for (uint32_t v = 0; v < h.g.node_count(); ++v) {
    RootPath a = forest.PathTo(v), b = f.ShortestPathToRoot(v);
    EXPECT_EQ(a.found(), b.found()) << v;
    EXPECT_EQ(a.nodes.size(), b.nodes.size()) << v;
    if (a.found()) {
      EXPECT_EQ(a.nodes.front(), v);
    }
  }
  EXPECT_EQ(forest.PathTo(h.N(0x500)).nodes, h.Nodes({0x500, 0x600}));
}

// Without referrer lists (a lean index) PathFinder searches forward from the roots: the
// forest's path, found per query, and as short as the search from the object.
TEST(Paths, PathFinderWithoutReferrersGivesTheForestsPaths) {
  GameHeap h;
  const GraphIndex lean = GraphIndex::Build(h.snap, {.reverse = false, .forward = false});
  ASSERT_FALSE(lean.has_reverse());
  RootPathForest forest = RootPathForest::Build(lean);
  PathFinder f(lean), full(h.g);
  for (int round = 0; round < 2; ++round)  // the marks are reset between queries
    for (uint32_t v = 0; v < lean.node_count(); ++v) {
      const RootPath p = f.ShortestPathToRoot(v);
      EXPECT_EQ(p.nodes, forest.PathTo(v).nodes) << v;
      EXPECT_EQ(p.root_record, forest.PathTo(v).root_record) << v;
      EXPECT_EQ(p.nodes.size(), full.ShortestPathToRoot(v).nodes.size()) << v;
    }
  EXPECT_EQ(f.ShortestPathToRoot(h.N(0x410)).nodes, h.Nodes({0x410, 0x300, 0x200, 0x100}));
  EXPECT_FALSE(f.ShortestPathToRoot(h.N(0x510)).found());  // held by a weak handle only
}

TEST(Paths, MergesShortestPathsOfAllInstances) {
  GameHeap h;
  RootPathForest forest = RootPathForest::Build(h.g);
  MergedPaths m = MergeShortestPaths(h.g, forest, &h.dom, h.g.FindGroup("Enemy"));
  EXPECT_EQ(m.instances, 4u);
  EXPECT_EQ(m.unreachable, 0u);
  ASSERT_EQ(m.paths.size(), 2u);
  const MergedPath& top = m.paths[0];
  EXPECT_EQ(top.count, 3u);
  EXPECT_EQ(top.shallow_bytes, 96u);
  EXPECT_EQ(top.retained_bytes, 96u);  // the Texture is shared with Player
  EXPECT_EQ(top.root_kind, RootKind::kStatic);
  ASSERT_NE(top.root_container, kNoIndex);
  EXPECT_EQ(h.snap.types[top.root_container].name, "Game");
  std::vector<std::string> names;
  for (const MergedStep& s : top.steps) names.push_back(h.g.group_name(s.group));
  EXPECT_EQ(names, (std::vector<std::string>{"Game", "List", "Enemy[]", "Enemy"}));
  EXPECT_EQ(top.example, h.N(0x400));
  EXPECT_EQ(MergedPathLabel(h.g, top, " -> "), "static Game -> Game -> List -> Enemy[] -> Enemy");
  EXPECT_EQ(m.paths[1].count, 1u);
  EXPECT_EQ(m.paths[1].root_kind, RootKind::kLocal);
  EXPECT_EQ(m.paths[1].steps.size(), 2u);

  MergedPaths one = MergeShortestPaths(h.g, forest, &h.dom, h.g.FindGroup("Enemy"), 1);
  EXPECT_EQ(one.paths.size(), 1u);
  EXPECT_EQ(one.other_paths, 1u);
  EXPECT_EQ(one.other_instances, 1u);

  MergedPaths tex = MergeShortestPaths(h.g, forest, nullptr, h.g.FindGroup("Texture"));
  EXPECT_EQ(tex.unreachable, 1u);  // only weakly held
  ASSERT_EQ(tex.paths.size(), 1u);
  EXPECT_EQ(tex.paths[0].retained_bytes, 0u);  // no dominator tree given
}

TEST(Paths, LinkedListNodesShareOneCollapsedPath) {
  HeapBuilder b;
  const uint32_t n = 200'000;  // deep enough to catch any recursion
  b.Obj(0x10, "Holder", 16, {0x1000});
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<ObjectId> next;
    if (i + 1 < n) next.push_back(0x1000 + 16ull * (i + 1));
    next.push_back(0x10000000 + 16ull * i);
    b.Obj(0x1000 + 16ull * i, "Node", 12, next);
    b.Obj(0x10000000 + 16ull * i, "Item", 20);
  }
  b.Root(0x10, RootKind::kStatic, 0, b.RawTypeId("Holder"));
  Snapshot s = b.Build();
  GraphIndex g = GraphIndex::Build(s);
  RootPathForest forest = RootPathForest::Build(g);
  MergedPaths m = MergeShortestPaths(g, forest, nullptr, g.FindGroup("Item"));
  ASSERT_EQ(m.paths.size(), 1u);
  EXPECT_EQ(m.paths[0].count, n);
  ASSERT_EQ(m.paths[0].steps.size(), 3u);
  EXPECT_EQ(g.group_name(m.paths[0].steps[1].group), "Node");
  EXPECT_TRUE(m.paths[0].steps[1].repeated);
  EXPECT_FALSE(m.paths[0].steps[0].repeated);
  EXPECT_EQ(MergedPathLabel(g, m.paths[0], " > "), "static Holder > Holder > Node+ > Item");
  EXPECT_EQ(forest.PathTo(g.Find(0x10000000 + 16ull * (n - 1))).nodes.size(), n + 2);
}

TEST(Paths, TwoThreadsSeeTheRunsOnEitherHalf) {
  // 70,000 Items (a Merge on two threads tallies each half on its own): the first half hangs
  // from Box[] -> Box, the second from Box[] -> Box -> Box. Only the second half's paths have
  // the run, and the merged path reads "Box+" on two threads as on one.
  HeapBuilder b;
  const uint32_t n = 70'000;
  std::vector<ObjectId> boxes;
  for (uint32_t i = 0; i < n; ++i) {
    const ObjectId box = 0x100000 + 32ull * i, item = 0x10000000 + 16ull * i;
    boxes.push_back(box);
    if (i < n / 2) {
      b.Obj(box, "Box", 12, {item});
    } else {
      const ObjectId inner = 0x20000000 + 32ull * i;
      b.Obj(box, "Box", 12, {inner});
      b.Obj(inner, "Box", 12, {item});
    }
    b.Obj(item, "Item", 20);
  }
  b.Obj(0x10, "Holder", 16, {0x20});
  b.Obj(0x20, "Box[]", 16 + 4 * n, boxes);
  b.Root(0x10, RootKind::kStatic, 0, b.RawTypeId("Holder"));
  const Snapshot s = b.Build();
  const GraphIndex g = GraphIndex::Build(s);
  const RootPathForest forest = RootPathForest::Build(g);
  const auto items = g.Instances(g.FindGroup("Item"));
  ASSERT_EQ(items.size(), n);
  for (unsigned threads : {1u, 2u}) {
    PathMerger merger(g, forest);
    const MergedPaths m = merger.Merge(items, nullptr, 3, threads);
    ASSERT_EQ(m.paths.size(), 1u) << threads;
    EXPECT_EQ(m.paths[0].count, n);
    EXPECT_EQ(MergedPathLabel(g, m.paths[0], " > "), "static Holder > Holder > Box[] > Box+ > Item")
        << threads;
    // The first half alone (one thread's worth) has no run.
    const MergedPaths first = merger.Merge(items.first(n / 2), nullptr, 3, threads);
    ASSERT_EQ(first.paths.size(), 1u);
    EXPECT_EQ(MergedPathLabel(g, first.paths[0], " > "),
              "static Holder > Holder > Box[] > Box > Item");
  }
}

}  // namespace
}  // namespace xrpm::analysis
