// ctest-labels: threaded
// The heap walker's protocol (heap_walker.h): container order, thread before frames, heap last,
// C_END always; depth-first reporting; postpone gives a flat list; abort semantics.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {
namespace {
using agent::ContainerType;
using agent::WalkResult;

struct Event {
  enum Kind { kContainer, kType, kRoots, kObject } kind;
  ContainerType container = ContainerType::kBegin;
  uint64_t id1 = 0, id2 = 0;
  uint64_t object = 0;
  std::vector<uint64_t> refs;
  size_t roots = 0;
};

// Records every callback; answers with `policy(event index, event)`.
class RecordingSink : public agent::HeapInfoCallback {
 public:
  std::function<WalkResult(size_t, const Event&)> policy = [](size_t, const Event&) {
    return WalkResult::kOk;
  };
  std::vector<Event> events;

  WalkResult BeginContainer(ContainerType t, uint64_t id1, uint64_t id2) override {
    return Add(Event{Event::kContainer, t, id1, id2});
  }
  WalkResult DescribeType(uint32_t, const char*, size_t) override {
    return Add(Event{Event::kType});
  }
  WalkResult RootReferences(const agent::RootRef* r, size_t n) override {
    Event e{Event::kRoots};
    e.roots = n;
    for (size_t i = 0; i < n; ++i) e.refs.push_back(r[i].object);
    return Add(e);
  }
  WalkResult ObjectReferences(uint64_t o, uint32_t, uint32_t, const uint64_t* refs,
                              size_t n) override {
    Event e{Event::kObject};
    e.object = o;
    e.refs.assign(refs, refs + n);
    return Add(e);
  }

 private:
  WalkResult Add(Event e) {
    events.push_back(std::move(e));
    return policy(events.size() - 1, events.back());
  }
};

class WalkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ = MakeScenario({"bubbles", 11});
    loop_ = std::make_unique<GameLoop>(rt_, *scenario_, LoopConfig{0, 400});
    loop_->Setup();
    loop_->RunHere();
    rt_.InduceFullCollection();
  }
  std::vector<uint64_t> Objects(const RecordingSink& s) {
    std::vector<uint64_t> out;
    for (const Event& e : s.events)
      if (e.kind == Event::kObject) out.push_back(e.object);
    return out;
  }
  Runtime rt_;
  std::unique_ptr<Scenario> scenario_;
  std::unique_ptr<GameLoop> loop_;
};

TEST_F(WalkerTest, FollowsTheContainerProtocol) {
  RecordingSink s;
  rt_.WalkHeap(s);
  const auto& ev = s.events;
  ASSERT_GE(ev.size(), 3u);
  ASSERT_EQ(ev.front().kind, Event::kContainer);
  EXPECT_EQ(ev.front().container, ContainerType::kBegin);
  ASSERT_EQ(ev.back().kind, Event::kContainer);
  EXPECT_EQ(ev.back().container, ContainerType::kEnd);

  size_t types = 0, i = 1;
  for (; i < ev.size() && ev[i].kind == Event::kType; ++i) ++types;
  EXPECT_EQ(types, rt_.types().loaded_classes()) << "every loaded class, before any root";

  std::set<uint64_t> threads_seen;
  bool in_heap = false, in_root_container = false;
  size_t heap_containers = 0, end_containers = 0;
  for (; i < ev.size(); ++i) {
    const Event& e = ev[i];
    ASSERT_NE(e.kind, Event::kType) << "types come first";
    if (e.kind == Event::kContainer) {
      ASSERT_FALSE(in_heap && e.container != ContainerType::kEnd) << "the heap container is last";
      in_root_container = agent::RootDescriptorFor(e.container) >= 0;
      if (e.container == ContainerType::kThread) threads_seen.insert(e.id1);
      if (agent::RootDescriptorFor(e.container) == 1) {
        // The emulator's stack ids carry the thread id in their high half.
        EXPECT_TRUE(threads_seen.count(e.id1 >> 16)) << "a thread comes before its frames";
      }
      if (e.container == ContainerType::kHeap) {
        in_heap = true;
        ++heap_containers;
      }
      if (e.container == ContainerType::kEnd) ++end_containers;
    } else if (e.kind == Event::kRoots) {
      EXPECT_TRUE(in_root_container) << "roots only inside root containers";
    } else {
      EXPECT_TRUE(in_heap) << "objects only inside the heap container";
    }
  }
  EXPECT_EQ(heap_containers, 1u);
  EXPECT_EQ(end_containers, 1u);
  EXPECT_EQ(threads_seen, (std::set<uint64_t>{1, 2, 3}));
  EXPECT_EQ(rt_.VerifyHeap(), "") << "walker bits are cleared";
}

