// ctest-labels: threaded
// Allocation origins: every object's allocation frame and site, kept by the runtime
// across compaction and sweeps and reported by the heap walk (AllocationClock, DescribeSite,
// ObjectOrigin) in the order heap_walker.h prescribes; the ground-truth Snapshot's origins; the
// site table's bound; the leak scenario's sites.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_graph.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/method_frame_scope.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {
namespace {
using agent::ContainerType;
using agent::WalkResult;

RuntimeConfig OriginsConfig() {
  RuntimeConfig c;
  c.heap_reserve_bytes = 256u << 20;
  return c;
}

struct Origin {
  uint64_t frame = 0;
  uint32_t site = 0;
};

// Records the origin callbacks and checks their protocol as they come: the clock once, inside
// the heap container, before any origin; each site described once, before its first use; each
// origin immediately followed by the same object's ObjectReferences.
class OriginSink : public agent::HeapInfoCallback {
 public:
  explicit OriginSink(bool postpone = false) : postpone_(postpone) {}

  WalkResult BeginContainer(ContainerType t, uint64_t, uint64_t) override {
    in_heap_ = t == ContainerType::kHeap;
    return WalkResult::kOk;
  }
  WalkResult DescribeType(uint32_t, const char*, size_t) override { return WalkResult::kOk; }
  WalkResult RootReferences(const agent::RootRef*, size_t) override { return WalkResult::kOk; }
  WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override {
    if (!in_heap_) Problem("clock outside the heap container");
    if (clocks_++) Problem("clock twice");
    if (!objects.empty()) Problem("clock after the first object");
    clock = frame;
    sample = sample_bytes;
    return WalkResult::kOk;
  }
  WalkResult DescribeSite(uint32_t id, const char* const* names, const size_t* lens,
                          uint32_t depth) override {
    if (id == 0) Problem("site id 0");
    if (depth > agent::kMaxSampleStackDepth) Problem("site deeper than 32");
    std::vector<std::string> m;
    for (uint32_t k = 0; k < depth; ++k) m.emplace_back(names[k], lens[k]);
    if (!sites.emplace(id, std::move(m)).second) Problem("site described twice");
    site_order.push_back(id);
    return WalkResult::kOk;
  }
  WalkResult ObjectOrigin(uint64_t object, uint64_t frame, uint32_t site) override {
    if (clocks_ == 0) Problem("origin before the clock");
    if (!sites.count(site)) Problem("origin names a site not described yet");
    if (pending_) Problem("two origins in a row");
    pending_ = true;
    pending_object_ = object;
    pending_origin_ = Origin{frame, site};
    return WalkResult::kOk;
  }
  WalkResult ObjectReferences(uint64_t o, uint32_t, uint32_t, const uint64_t*, size_t) override {
    objects.push_back(o);
    if (pending_ && pending_object_ == o)
      origins.emplace(o, pending_origin_);
    else if (pending_)
      Problem("origin of another object");
    pending_ = false;
    return postpone_ ? WalkResult::kPostponeReferences : WalkResult::kOk;
  }

  const std::vector<std::string>& SiteOf(uint64_t object) const {
    return sites.at(origins.at(object).site);
  }

  uint64_t clock = 0;
  uint32_t sample = 1;
  std::map<uint32_t, std::vector<std::string>> sites;
  std::vector<uint32_t> site_order;
  std::vector<uint64_t> objects;
  std::map<uint64_t, Origin> origins;
  std::vector<std::string> problems;

