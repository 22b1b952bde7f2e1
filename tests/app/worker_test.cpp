// ctest-labels: cpu_timing
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "xrpm/app/worker.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

TEST(Worker, RunsTasksInOrderAndCompletionsOnTheCallingThread) {
  std::atomic<int> wakes{0};
  Worker w([&] { ++wakes; });
  std::vector<int> order;
  const auto ui = std::this_thread::get_id();
  std::thread::id task_thread;
  for (int i = 0; i < 3; ++i)
    w.Post("t" + std::to_string(i), [&, i](TaskContext&) -> Completion {
      task_thread = std::this_thread::get_id();
      return [&, i] {
        EXPECT_EQ(std::this_thread::get_id(), ui);
        order.push_back(i);
      };
    });
  ASSERT_TRUE(w.WaitTasksDone(10s));
  EXPECT_TRUE(order.empty());  // nothing applied until the UI thread asks
  EXPECT_FALSE(w.Idle());
  EXPECT_EQ(w.RunCompletions(), 3u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_NE(task_thread, ui);
  EXPECT_TRUE(w.Idle());
  EXPECT_GT(wakes.load(), 0);
}

TEST(Worker, ReportsExceptionsThroughTheErrorHandler) {
  Worker w;
  std::string error;
  w.Post(
      "bad", [](TaskContext&) -> Completion { throw std::runtime_error("disk on fire"); },
      [&](const std::string& m) { error = m; });
  ASSERT_TRUE(w.WaitTasksDone(10s));
  w.RunCompletions();
  EXPECT_EQ(error, "disk on fire");
}

TEST(Worker, CancelStopsACooperativeTaskAndDropsQueuedOnes) {
  Worker w;
  std::atomic<bool> started{false};
  bool saw_cancel = false, second_ran = false;
  w.Post("long", [&](TaskContext& ctx) -> Completion {
    ctx.SetPhase("spinning", 100);
    started = true;
    while (!ctx.cancelled()) std::this_thread::yield();
    return [&] { saw_cancel = true; };
  });
  w.Post("second", [&](TaskContext&) -> Completion { return [&] { second_ran = true; }; });
  while (!started) std::this_thread::yield();
  TaskStatus st = w.Status();
  EXPECT_TRUE(st.busy);
  EXPECT_EQ(st.label, "long");
  EXPECT_EQ(st.phase, "spinning");
  EXPECT_EQ(st.total, 100u);
  EXPECT_EQ(st.queued, 1u);
  w.CancelAll();
  ASSERT_TRUE(w.WaitTasksDone(10s));
  w.RunCompletions();
  EXPECT_TRUE(saw_cancel);
  EXPECT_FALSE(second_ran);
}

TEST(Worker, DestructorCancelsARunningTask) {
  std::atomic<bool> started{false};
  std::atomic<bool> saw_cancel{false};
  {
    Worker w;
    w.Post("forever", [&](TaskContext& ctx) -> Completion {
      started = true;
      while (!ctx.cancelled()) std::this_thread::yield();
      saw_cancel = true;
      return {};
    });
    while (!started) std::this_thread::yield();
  }  // must not hang: the destructor cancels the task and joins its thread
  // Joined, not detached: the task had seen its cancellation before the destructor returned.
  EXPECT_TRUE(saw_cancel);
}

}  // namespace
}  // namespace xrpm::app