TEST_F(WalkerTest, ReportsDepthFirstAndEveryObjectOnce) {
  RecordingSink s;
  rt_.WalkHeap(s);
  std::vector<uint64_t> order = Objects(s);
  std::set<uint64_t> unique(order.begin(), order.end());
  EXPECT_EQ(unique.size(), order.size());
  size_t live = 0;
  rt_.heap().ForEachObject(rt_.types(), [&](Addr, uint32_t*, uint32_t) { ++live; });
  EXPECT_EQ(order.size(), live);

  // After an object answered kOk, the next object reported is its first referent not yet
  // reported, when it has one (pre-order depth-first).
  std::map<uint64_t, std::vector<uint64_t>> refs;
  for (const Event& e : s.events)
    if (e.kind == Event::kObject) refs[e.object] = e.refs;
  std::set<uint64_t> reported;
  size_t descents = 0;
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    reported.insert(order[k]);
    for (uint64_t r : refs[order[k]]) {
      if (reported.count(r)) continue;
      EXPECT_EQ(order[k + 1], r) << "after " << std::hex << order[k];
      ++descents;
      break;
    }
  }
  EXPECT_GT(descents, 20u);
}

TEST_F(WalkerTest, PostponingEverythingGivesTheFlatListInAddressOrder) {
  RecordingSink normal;
  rt_.WalkHeap(normal);
  RecordingSink flat;
  flat.policy = [](size_t, const Event& e) {
    return e.kind == Event::kObject ? WalkResult::kPostponeReferences : WalkResult::kOk;
  };
  rt_.WalkHeap(flat);
  std::vector<uint64_t> a = Objects(normal), b = Objects(flat);
  EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, b) << "the same objects, each once";
  std::map<uint64_t, std::vector<uint64_t>> ra, rb;
  for (const Event& e : normal.events)
    if (e.kind == Event::kObject) ra[e.object] = e.refs;
  for (const Event& e : flat.events)
    if (e.kind == Event::kObject) rb[e.object] = e.refs;
  EXPECT_EQ(ra, rb) << "references are reported in full either way";

  // Mixed answers: still every object exactly once.
  RecordingSink mixed;
  mixed.policy = [](size_t i, const Event& e) {
    return e.kind == Event::kObject && i % 3 == 0 ? WalkResult::kPostponeReferences
                                                  : WalkResult::kOk;
  };
  rt_.WalkHeap(mixed);
  std::vector<uint64_t> c = Objects(mixed);
  std::sort(c.begin(), c.end());
  EXPECT_EQ(c, b);
}

// The walk sets visited bits only from the first descent on (before it, the scan's cursor says
// what was reported): a sink that postpones the first half of the heap and then descends must
// still get every object exactly once, and the heap must be left without walker bits.
TEST_F(WalkerTest, PostponingThenDescendingStillReportsEveryObjectOnce) {
  RecordingSink flat;
  flat.policy = [](size_t, const Event& e) {
    return e.kind == Event::kObject ? WalkResult::kPostponeReferences : WalkResult::kOk;
  };
  rt_.WalkHeap(flat);
  EXPECT_EQ(rt_.VerifyHeap(), "") << "a flat walk leaves no bits";
  const std::vector<uint64_t> all = Objects(flat);
  ASSERT_GT(all.size(), 100u);
  const uint64_t half = all[all.size() / 2];
  RecordingSink late;
  late.policy = [half](size_t, const Event& e) {
    return e.kind == Event::kObject && e.object < half ? WalkResult::kPostponeReferences
                                                       : WalkResult::kOk;
  };
  rt_.WalkHeap(late);
  std::vector<uint64_t> got = Objects(late);
  EXPECT_FALSE(std::is_sorted(got.begin(), got.end())) << "the second half was walked depth-first";
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, all) << "every object exactly once";
  EXPECT_EQ(rt_.VerifyHeap(), "") << "walker bits are cleared";
}