 private:
  void Problem(std::string p) { problems.push_back(std::move(p)); }
  bool postpone_;
  bool in_heap_ = false;
  int clocks_ = 0;
  bool pending_ = false;
  uint64_t pending_object_ = 0;
  Origin pending_origin_;
};

// A walk of `rt` into a fresh OriginSink; fails the test on a protocol problem.
OriginSink Walk(Runtime& rt, bool postpone = false) {
  OriginSink sink(postpone);
  rt.WalkHeap(sink);
  EXPECT_EQ(sink.problems, std::vector<std::string>{});
  return sink;
}

struct OriginsDevice {
  Runtime rt;
  std::unique_ptr<Scenario> scenario;
  GameLoop loop;
  OriginsDevice(ScenarioParams p, uint64_t frames)
      : rt(OriginsConfig()), scenario(MakeScenario(p)), loop(rt, *scenario, LoopConfig{0, frames}) {
    loop.Setup();
  }
};

TEST(Origins, EveryObjectOfAWalkHasOneInBothWalkOrders) {
  OriginsDevice d({"bubbles", 3}, 300);
  d.loop.RunHere();
  d.rt.InduceFullCollection();
  for (bool postpone : {false, true}) {
    OriginSink s = Walk(d.rt, postpone);
    ASSERT_GT(s.objects.size(), 200u);
    EXPECT_EQ(s.origins.size(), s.objects.size()) << "postpone " << postpone;
    EXPECT_EQ(s.clock, 300u);
    EXPECT_EQ(s.sample, 0u) << "the emulator records every object";
    // Each described site is used, and ids name distinct stacks.
    std::set<uint32_t> used;
    for (auto& [o, origin] : s.origins) used.insert(origin.site);
    EXPECT_EQ(used.size(), s.sites.size());
    std::set<std::vector<std::string>> stacks;
    for (auto& [id, m] : s.sites) stacks.insert(m);
    EXPECT_EQ(stacks.size(), s.sites.size());
  }
  EXPECT_EQ(d.rt.VerifyHeap(), "");
}

// A sink that aborts in DescribeSite or ObjectOrigin gets nothing more but the final C_END.
class AbortingSink final : public OriginSink {
 public:
  explicit AbortingSink(bool in_describe) : in_describe_(in_describe) {}
  WalkResult BeginContainer(ContainerType t, uint64_t a, uint64_t b) override {
    if (aborted) after += t != ContainerType::kEnd;
    ended |= t == ContainerType::kEnd;
    return OriginSink::BeginContainer(t, a, b);
  }
  WalkResult DescribeSite(uint32_t id, const char* const* n, const size_t* l, uint32_t d) override {
    after += aborted;
    OriginSink::DescribeSite(id, n, l, d);
    return Abort(in_describe_);
  }
  WalkResult ObjectOrigin(uint64_t o, uint64_t f, uint32_t s) override {
    after += aborted;
    OriginSink::ObjectOrigin(o, f, s);
    return Abort(!in_describe_);
  }
  WalkResult ObjectReferences(uint64_t o, uint32_t t, uint32_t s, const uint64_t* r,
                              size_t n) override {
    after += aborted;
    return OriginSink::ObjectReferences(o, t, s, r, n);
  }
  bool aborted = false, ended = false;
  int after = 0;

 private:
  WalkResult Abort(bool now) {
    aborted |= now;
    return now ? WalkResult::kAbort : WalkResult::kOk;
  }
  bool in_describe_;
};

TEST(Origins, AnAbortInTheOriginCallbacksEndsTheWalk) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  for (bool in_describe : {true, false}) {
    AbortingSink sink(in_describe);
    rt.WalkHeap(sink);
    EXPECT_TRUE(sink.aborted);
    EXPECT_TRUE(sink.ended) << "C_END is always sent";
    EXPECT_EQ(sink.after, 0) << "no callback after the abort but C_END";
    EXPECT_TRUE(sink.objects.empty());
  }
  EXPECT_EQ(rt.VerifyHeap(), "") << "the walk's marks and sync words are cleared";
}

TEST(Origins, ObjectsAllocatedInFrameNCarryN) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  std::vector<uint32_t> handles;  // one rooted leaf per frame
  for (int frame = 0; frame < 5; ++frame) {
    rt.BeginFrame();
    handles.push_back(rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal));
    rt.New(t.leaf);  // garbage
    rt.EndFrame();
  }
  ASSERT_EQ(rt.frames_ended(), 5u);
  rt.GcCollect();
  OriginSink s = Walk(rt);
  EXPECT_EQ(s.clock, 5u);
  for (size_t f = 0; f < handles.size(); ++f) {
    const Addr a = rt.handles().Target(handles[f]);
    ASSERT_TRUE(s.origins.count(a));
    EXPECT_EQ(s.origins.at(a).frame, f);
    const ObjectOrigin* o = rt.origins().Find(a);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->frame, f);
  }
  // Objects the runtime made while starting up are from frame 0 too.
  for (auto& [obj, origin] : s.origins) EXPECT_LT(origin.frame, 5u);
}

