// ctest-labels: cpu_timing threaded
// Stopping the world: the game parks at its frame boundary, stoppers are serialised, a game that
// never reaches its safe point makes RunWithWorldStopped time out cleanly.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/world_lock.h"

namespace xrpm::emulator {
namespace {

TEST(WorldLock, StopSucceedsAtOnceWithoutAMutator) {
  WorldLock w;
  ASSERT_TRUE(w.Stop(0));
  EXPECT_TRUE(w.stopped());
  w.Resume();
  EXPECT_FALSE(w.stopped());
}

TEST(WorldLock, StopTimesOutWhileAFrameRuns) {
  WorldLock w;
  w.EnterMutator();
  EXPECT_FALSE(w.Stop(20));
  w.LeaveMutator();
  EXPECT_TRUE(w.Stop(1000));
  w.Resume();
}

// A scenario whose frame 3 blocks until the test releases it.
class BlockingScenario final : public Scenario {
 public:
  std::promise<void> entered;
  std::promise<void> release;
  const char* name() const override { return "blocking"; }
  void Setup(Runtime&) override {}
  void Frame(Runtime& rt, uint64_t frame, double) override {
    rt.New(rt.core().object);
    if (frame == 3) {
      entered.set_value();
      release.get_future().wait();
    }
  }
  std::string Status() const override { return ""; }
};

TEST(RunWithWorldStopped, TimesOutWhenTheGameCannotReachItsSafePoint) {
  Runtime rt;
  BlockingScenario s;
  GameLoop loop(rt, s, LoopConfig{0, 10});
  loop.Setup();
  std::future<void> entered = s.entered.get_future();
  loop.Start();
  entered.wait();
  bool called = false;
  EXPECT_FALSE(rt.RunWithWorldStopped([](void* c) { *static_cast<bool*>(c) = true; }, &called, 50));
  EXPECT_FALSE(called);
  s.release.set_value();
  loop.Join();
  EXPECT_EQ(loop.frames(), 10u) << "the game went on after the failed stop";
  EXPECT_TRUE(rt.RunWithWorldStopped([](void* c) { *static_cast<bool*>(c) = true; }, &called, 50));
  EXPECT_TRUE(called);
}

TEST(RunWithWorldStopped, ConcurrentStoppersTakeTurnsAndTheGameIsParked) {
  Runtime rt;
  auto scenario = MakeScenario({"bubbles", 3});
  GameLoop loop(rt, *scenario, LoopConfig{0, 0});
  loop.Setup();
  loop.Start();
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0}, frame_moved{0}, ran{0};
  struct Ctx {
    std::atomic<int>* inside;
    std::atomic<int>* overlaps;
    std::atomic<int>* frame_moved;
    std::atomic<int>* ran;
    const GameLoop* loop;
    Runtime* rt;
  } ctx{&inside, &overlaps, &frame_moved, &ran, &loop, &rt};
  auto stopper = [&] {
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(rt.RunWithWorldStopped(
          [](void* p) {
            auto* c = static_cast<Ctx*>(p);
            if (c->inside->fetch_add(1) != 0) c->overlaps->fetch_add(1);
            uint64_t f = c->loop->frames();
            c->rt->InduceFullCollection();
            if (c->loop->frames() != f) c->frame_moved->fetch_add(1);
            c->ran->fetch_add(1);
            c->inside->fetch_sub(1);
          },
          &ctx, 10000));
    }
  };
  std::thread a(stopper), b(stopper);
  a.join();
  b.join();
  loop.RequestStop();
  loop.Join();
  EXPECT_EQ(ran.load(), 40);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(frame_moved.load(), 0);
  EXPECT_EQ(loop.error(), "");
  EXPECT_EQ(rt.VerifyHeap(), "");
}

}  // namespace
}  // namespace xrpm::emulator