TEST_F(WalkerTest, AbortStopsEverythingButTheFinalEnd) {
  RecordingSink full;
  rt_.WalkHeap(full);
  // Abort at the begin, in the types, at a root container, in a root batch, at the heap and in
  // the middle of the objects.
  std::vector<size_t> abort_at = {0, 5};
  for (size_t i = 0; i < full.events.size(); ++i) {
    const Event& e = full.events[i];
    if (e.kind == Event::kRoots && abort_at.size() < 3) abort_at.push_back(i);
    if (e.kind == Event::kContainer && e.container == ContainerType::kClass && abort_at.size() < 4)
      abort_at.push_back(i);
    if (e.kind == Event::kContainer && e.container == ContainerType::kHeap) {
      abort_at.push_back(i);
      abort_at.push_back(i + 50);
    }
  }
  ASSERT_EQ(abort_at.size(), 6u);
  for (size_t at : abort_at) {
    RecordingSink s;
    s.policy = [at](size_t i, const Event&) {
      return i == at ? WalkResult::kAbort : WalkResult::kOk;
    };
    rt_.WalkHeap(s);
    ASSERT_EQ(s.events.size(), at + 2) << "abort at " << at;
    EXPECT_EQ(s.events.back().container, ContainerType::kEnd);
    EXPECT_EQ(s.events.back().kind, Event::kContainer);
    EXPECT_EQ(rt_.VerifyHeap(), "");
  }
}

// Each type is described once with its traits: bubbles' XNA resources (Texture2D, SoundEffect)
// have a finalizer, its gameplay objects and strings do not.
TEST_F(WalkerTest, DescribesTypesWithTheirFinalizerTrait) {
  struct TraitSink : RecordingSink {
    std::map<std::string, bool> finalizer;
    WalkResult DescribeTypeWithTraits(uint32_t, uint32_t domain, const char* n, size_t len,
                                      const agent::TypeTraits& t) override {
      EXPECT_EQ(domain, 0u);
      EXPECT_TRUE(finalizer.emplace(std::string(n, len), t.has_finalizer).second);
      return WalkResult::kOk;
    }
  } sink;
  rt_.WalkHeap(sink);
  EXPECT_TRUE(sink.finalizer.at("Microsoft.Xna.Framework.Graphics.Texture2D"));
  EXPECT_TRUE(sink.finalizer.at("Microsoft.Xna.Framework.Audio.SoundEffect"));
  EXPECT_FALSE(sink.finalizer.at("Bubbles.Bubble"));
  EXPECT_FALSE(sink.finalizer.at("System.String"));
}

TEST_F(WalkerTest, RootsMatchTheRootSetAndObjectsMatchTheHeap) {
  RecordingSink s;
  rt_.WalkHeap(s);
  std::multiset<uint64_t> walked;
  for (const Event& e : s.events)
    if (e.kind == Event::kRoots) walked.insert(e.refs.begin(), e.refs.end());
  struct Collect : RootVisitor {
    std::multiset<uint64_t> roots;
    bool Container(const RootContainer&) override { return true; }
    bool Root(Addr* a, uint8_t) override {
      roots.insert(*a);
      return true;
    }
  } c;
  rt_.roots().Enumerate(c);
  EXPECT_EQ(walked, c.roots);
}

TEST(WalkerWithGame, AnAbortedCaptureLetsTheGameResume) {
  Runtime rt;
  auto scenario = MakeScenario({"bubbles", 4});
  GameLoop loop(rt, *scenario, LoopConfig{0, 2000});
  loop.Setup();
  loop.Start();
  for (int k = 0; k < 5; ++k) {
    struct Ctx {
      Runtime* rt;
      uint64_t frames_before, frames_after;
      const GameLoop* loop;
    } ctx{&rt, 0, 0, &loop};
    ASSERT_TRUE(rt.RunWithWorldStopped(
        [](void* p) {
          auto* c = static_cast<Ctx*>(p);
          c->frames_before = c->loop->frames();
          c->rt->InduceFullCollection();
          RecordingSink abort_soon;
          abort_soon.policy = [](size_t i, const Event&) {
            return i == 40 ? WalkResult::kAbort : WalkResult::kOk;
          };
          c->rt->WalkHeap(abort_soon);
          c->frames_after = c->loop->frames();
        },
        &ctx, 10000));
    EXPECT_EQ(ctx.frames_before, ctx.frames_after) << "the game is parked while the walk runs";
  }
  loop.Join();  // returns only if the game resumed after every stop and ran all its frames
  EXPECT_EQ(loop.frames(), 2000u);
  EXPECT_EQ(loop.error(), "");
  EXPECT_EQ(rt.VerifyHeap(), "");
}

}  // namespace
}  // namespace xrpm::emulator
