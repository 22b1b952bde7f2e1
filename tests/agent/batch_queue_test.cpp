// ctest-labels: threaded
// The capture queue's memory bound once the game runs again before the walk is over (a snapshot
// walk, heap_walker.h WorldResumed; device-agent/src/batch_queue.h): the walk waits for the
// network instead of filling the queue, a cancel while it waits ends the capture, and a walk in
// the stopped world keeps buffered mode. The test stands in for the network thread: it takes
// the queued messages and frees them as ENet would, only when told to, so the producer is held
// at known points (it waited for room) instead of racing the consumer.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "capture_job.h"
#include "fake_runtime.h"

namespace xrpm::testing {
namespace {

using agent::CaptureJob;

constexpr size_t kLimit = size_t{256} << 20;  // the agent's default: buffered mode
constexpr size_t kResumedLimit = 128 * 1024;  // a couple of ~64 KiB batches
constexpr uint32_t kStopTimeoutMs = 5000;

// The heap of the Mono port's snapshot walk: the game resumes before the walk (the fake heap's
// walk is told WorldResumed first, as the port's replay is).
class ResumingRuntime : public FakeRuntime {
 public:
  using FakeRuntime::FakeRuntime;
  void WalkHeap(agent::HeapInfoCallback& sink) override {
    sink.WorldResumed();
    FakeRuntime::WalkHeap(sink);
  }
};

// Polls `done` until it holds or `timeout_ms` passed (a bounded wait: it costs time only when
// the code under test is broken).
bool WaitUntil(const std::function<bool()>& done, uint32_t timeout_ms = 60000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// What the network thread does with a queued message once ENet freed it: the bytes leave the
// job's account.
size_t TakeAll(CaptureJob& job) {
  std::string bytes;
  size_t n = 0;
  while (job.queue.Pop(&bytes)) {
    n += bytes.size();
    job.memory.Release(bytes.capacity());
  }
  job.queue.Wake();
  return n;
}

bool Finished(const CaptureJob& job) {
  return job.done.load(std::memory_order_acquire) && job.queue.closed_and_empty();
}

TEST(BatchQueue, AfterTheWorldResumedTheWalkWaitsForTheNetworkAtTheBound) {
  ResumingRuntime rt(600000);  // ~4 MiB on the wire, ~1 MiB of encoder buffers
  CaptureJob job(1, 1, kLimit, kResumedLimit);
  std::thread capture([&] { agent::RunCapture(rt, job, kStopTimeoutMs); });
  // The consumer takes the queue only once the walk waited for room, so every wait is the
  // bound's doing and the queue is as full as the bound lets it be each time.
  uint64_t seen = 0;
  size_t taken = 0;
  const bool ended = WaitUntil([&] {
    const uint64_t w = job.queue.waits();
    const bool done = job.done.load(std::memory_order_acquire);
    if (w > seen || done) {
      seen = w;
      taken += TakeAll(job);
    }
    return Finished(job);
  });
  if (!ended) job.Cancel();  // lets the capture thread end before the join
  capture.join();
  ASSERT_TRUE(ended) << "the capture did not end";
  ASSERT_TRUE(job.completed) << job.failure;
  EXPECT_GT(job.world_resumed_ns.load(), 0);
  EXPECT_GT(taken, job.wire_bytes) << "every batch and the CaptureEnd reached the consumer";
  EXPECT_GE(job.wire_bytes, 24 * kResumedLimit) << "the heap must be much larger than the bound";
  EXPECT_GE(job.queue.waits(), job.wire_bytes / kResumedLimit / 2) << "the bound held the walk";
  EXPECT_LE(job.queue.messages_peak(), kResumedLimit);
  EXPECT_LE(job.peak_bytes, kResumedLimit + job.queue.buffers_peak())
      << "agent peak: the bound plus the encoder's buffers";
  EXPECT_LT(job.peak_bytes, job.wire_bytes / 2);
}

TEST(BatchQueue, ACancelWhileTheResumedWalkWaitsForRoomEndsTheCapture) {
  ResumingRuntime rt(200000);
  CaptureJob job(1, 1, kLimit, kResumedLimit);
  std::thread capture([&] { agent::RunCapture(rt, job, kStopTimeoutMs); });
  // The consumer takes nothing: the walk fills the bound and waits.
  const bool waiting = WaitUntil([&] { return job.queue.waits() > 0 || job.done.load(); });
  job.Cancel();  // what the network thread does for a host's cancel or a disconnect
  const bool ended = WaitUntil([&] { return job.done.load(std::memory_order_acquire); });
  capture.join();
  ASSERT_TRUE(waiting);
  ASSERT_TRUE(ended) << "the capture did not end after the cancel";
  EXPECT_FALSE(job.completed);
  EXPECT_TRUE(job.cancelled_during_walk);
  EXPECT_TRUE(job.queue.closed_and_empty()) << "the cancel dropped what was queued";
  EXPECT_LE(job.queue.messages_peak(), kResumedLimit);
  EXPECT_EQ(rt.resumes(), 1u);
}

TEST(BatchQueue, AWalkInTheStoppedWorldKeepsBufferedMode) {
  FakeRuntime rt(200000);
  CaptureJob job(1, 1, kLimit, kResumedLimit);
  std::thread capture([&] { agent::RunCapture(rt, job, kStopTimeoutMs); });
  // Nothing is taken until the capture is done: buffered mode holds the whole capture.
  const bool done = WaitUntil([&] { return job.done.load(std::memory_order_acquire); });
  if (!done) job.Cancel();
  capture.join();
  ASSERT_TRUE(done);
  ASSERT_TRUE(job.completed) << job.failure;
  EXPECT_EQ(job.world_resumed_ns.load(), 0);
  EXPECT_EQ(job.queue.waits(), 0u);
  EXPECT_GE(job.queue.messages_peak(), job.wire_bytes) << "every batch held at once";
  EXPECT_GT(TakeAll(job), job.wire_bytes);
}

TEST(BatchQueue, TheEncodersBuffersAreChargedAsTheyGrowAndGivenBackAsTheyShrink) {
  protocol::SendAccounting memory;
  agent::BatchQueue q(kLimit, &memory);
  const std::string msg(100, 'm');
  const size_t n = msg.capacity();
  ASSERT_TRUE(q.Push(msg, 5000, nullptr));
  EXPECT_EQ(memory.unacked(), 5000 + n);
  ASSERT_TRUE(q.Push(msg, 1000, nullptr));  // a phase's columns were released
  EXPECT_EQ(memory.unacked(), 1000 + 2 * n);
  ASSERT_TRUE(q.Push(msg, agent::BatchQueue::kBuffersUnchanged, nullptr));
  EXPECT_EQ(memory.unacked(), 1000 + 3 * n);
  EXPECT_EQ(q.buffers_peak(), 5000u);
  EXPECT_EQ(memory.peak(), 5000 + n);
  q.ReleaseFixed();
  EXPECT_EQ(memory.unacked(), 3 * n);
}

TEST(BatchQueue, TheResumedLimitOnlyGoesDown) {
  protocol::SendAccounting memory;
  agent::BatchQueue q(kLimit, &memory, kResumedLimit);
  q.LowerResumedLimit(kResumedLimit * 2);
  EXPECT_EQ(q.resumed_limit(), kResumedLimit);
  q.LowerResumedLimit(1000);
  EXPECT_EQ(q.resumed_limit(), 1000u);
}

}  // namespace
}  // namespace xrpm::testing