TEST(Origins, SiteStacksMatchTheFrameScopeNesting) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  ManagedThread& main = rt.main_thread();
  ASSERT_TRUE(main.frames.empty());
  const uint32_t outside = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  uint32_t inner = 0, outer = 0, after = 0, internal = 0;
  {
    MethodFrameScope a(rt, main, "Game.Outer", 0);
    outer = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
    {
      MethodFrameScope b(rt, main, "Game.Inner", 0);
      inner = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
      // A runtime-internal frame (no method) is not part of the site.
      MethodFrameScope c(rt, main, kNoMethod, 0, ContainerType::kInternalFrame);
      internal = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
    }
    after = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  }
  OriginSink s = Walk(rt);
  auto site = [&](uint32_t h) { return s.SiteOf(rt.handles().Target(h)); };
  using V = std::vector<std::string>;
  EXPECT_EQ(site(outside), V{}) << "depth 0: outside any managed frame";
  EXPECT_EQ(site(outer), V{"Game.Outer"});
  EXPECT_EQ(site(inner), (V{"Game.Inner", "Game.Outer"})) << "innermost first";
  EXPECT_EQ(site(internal), (V{"Game.Inner", "Game.Outer"}));
  EXPECT_EQ(site(after), V{"Game.Outer"}) << "the popped frame is gone";
  EXPECT_EQ(s.origins.at(rt.handles().Target(after)).site,
            s.origins.at(rt.handles().Target(outer)).site)
      << "one stack, one site id";
}

TEST(Origins, DeepStacksKeepTheirInnermost32Frames) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  ManagedThread& main = rt.main_thread();
  for (int i = 0; i < 40; ++i) rt.PushFrame(main, rt.methods().Intern("M" + std::to_string(i)), 0);
  const uint32_t h = rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal);
  OriginSink s = Walk(rt);
  const auto& m = s.SiteOf(rt.handles().Target(h));
  ASSERT_EQ(m.size(), agent::kMaxSampleStackDepth);
  EXPECT_EQ(m.front(), "M39");
  EXPECT_EQ(m.back(), "M8");
}

TEST(Origins, ACompactionMovesAnObjectButNotItsFrameOrSite) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  ManagedThread& main = rt.main_thread();
  for (int f = 0; f < 3; ++f) {
    rt.BeginFrame();
    rt.EndFrame();
  }
  uint32_t h = 0;
  {
    MethodFrameScope g(rt, main, "Game.MakeGarbage", 0);
    for (int i = 0; i < 2000; ++i) rt.New(t.leaf);
  }
  rt.BeginFrame();
  {
    MethodFrameScope k(rt, main, "Game.Keep", 1);
    k.set(0, rt.New(t.node));
    h = rt.handles().Alloc(k.get(0), HandleType::kNormal);
  }
  rt.EndFrame();
  for (int f = 0; f < 4; ++f) {
    rt.BeginFrame();
    rt.EndFrame();
  }
  const Addr before = rt.handles().Target(h);
  const ObjectOrigin o = *rt.origins().Find(before);
  EXPECT_EQ(o.frame, 3u);

  GcResult r = rt.gc().Collect(GcReason::kInduced, true);
  ASSERT_TRUE(r.compacted);
  const Addr after = rt.handles().Target(h);
  ASSERT_NE(after, before) << "the compactor moved it (the garbage below is gone)";
  ASSERT_GT(r.moved_objects, 0u);
  const ObjectOrigin* moved = rt.origins().Find(after);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->frame, 3u);
  EXPECT_EQ(moved->site, o.site);
  EXPECT_EQ(rt.origins().Find(before), nullptr) << "nothing left under the old address";
  EXPECT_EQ(rt.VerifyHeap(), "");

  OriginSink s = Walk(rt);
  EXPECT_EQ(s.clock, 8u);
  EXPECT_EQ(s.origins.at(after).frame, 3u);
  EXPECT_EQ(s.SiteOf(after), std::vector<std::string>{"Game.Keep"});
}

TEST(Origins, ASweepKeepsTheSurvivorsAndDropsTheDead) {
  Runtime rt(OriginsConfig());
  test::TestTypes t(rt);
  std::vector<uint32_t> keep;
  for (int f = 0; f < 10; ++f) {
    rt.BeginFrame();
    for (int i = 0; i < 100; ++i)
      keep.push_back(rt.handles().Alloc(rt.New(t.leaf), HandleType::kNormal));
    rt.New(t.leaf);  // a little garbage: too little to compact
    rt.EndFrame();
  }
  std::vector<Addr> addr_before;
  for (uint32_t h : keep) addr_before.push_back(rt.handles().Target(h));
  GcResult r = rt.gc().Collect(GcReason::kBudget, false);
  ASSERT_FALSE(r.compacted);
  ASSERT_EQ(r.freed_objects, 10u);
  EXPECT_EQ(rt.origins().size(), r.live_objects);
  for (size_t i = 0; i < keep.size(); ++i) {
    ASSERT_EQ(rt.handles().Target(keep[i]), addr_before[i]) << "a sweep moves nothing";
    const ObjectOrigin* o = rt.origins().Find(addr_before[i]);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->frame, i / 100);
  }
  EXPECT_EQ(rt.VerifyHeap(), "");
  // New objects fill the swept holes; their entries merge in address order.
  rt.BeginFrame();
  for (int i = 0; i < 50; ++i) rt.New(t.leaf);
  rt.EndFrame();
  EXPECT_EQ(rt.VerifyHeap(), "");
}

