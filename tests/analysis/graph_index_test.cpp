// GraphIndex: dangling and duplicate ids, roots, type groups, and
// that the parallel build equals the serial one.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "heap_builder.h"
#include "xrpm/analysis/graph_index.h"

namespace xrpm::analysis {
namespace {

using testing::HeapBuilder;

std::vector<uint32_t> ToVec(std::span<const uint32_t> s) {
  return {s.begin(), s.end()};
}

TEST(GraphIndex, SkipsDanglingReferencesAndCountsThem) {
  HeapBuilder b;
  b.Obj(0x10, "A", 8, {0x20, 0xdead, 0x30, 0x20}).Obj(0x20, "B", 8, {0x10, 0xbeef});
  b.Obj(0x30, "A", 8, {0x30});
  Snapshot s = b.Build();
  GraphIndex g = GraphIndex::Build(s);
  EXPECT_EQ(g.node_count(), 3u);
  EXPECT_EQ(g.dangling_refs(), 2u);
  EXPECT_EQ(g.edge_count(), 5u);
  EXPECT_EQ(ToVec(g.Out(0)), (std::vector<uint32_t>{1, 2, 1}));
  EXPECT_EQ(ToVec(g.Out(1)), (std::vector<uint32_t>{0}));
  EXPECT_EQ(ToVec(g.Out(2)), (std::vector<uint32_t>{2}));
  EXPECT_EQ(ToVec(g.In(0)), (std::vector<uint32_t>{1}));
  EXPECT_EQ(ToVec(g.In(1)), (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(ToVec(g.In(2)), (std::vector<uint32_t>{0, 2}));

  // Without the reverse CSR: the same forward edges, every in-list empty.
  GraphIndex f = GraphIndex::Build(s, {.reverse = false});
  EXPECT_EQ(f.edge_count(), 5u);
  EXPECT_EQ(ToVec(f.Out(0)), (std::vector<uint32_t>{1, 2, 1}));
  for (uint32_t v = 0; v < 3; ++v) EXPECT_TRUE(f.In(v).empty());
}

TEST(GraphIndex, WeakRootsDoNotMakeStrongRoots) {
  HeapBuilder b;
  b.Obj(0x10, "A", 8).Obj(0x20, "A", 8).Obj(0x30, "A", 8).Obj(0x40, "A", 8);
  b.Root(0x20, RootKind::kHandle, kRootWeak);
  b.Root(0x30, RootKind::kHandle, kRootWeak | kRootPinned);
  b.Root(0x30, RootKind::kLocal, kRootPinned);  // also strongly rooted
  b.Root(0x10, RootKind::kStatic, 0, 0x99);
  b.Root(0x10, RootKind::kLocal);
  b.Root(0x50, RootKind::kLocal);  // dangling
  Snapshot s = b.Build();
  GraphIndex g = GraphIndex::Build(s);
  // Best root first: node 0's static, then node 2's local (record order among equal ranks).
  EXPECT_EQ(ToVec(g.StrongRoots()), (std::vector<uint32_t>{0, 2}));
  EXPECT_TRUE(g.IsStrongRoot(0));
  EXPECT_FALSE(g.IsStrongRoot(1));
  EXPECT_TRUE(g.IsStrongRoot(2));
  EXPECT_FALSE(g.IsStrongRoot(3));
  EXPECT_EQ(g.StrongRootRecord(0), 3u);
  EXPECT_EQ(g.StrongRootRecord(2), 2u);
  EXPECT_EQ(g.StrongRootRecord(1), kNoIndex);
  EXPECT_EQ(g.weak_only_roots(), 1u);
  EXPECT_EQ(g.dangling_roots(), 1u);
  EXPECT_EQ(g.root_node(5), kNoIndex);
  EXPECT_EQ(g.root_container_type(3), kNoIndex);  // raw id 0x99 names no type
}

TEST(GraphIndex, GroupsTypesByNameAcrossSections) {
  Snapshot s;
  s.AddSection({.name = "a.exe"});
  const uint32_t str1 = s.AddType(1, "System.String", 0), game = s.AddType(2, "Game", 0);
  s.AddObject(0x10, str1, 20, {});
  s.AddObject(0x20, game, 40, {});
  s.AddRoot(0x20, RootKind::kStatic, 0, 2);
  s.CloseSectionRanges();
  s.AddSection({.name = "a.exe"});
  const uint32_t str2 = s.AddType(7, "System.String", 1), other = s.AddType(2, "Other", 1);
  s.AddObject(0x30, str2, 24, {});
  s.AddObject(0x40, other, 8, {});
  s.AddRoot(0x40, RootKind::kStatic, 0, 2);  // raw id 2 is "Other" in this section
  s.CloseSectionRanges();
  GraphIndex g = GraphIndex::Build(s);
  EXPECT_EQ(g.group_count(), 3u);
  const uint32_t str = g.FindGroup("System.String");
  ASSERT_NE(str, kNoIndex);
  EXPECT_EQ(g.group_of_type(str1), g.group_of_type(str2));
  EXPECT_EQ(ToVec(g.Instances(str)), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(g.FindGroup("Nope"), kNoIndex);
  EXPECT_EQ(g.root_container_type(0), game);
  EXPECT_EQ(g.root_container_type(1), other);
}

TEST(GraphIndex, RejectsObjectsWithoutAType) {
  Snapshot s;
  s.AddType(1, "A", 0);
  s.AddObject(0x10, 3, 8, {});
  EXPECT_THROW(GraphIndex::Build(s), std::invalid_argument);
}

TEST(GraphIndex, ParallelBuildEqualsSerialBuild) {
  std::mt19937_64 rng(99);
  for (bool shuffled : {false, true}) {
    const uint32_t n = 400'000;
    std::vector<ObjectId> ids(n);
    for (uint32_t i = 0; i < n; ++i) ids[i] = 0x100000 + 32ull * i;
    if (shuffled) std::shuffle(ids.begin(), ids.end(), rng);
    Snapshot s;
    s.AddType(1, "T", 0);
    std::vector<ObjectId> refs;
    for (uint32_t i = 0; i < n; ++i) {
      refs.clear();
      for (uint64_t k = rng() % 6; k > 0; --k) refs.push_back(rng() % 50 ? ids[rng() % n] : 0xdead);
      s.AddObject(ids[i], 0, 16, refs);
    }
    for (int r = 0; r < 100; ++r) s.AddRoot(ids[rng() % n], RootKind::kLocal, rng() % 4);
    GraphIndex one = GraphIndex::Build(s, {.threads = 1});
    for (unsigned threads : {2u, 3u}) {
      GraphIndex many = GraphIndex::Build(s, {.threads = threads});
      ASSERT_EQ(one.edge_count(), many.edge_count());
      ASSERT_EQ(one.dangling_refs(), many.dangling_refs());
      for (uint32_t v = 0; v < n; ++v) {
        ASSERT_TRUE(std::ranges::equal(one.Out(v), many.Out(v))) << v;
        ASSERT_TRUE(std::ranges::equal(one.In(v), many.In(v))) << v;
      }
      ASSERT_TRUE(std::ranges::equal(one.StrongRoots(), many.StrongRoots()));
    }
    EXPECT_GT(one.dangling_refs(), 0u);
  }
}

// Referrers and OutList give In(v) and Out(v) on every form of the index: from the CSRs, or
// found in the snapshot's own references (a scan by id, on one thread or several).
TEST(GraphIndex, ReferrersAndOutListsWithoutTheCsrsEqualTheCsrs) {
  std::mt19937_64 rng(7);
  const uint32_t n = 100'000;  // ~200 k references: the scan runs in several chunks
  std::vector<ObjectId> ids(n);
  for (uint32_t i = 0; i < n; ++i) ids[i] = 0x1000 + 16ull * i;
  ids[n - 1] = ids[5];  // a duplicate id: references to it resolve to node 5 alone
  Snapshot s;
  s.AddType(1, "T", 0);
  std::vector<ObjectId> refs;
  for (uint32_t i = 0; i < n; ++i) {
    refs.clear();
    for (uint64_t k = rng() % 5; k > 0; --k)
      refs.push_back(rng() % 40 ? ids[rng() % 60] : 0xdead);  // 60 targets, many referrers
    s.AddObject(ids[i], 0, 16, refs);
  }
  const GraphIndex full = GraphIndex::Build(s);
  ASSERT_TRUE(full.has_reverse());
  EXPECT_GT(full.In(5).size(), 1000u);
  EXPECT_TRUE(full.In(n - 1).empty());
  for (const GraphIndexOptions& o : {GraphIndexOptions{.reverse = false},
                                     GraphIndexOptions{.reverse = false, .forward = false}}) {
    const GraphIndex g = GraphIndex::Build(s, o);
    EXPECT_FALSE(g.has_reverse());
    for (uint32_t v = 0; v < n; v += v < 64 ? 1 : 997) {  // the targets, and some others
      ASSERT_EQ(g.OutList(v), ToVec(full.Out(v))) << v;
      for (unsigned threads : {1u, 3u})
        ASSERT_EQ(g.Referrers(v, threads), ToVec(full.In(v))) << v << " on " << threads;
    }
    EXPECT_TRUE(g.Referrers(n - 1).empty());  // its id is node 5's
  }
}

TEST(GraphIndex, CancelFlagStopsTheBuild) {
  Snapshot s;
  s.AddType(1, "T", 0);
  for (uint32_t i = 0; i < 300'000; ++i) {
    const ObjectId next = 0x10 * (i + 2);
    s.AddObject(0x10 * (i + 1), 0, 8, std::span<const ObjectId>(&next, 1));
  }
  std::atomic<bool> cancel{true};
  EXPECT_THROW(GraphIndex::Build(s, {}, Progress{.cancel = &cancel}), Cancelled);
}

}  // namespace
}  // namespace xrpm::analysis
