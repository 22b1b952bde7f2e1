// ctest-labels: threaded
// The collector against a reference reachability model on random graphs, with every root kind,
// pinning, weak handles and finalization; compaction moving objects; long chains; budget.
#include <gtest/gtest.h>

#include "test_graph.h"
#include "xrpm/emulator/method_frame_scope.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator::test {
namespace {

RuntimeConfig SmallConfig() {
  RuntimeConfig c;
  c.heap_reserve_bytes = 256u << 20;
  return c;
}

// Expected ids after one collection of `g`: strongly reachable, plus what unreachable
// finalizable objects keep alive until their finalizers run.
struct Expectation {
  std::set<int64_t> strong, survivors, queued;
};

Expectation Expect(const GraphSpec& g, const TestTypes& t) {
  Expectation e;
  e.strong = StrongReach(g, t);
  std::vector<int64_t> resurrected;
  for (size_t i = 0; i < g.type.size(); ++i)
    if (g.type[i] == t.finalizable && !e.strong.count(static_cast<int64_t>(i)))
      resurrected.push_back(static_cast<int64_t>(i));
  e.queued.insert(resurrected.begin(), resurrected.end());
  e.survivors = ReachFrom(g, resurrected, e.strong);
  return e;
}

void CheckHeapMatches(Runtime& rt, const TestTypes& t, const GraphSpec& g,
                      const std::set<int64_t>& expected) {
  auto heap = HeapContents(rt, t);
  std::set<int64_t> got;
  for (auto& [id, v] : heap) got.insert(id);
  ASSERT_EQ(got, expected);
  // Every surviving object still references the same objects (no edge lost or misdirected).
  for (auto& [id, v] : heap) ASSERT_EQ(v.second, g.edges[id]) << "object " << id;
}

class RandomGraphGc : public ::testing::TestWithParam<std::tuple<uint64_t, bool>> {};

TEST_P(RandomGraphGc, FreesExactlyTheUnreachable) {
  const auto [seed, compact] = GetParam();
  Runtime rt(SmallConfig());
  TestTypes t(rt);
  GraphSpec g = RandomGraph(t, seed, 1500);
  Built b = Build(rt, t, g);
  Expectation e = Expect(g, t);
  // The graph is worth testing: much lives, much dies, some dies only after finalization.
  ASSERT_GT(e.strong.size(), 300u);
  ASSERT_LT(e.survivors.size(), 1200u);
  ASSERT_GT(e.survivors.size(), e.strong.size());

  GcResult r = rt.gc().Collect(GcReason::kInduced, compact);
  ASSERT_EQ(rt.VerifyHeap(), "");
  CheckHeapMatches(rt, t, g, e.survivors);
  EXPECT_EQ(r.queued_for_finalization, e.queued.size());

  // Short weak handles die with their target's strong reachability; long ones survive while
  // the target is kept for finalization.
  for (size_t k = 0; k < b.handles.size(); ++k) {
    const RootSpec& s = b.handle_specs[k];
    Addr target = rt.handles().Target(b.handles[k]);
    bool alive = s.kind == RootSpec::kWeakHandle       ? e.strong.count(s.target) > 0
                 : s.kind == RootSpec::kLongWeakHandle ? e.survivors.count(s.target) > 0
                                                       : true;
    if (alive) {
      ASSERT_NE(target, kNull) << "handle " << k;
      EXPECT_EQ(IdOf(rt, t, target), s.target);
    } else {
      EXPECT_EQ(target, kNull) << "handle " << k;
    }
  }
  std::set<int64_t> pending;
  for (Addr a : rt.finalizers().pending()) pending.insert(IdOf(rt, t, a));
  EXPECT_EQ(pending, e.queued);

  // Once the finalizers ran, the next collection frees what only they kept alive.
  rt.RunPendingFinalizers(1u << 30);
  rt.gc().Collect(GcReason::kInduced, compact);
  ASSERT_EQ(rt.VerifyHeap(), "");
  CheckHeapMatches(rt, t, g, e.strong);
  EXPECT_TRUE(rt.finalizers().pending().empty());

  // A collection with no garbage left moves nothing (compaction skips its forwarding pass) and
  // keeps every object and edge.
  const GcResult again = rt.gc().Collect(GcReason::kInduced, compact);
  EXPECT_EQ(again.moved_objects, 0u);
  EXPECT_EQ(again.freed_objects, 0u);
  ASSERT_EQ(rt.VerifyHeap(), "");
  CheckHeapMatches(rt, t, g, e.strong);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphGc,
                         ::testing::Combine(::testing::Range<uint64_t>(1, 13), ::testing::Bool()));

TEST(Collector, CompactionMovesObjectsButNotPinnedOnes) {
  Runtime rt(SmallConfig());
  TestTypes t(rt);
  // Alternate garbage and live leaves; pin one live leaf in the middle.
  MethodFrameScope f(rt, rt.main_thread(), "Test.Compaction", 0);
  std::vector<uint32_t> handles;
  for (int i = 0; i < 200; ++i) {
    rt.New(t.leaf);  // garbage
    Addr live = rt.New(t.leaf);
    rt.SetI32(live, t.leaf_id, i);
    handles.push_back(
        rt.handles().Alloc(live, i == 100 ? HandleType::kPinned : HandleType::kNormal));
  }
  std::vector<Addr> before;
  for (uint32_t h : handles) before.push_back(rt.handles().Target(h));

  GcResult r = rt.gc().Collect(GcReason::kInduced, true);
  ASSERT_EQ(rt.VerifyHeap(), "");
  EXPECT_TRUE(r.compacted);
  EXPECT_EQ(r.pinned_objects, 1u);
  EXPECT_GT(r.moved_objects, 150u);
  for (size_t i = 0; i < handles.size(); ++i) {
    Addr now = rt.handles().Target(handles[i]);
    EXPECT_EQ(rt.I32(now, t.leaf_id), static_cast<int32_t>(i));
    if (i == 100)
      EXPECT_EQ(now, before[i]) << "a pinned object must not move";
    else
      EXPECT_NE(now, before[i]) << "object " << i << " should have slid down";
  }
  // The space the garbage left before the pinned object is reused by later allocations.
  EXPECT_GT(rt.heap().free_list_bytes(), 0u);
  Addr reuse = rt.New(t.leaf);
  EXPECT_LT(reuse, before[100]);
}

TEST(Collector, SweepKeepsAddressesAndCompactionIsForcedByFragmentation) {
  Runtime rt(SmallConfig());
  TestTypes t(rt);
  uint32_t h = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  for (int i = 0; i < 1000; ++i) rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  Addr before = rt.handles().Target(h);
  GcResult sweep = rt.gc().Collect(GcReason::kBudget, false);
  EXPECT_FALSE(sweep.compacted);  // nothing died: no reason to compact
  EXPECT_EQ(rt.handles().Target(h), before);
  for (int i = 0; i < 5000; ++i) rt.New(t.leaf);  // mostly garbage now
  uint32_t late = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  Addr late_before = rt.handles().Target(late);
  GcResult r = rt.gc().Collect(GcReason::kBudget, false);
  EXPECT_TRUE(r.compacted);
  EXPECT_NE(rt.handles().Target(late), late_before);
  ASSERT_EQ(rt.VerifyHeap(), "");
}

TEST(Collector, LongChainsNeedNoRecursion) {
  Runtime rt(SmallConfig());
  TestTypes t(rt);
  constexpr int kLength = 300000;
  {
    NoGcScope no_gc(rt);
    MethodFrameScope f(rt, rt.main_thread(), "Test.Chain", 1);
    for (int i = 0; i < kLength; ++i) {
      Addr n = rt.New(t.node);
      rt.SetI32(n, t.node_id, i);
      rt.SetRef(n, t.node_refs[0], f.get(0));
      f.set(0, n);
    }
    rt.statics().Set(t.statics[0], f.get(0));
  }
  GcResult r = rt.gc().Collect(GcReason::kInduced, true);
  EXPECT_GE(r.live_objects, static_cast<uint64_t>(kLength));
  EXPECT_EQ(rt.gc().MarkOnly(), r.live_objects);
  rt.statics().Set(t.statics[0], kNull);
  r = rt.gc().Collect(GcReason::kInduced, true);
  EXPECT_EQ(r.freed_objects, static_cast<uint64_t>(kLength));
  ASSERT_EQ(rt.VerifyHeap(), "");
}

TEST(Collector, AllocationBudgetTriggersCollections) {
  Runtime rt(SmallConfig());
  TestTypes t(rt);
  uint64_t before = rt.gc().collections();
  for (int i = 0; i < 3 * (1 << 20) / 24; ++i) rt.New(t.leaf);  // ~3 MB of garbage
  EXPECT_GE(rt.gc().collections() - before, 2u);
  EXPECT_LE(rt.heap().used_bytes(), 2u << 20) << "garbage must be reclaimed";
  EXPECT_EQ(rt.counters().Total(Counter::kCallsToGcCollect), 0);
  rt.GcCollect();
  EXPECT_EQ(rt.counters().Total(Counter::kCallsToGcCollect), 1);
}

TEST(Collector, ExhaustedHeapThrowsManagedOutOfMemory) {
  RuntimeConfig c;
  c.heap_reserve_bytes = 16u << 20;
  Runtime rt(c);
  MethodFrameScope f(rt, rt.main_thread(), "Test.Hog", 1);
  f.set(0, rt.NewArray(rt.core().object_array, 1000));
  EXPECT_THROW(
      for (uint32_t i = 0; i < 1000; ++i) {
        Addr big = rt.NewArray(rt.core().byte_array, 1 << 20);
        rt.SetElem(f.get(0), i, big);
      },
      ManagedOutOfMemory);
  EXPECT_EQ(rt.VerifyHeap(), "");
}

}  // namespace
}  // namespace xrpm::emulator::test