struct ManyFrames {
  const char* name;
  ScenarioParams params;
  uint32_t budget;
  bool sweeps;  // most collections sweep (a large live heap, little garbage) or compact
};

class OriginsOverManyFrames : public ::testing::TestWithParam<ManyFrames> {};

TEST_P(OriginsOverManyFrames, TheTableStaysTheSizeOfTheHeap) {
  const ManyFrames& p = GetParam();
  RuntimeConfig c = OriginsConfig();
  c.gc_budget_bytes = p.budget;
  Runtime rt(c);
  auto scenario = MakeScenario(p.params);
  {
    GameLoop setup(rt, *scenario, LoopConfig{0, 0});
    setup.Setup();
  }
  size_t max_entries = 0;
  uint64_t sweeps = 0, compactions = 0;
  for (uint64_t f = 0; f < 3000; ++f) {
    const uint64_t gcs = rt.gc().collections();
    rt.BeginFrame();
    scenario->Frame(rt, f, 1.0 / 60);
    rt.EndFrame();
    if (rt.gc().collections() != gcs) ++(rt.gc().last().compacted ? compactions : sweeps);
    max_entries = std::max(max_entries, rt.origins().size());
    if (f % 250 == 0) {
      ASSERT_EQ(rt.VerifyHeap(), "") << "frame " << f;
    }
  }
  if (p.sweeps)
    EXPECT_GT(sweeps, 50u);
  else
    EXPECT_GT(compactions, 50u);
  rt.InduceFullCollection();
  const uint64_t live = rt.gc().last().live_objects;
  EXPECT_EQ(rt.origins().size(), live);
  // Over 3000 frames the game allocates far more than this; a table that kept dead entries
  // would pass the bound many times over.
  EXPECT_LE(max_entries, 2 * live + p.budget / 8);
  EXPECT_LE(rt.origins().MemoryBytes(), sizeof(ObjectOrigin) * (2 * live + 3 * (size_t{1} << 16)));
  EXPECT_LT(rt.sites().size(), 100u) << "a game has few distinct allocating stacks";
  EXPECT_EQ(rt.sites().truncated(), 0u);
  EXPECT_EQ(rt.VerifyHeap(), "");
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, OriginsOverManyFrames,
    ::testing::Values(ManyFrames{"bubbles", {"bubbles", 5}, 64u << 10, false},
                      ManyFrames{"synthetic", {"synthetic", 5, 20000, 3, 16}, 16u << 10, true}),
    [](const ::testing::TestParamInfo<ManyFrames>& i) { return std::string(i.param.name); });

TEST(SiteTable, AFullTableFallsBackToTheAllocatingMethodThenGivesNoId) {
  SiteTable sites(3);  // the empty stack + 2
  const MethodId ab[] = {1, 2}, ac[] = {1, 3}, b[] = {2};
  EXPECT_EQ(sites.Intern(nullptr, 0), kOutsideManagedCode);
  const SiteId s1 = sites.Intern(ab, 2);
  const SiteId s2 = sites.Intern(b, 1);
  EXPECT_EQ(s1, 2u);
  EXPECT_EQ(s2, 3u);
  EXPECT_EQ(sites.Intern(ab, 2), s1);
  EXPECT_EQ(sites.size(), 3u);
  // Full: {1, 3} becomes {1}, interned past the bound, once.
  const SiteId s3 = sites.Intern(ac, 2);
  EXPECT_EQ(sites.depth(s3), 1u);
  EXPECT_EQ(sites.methods(s3)[0], 1u);
  EXPECT_EQ(sites.truncated(), 1u);
  EXPECT_EQ(sites.Intern(ac, 2), s3);
  EXPECT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites.Intern(ab, 2), s1) << "known stacks keep their ids";
  // Push from a caller's site: known pairs give the known stack; the table is at its capacity
  // (protocol::SiteCapacity(3) == 4), so a new one-method stack gets no id, and a frame called
  // from there keeps its method if that has an id.
  EXPECT_EQ(sites.Push(s2, 1), s1) << "{1} called from {2} is {1, 2}";
  EXPECT_EQ(sites.Push(s1, 7), kNoSite);
  EXPECT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites.Push(kNoSite, 1), s3);
}

TEST(SiteTable, PushBuildsTheCallersStackAndCutsItAt32) {
  SiteTable sites;
  SiteId s = kOutsideManagedCode;
  for (MethodId m = 0; m < 40; ++m) s = sites.Push(s, m);
  ASSERT_EQ(sites.depth(s), agent::kMaxSampleStackDepth);
  EXPECT_EQ(sites.methods(s)[0], 39u);
  EXPECT_EQ(sites.methods(s)[31], 8u);
  std::vector<MethodId> inner;
  for (MethodId m = 40; m-- > 8;) inner.push_back(m);
  EXPECT_EQ(sites.Intern(inner.data(), 32), s) << "the same stack by either path, one id";
  const MethodId one[] = {5};
  EXPECT_EQ(sites.Push(kOutsideManagedCode, 5), sites.Intern(one, 1));
  EXPECT_EQ(sites.truncated(), 0u);
}

// The ground truth (DumpToSnapshot) carries the origins: capture frame, one entry per object,
// sites in the order the walk first used them.
TEST(Origins, TheGroundTruthSnapshotHasThem) {
  OriginsDevice d({"bubbles", 2}, 240);
  d.loop.RunHere();
  const Snapshot s = DumpToSnapshot(d.rt);
  ASSERT_TRUE(s.has_origins());
  EXPECT_EQ(s.origins->capture_frame, 240u);
  EXPECT_EQ(s.origins->sample_bytes, 0u);
  ASSERT_EQ(s.object_alloc_frame.size(), s.object_count());
  ASSERT_EQ(s.object_alloc_site.size(), s.object_count());
  // First-use order: scanning objects, each new site index is the next one.
  uint32_t next = 0;
  for (size_t i = 0; i < s.object_count(); ++i) {
    ASSERT_TRUE(s.origin_known(i));
    ASSERT_LE(s.object_alloc_site[i], next);
    if (s.object_alloc_site[i] == next) ++next;
    EXPECT_LE(s.object_alloc_frame[i], 240u);
  }
  EXPECT_EQ(next, s.origins->sites.size());
  // Methods by first appearance, innermost first within each site.
  uint32_t next_method = 0;
  for (const AllocationSite& site : s.origins->sites)
    for (uint32_t m : site.methods) {
      ASSERT_LE(m, next_method);
      if (m == next_method) ++next_method;
    }
  EXPECT_EQ(next_method, s.origins->methods.size());
  // The game's scene graph was built at setup (frame 0) and Game1.Update ran in every frame.
  bool update_site = false;
  for (const AllocationSite& site : s.origins->sites)
    for (uint32_t m : site.methods) update_site |= s.origins->methods[m] == "Bubbles.Game1.Update";
  EXPECT_TRUE(update_site);
}

// The leak scenario's leaked objects come from Bubble.OnSpawn / BubbleField.Spawn; what it
// allocates and drops every frame comes from elsewhere, so a three-capture filter names them.
TEST(Origins, TheLeakScenarioLeaksFromOnSpawnAndNothingPerFrame) {
  OriginsDevice d({"leak", 1}, 1200);
  d.loop.RunHere();
  const Snapshot s = DumpToSnapshot(d.rt);
  ASSERT_TRUE(s.has_origins());
  auto innermost = [&](size_t i) {
    const AllocationSite& site = s.origins->sites[s.object_alloc_site[i]];
    std::string stack;
    for (uint32_t m : site.methods) stack += s.origins->methods[m] + " <- ";
    return stack;
  };
  // Objects allocated in the middle window (frames 300..900) and still alive at 1200.
  std::map<std::string, size_t> by_type_site;
  for (size_t i = 0; i < s.object_count(); ++i) {
    const uint32_t f = s.object_alloc_frame[i];
    if (f >= 300 && f < 900) ++by_type_site[s.type_name_of(i) + " @ " + innermost(i)];
  }
  size_t handlers = 0, bubbles = 0;
  for (auto& [key, n] : by_type_site) {
    SCOPED_TRACE(key);
    const bool on_spawn =
        key.find("Bubbles.Bubble.OnSpawn <- Bubbles.BubbleField.Spawn <- ") != std::string::npos;
    const bool spawn = key.find("@ Bubbles.BubbleField.Spawn <- ") != std::string::npos;
    if (key.rfind("System.EventHandler<Bubbles.PoppedEventArgs> @ ", 0) == 0) {
      EXPECT_TRUE(on_spawn);
      handlers += n;
    }
    if (key.rfind("Bubbles.Bubble @ ", 0) == 0) {
      EXPECT_TRUE(spawn);
      bubbles += n;
    }
    // Per-frame garbage does not survive: nothing from these sites is in the window.
    for (const char* per_frame :
         {"@ Bubbles.Game1.DrawBubbles", "@ Bubbles.Game1.CheckCollisions",
          "@ Bubbles.ParticleSystem.EmitSmoke", "@ Bubbles.ParticleSystem.Burst",
          "@ System.String.Concat <- Bubbles.ScoreBoard.RebuildText"})
      EXPECT_EQ(key.find(per_frame), std::string::npos);
  }
  EXPECT_GT(handlers, 20u) << "the leak holds bubbles spawned in the window";
  EXPECT_EQ(handlers, bubbles);
}

// Three captures of one leak run (frames 300, 900, 1200), as `xrpm leaks A B C` takes them: the
// handlers Bubble.OnSpawn allocated between A and B are all still in C with the same frame and
// site, although the collections in between (each capture's own, and the game's) moved them.
TEST(Origins, LeakedObjectsKeepFrameAndSiteAcrossCapturesWhileTheirAddressesMove) {
  Runtime rt(OriginsConfig());
  auto scenario = MakeScenario({"leak", 1});
  {
    GameLoop setup(rt, *scenario, LoopConfig{0, 0});
    setup.Setup();
  }
  uint64_t frame = 0;
  auto play_to = [&](uint64_t end) {
    for (; frame < end; ++frame) {
      rt.BeginFrame();
      scenario->Frame(rt, frame, 1.0 / 60);
      rt.EndFrame();
    }
  };
  play_to(300);
  const Snapshot a = DumpToSnapshot(rt);
  play_to(900);
  const Snapshot b = DumpToSnapshot(rt);
  play_to(1200);
  const Snapshot c = DumpToSnapshot(rt);
  ASSERT_TRUE(a.has_origins() && b.has_origins() && c.has_origins());
  EXPECT_EQ(a.origins->capture_frame, 300u);
  EXPECT_EQ(b.origins->capture_frame, 900u);
  EXPECT_EQ(c.origins->capture_frame, 1200u);

  // (frame, innermost-first stack) -> count, and the addresses, of the window's handlers.
  const std::string handler = "System.EventHandler<Bubbles.PoppedEventArgs>";
  struct Window {
    std::multiset<std::pair<uint32_t, std::vector<std::string>>> origins;
    std::set<ObjectId> addresses;
  };
  auto window = [&](const Snapshot& s) {
    Window w;
    for (size_t i = 0; i < s.object_count(); ++i) {
      const uint32_t f = s.object_alloc_frame[i];
      if (s.type_name_of(i) != handler || f < a.origins->capture_frame ||
          f >= b.origins->capture_frame)
        continue;
      std::vector<std::string> stack;
      for (uint32_t m : s.origins->sites[s.object_alloc_site[i]].methods)
        stack.push_back(s.origins->methods[m]);
      // The subscribed handlers, not the event's combined delegate (System.Delegate.Combine
      // makes a new one per subscription and drops the old).
      if (stack.empty() || stack[0] != "Bubbles.Bubble.OnSpawn") continue;
      w.origins.emplace(f, std::move(stack));
      w.addresses.insert(s.object_id[i]);
    }
    return w;
  };
  const Window in_b = window(b), in_c = window(c);
  ASSERT_GT(in_b.origins.size(), 20u);
  EXPECT_EQ(in_c.origins, in_b.origins) << "every one is still there, frame and site unchanged";
  EXPECT_NE(in_c.addresses, in_b.addresses) << "the collections moved them";
  for (const auto& [f, stack] : in_c.origins) {
    ASSERT_GE(stack.size(), 3u);
    EXPECT_EQ(stack[1], "Bubbles.BubbleField.Spawn");
    EXPECT_EQ(stack[2], "Bubbles.Game1.Update");
  }
}

}  // namespace
}  // namespace xrpm::emulator
