// ctest-labels: threaded
// The capture queue's memory bound once the game runs again before the walk is over (a snapshot
// walk, heap_walker.h WorldResumed; device-agent/src/batch_queue.h): the walk waits for the
// network instead of filling the queue, a cancel while it waits ends the capture, and a walk in
// the stopped world keeps buffered mode; on a small heap of many classes the bound is sized to
// the heap and the agent's peak stays under 16 B/object (accounting, not timing). The test
// stands in for the network thread: it takes the queued messages and frees them as ENet would,
// only when told to, so the producer is held at known points (it waited for room) instead of
// racing the consumer.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "capture_job.h"
#include "capture_sink.h"
#include "fake_runtime.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm::testing {
namespace {

using agent::CaptureJob;
using agent::ContainerType;
using agent::RootRef;
using agent::WalkResult;

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
// job's account. `last` (may be null) keeps the last message taken.
size_t TakeAll(CaptureJob& job, std::string* last = nullptr) {
  std::string bytes;
  size_t n = 0;
  while (job.queue.Pop(&bytes)) {
    n += bytes.size();
    job.memory.Release(bytes.capacity());
    if (last) *last = bytes;
  }
  job.queue.Wake();
  return n;
}

bool Finished(const CaptureJob& job) {
  return job.done.load(std::memory_order_acquire) && job.queue.closed_and_empty();
}

// Runs a capture of `rt` into `job`, which must complete (use with ASSERT_NO_FATAL_FAILURE);
// the consumer takes the queue only once the walk waited for room, so every wait is the bound's
// doing and the queue is as full as the bound lets it be each time (and once the capture is
// done). Adds the bytes taken to *taken; `end` (may be null) gets the CaptureEnd.
void CaptureToTheEnd(agent::RuntimePort& rt, CaptureJob& job, size_t* taken,
                     wire::CaptureEnd* end = nullptr) {
  std::string last;
  std::thread capture([&] { agent::RunCapture(rt, job, kStopTimeoutMs); });
  uint64_t seen = 0;
  const bool ended = WaitUntil([&] {
    const uint64_t w = job.queue.waits();
    const bool done = job.done.load(std::memory_order_acquire);
    if (w > seen || done) {
      seen = w;
      *taken += TakeAll(job, &last);
    }
    return Finished(job);
  });
  if (!ended) job.Cancel();  // lets the capture thread end before the join
  capture.join();
  ASSERT_TRUE(ended) << "the capture did not end";
  ASSERT_TRUE(job.completed) << job.failure;
  if (!end) return;
  wire::Envelope env;
  ASSERT_EQ(protocol::ParseEnvelope(reinterpret_cast<const uint8_t*>(last.data()), last.size(),
                                    protocol::kMaxAgentMessageBytes, &env),
            protocol::ParseStatus::kOk);
  ASSERT_TRUE(env.has_capture_end());
  *end = env.capture_end();
}

TEST(BatchQueue, AfterTheWorldResumedTheWalkWaitsForTheNetworkAtTheBound) {
  ResumingRuntime rt(600000);  // ~4 MiB on the wire, ~1 MiB of encoder buffers
  CaptureJob job(1, 1, kLimit, kResumedLimit);
  size_t taken = 0;
  ASSERT_NO_FATAL_FAILURE(CaptureToTheEnd(rt, job, &taken));
  EXPECT_GT(job.world_resumed_ns.load(), 0);
  EXPECT_GT(taken, job.wire_bytes) << "every batch and the CaptureEnd reached the consumer";
  EXPECT_GE(job.wire_bytes, 24 * kResumedLimit) << "the heap must be much larger than the bound";
  EXPECT_GE(job.queue.waits(), job.wire_bytes / kResumedLimit / 2) << "the bound held the walk";
  EXPECT_LE(job.queue.messages_peak(), kResumedLimit);
  EXPECT_LE(job.peak_bytes, kResumedLimit + job.queue.buffers_peak())
      << "agent peak: the bound plus the encoder's buffers";
  EXPECT_LT(job.peak_bytes, job.wire_bytes / 2);
}

// A snapshot walk of a small heap (the fake's heap counter says 4 KiB) seals inline until the
// capture has CaptureSink::kFullBatchesAfterObjects objects, then on the sealer thread: the
// same batches as a walk in the stopped world, which seals on the sealer thread throughout.
TEST(BatchQueue, ASmallHeapsSnapshotWalkThatGrowsLargeSendsTheSameBatches) {
  constexpr size_t kObjects = 300000;
  static_assert(kObjects > 2 * agent::CaptureSink::kFullBatchesAfterObjects, "switches");
  FakeRuntime stopped(kObjects);
  ResumingRuntime resuming(kObjects);
  CaptureJob a(1, 1, kLimit, size_t{4} << 20), b(1, 1, kLimit, size_t{4} << 20);
  size_t taken_a = 0, taken_b = 0;
  wire::CaptureEnd end_a, end_b;
  ASSERT_NO_FATAL_FAILURE(CaptureToTheEnd(stopped, a, &taken_a, &end_a));
  ASSERT_NO_FATAL_FAILURE(CaptureToTheEnd(resuming, b, &taken_b, &end_b));
  EXPECT_EQ(a.world_resumed_ns.load(), 0);
  EXPECT_GT(b.world_resumed_ns.load(), 0);
  EXPECT_LT(b.queue.resumed_limit(), size_t{4} << 20) << "a small heap's bound";
  EXPECT_EQ(end_b.object_count(), kObjects);
  EXPECT_EQ(end_a.object_count(), end_b.object_count());
  EXPECT_EQ(end_a.batch_count(), end_b.batch_count());
  EXPECT_EQ(end_a.checksum(), end_b.checksum());
  EXPECT_EQ(a.wire_bytes, b.wire_bytes) << "the same batches, byte for byte in size";
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

// ---- the agent's peak on a small heap of many classes ----
// The csharp shell's shape (66 k objects, 18 k classes, ~1 MB of the capture being class
// names), walked after the game resumed: the messages held are bounded by a share of the live
// heap (CaptureSink::kResumedLimitHeapShare, not the 4 MiB a large heap needs), the batches are
// sealed inline and a phase's columns are given back, so the agent's peak stays under
// 16 B/object.

constexpr size_t kObjects = 66000;
constexpr uint32_t kTypes = 18000;
constexpr size_t kRoots = 6000;

// A heap of kObjects objects of kTypes classes with ~75-byte names, kRoots roots, 0-3
// references each, walked after WorldResumed (as the Mono port replays a snapshot). With
// `heap_counter` it reports the live heap's bytes in "Managed Bytes In Use After GC".
class ManyClassesRuntime : public agent::RuntimePort {
 public:
  explicit ManyClassesRuntime(bool heap_counter) : heap_counter_(heap_counter) {
    std::mt19937_64 rng(25);
    uint64_t addr = 0x7f0000001000;
    for (size_t i = 0; i < kObjects; ++i) {
      const uint32_t size = 16 + 8 * static_cast<uint32_t>(rng() % 16);
      ids_.push_back(addr);
      types_.push_back(1 + static_cast<uint32_t>(rng() % kTypes));
      sizes_.push_back(size);
      addr += size;
      heap_bytes_ += size;
    }
    for (size_t i = 0; i < kObjects; ++i) refs_.push_back(rng() % 4);
  }

  agent::RuntimeInfo Info() const override {
    return {"many classes", "1.0", "csharp.exe", "test", 8, false, 2, 1};
  }
  uint64_t BootMillis() const override { return 1000; }
  size_t CounterCount() const override { return heap_counter_ ? 1 : 0; }
  agent::CounterInfo DescribeCounter(size_t) const override {
    return {"Garbage Collector", "Managed Bytes In Use After GC", "bytes"};
  }
  size_t SampleCounters(agent::CounterValue* out, size_t count) const override {
    if (!heap_counter_ || count == 0) return 0;
    const auto b = static_cast<int64_t>(heap_bytes_);
    out[0] = {b, b, 1, double(b), b, b};
    return 1;
  }
  bool RunWithWorldStopped(void (*fn)(void*), void* ctx, uint32_t) override {
    fn(ctx);
    return true;
  }
  void InduceFullCollection() override {}
  void WalkHeap(agent::HeapInfoCallback& sink) override {
    sink.WorldResumed();
    Walk(sink);
    sink.BeginContainer(ContainerType::kEnd, 0, 0);
  }

  uint64_t heap_bytes() const { return heap_bytes_; }

 private:
  void Walk(agent::HeapInfoCallback& sink) const {
    if (sink.BeginContainer(ContainerType::kBegin, 0, 0) != WalkResult::kOk) return;
    std::string name;
    for (uint32_t t = 1; t <= kTypes; ++t) {
      name = "System.Collections.Generic.Dictionary`2[Mono.CSharp.Namespace" + std::to_string(t) +
             ",System.Object]";
      if (sink.DescribeType(t, name.data(), name.size()) != WalkResult::kOk) return;
    }
    if (sink.BeginContainer(ContainerType::kStrongPtr, 1, 0) != WalkResult::kOk) return;
    std::vector<RootRef> roots;
    for (size_t r = 0; r < kRoots; ++r) roots.push_back({ids_[(r * 7919) % kObjects], 0});
    if (sink.RootReferences(roots.data(), roots.size()) != WalkResult::kOk) return;
    if (sink.BeginContainer(ContainerType::kHeap, 0, 0) != WalkResult::kOk) return;
    uint64_t refs[3];
    for (size_t i = 0; i < kObjects; ++i) {
      for (size_t k = 0; k < refs_[i]; ++k) refs[k] = ids_[(i * 31 + k * 977) % kObjects];
      if (sink.ObjectReferences(ids_[i], types_[i], sizes_[i], refs, refs_[i]) ==
          WalkResult::kAbort)
        return;
    }
  }

  const bool heap_counter_;
  std::vector<uint64_t> ids_;
  std::vector<uint32_t> types_, sizes_;
  std::vector<size_t> refs_;
  uint64_t heap_bytes_ = 0;
};

constexpr size_t kDefaultResumedLimit = size_t{4} << 20;  // AgentOptions' default

TEST(CapturePeak, ASmallHeapOfManyClassesStaysUnder16BytesAnObject) {
  ManyClassesRuntime rt(true);
  CaptureJob job(1, 1, kLimit, kDefaultResumedLimit);
  size_t taken = 0;
  ASSERT_NO_FATAL_FAILURE(CaptureToTheEnd(rt, job, &taken));
  const size_t bound =
      std::max<size_t>(rt.heap_bytes() / agent::CaptureSink::kResumedLimitHeapShare,
                       agent::CaptureSink::kMinResumedLimit);
  ASSERT_LT(bound, kDefaultResumedLimit);
  EXPECT_EQ(job.queue.resumed_limit(), bound) << "the bound is sized to the heap";
  EXPECT_GT(taken, job.wire_bytes) << "every batch and the CaptureEnd reached the consumer";
  EXPECT_GE(job.wire_bytes, 4 * bound) << "the capture must be much larger than the bound";
  EXPECT_LE(job.queue.messages_peak(), bound);
  EXPECT_LE(job.peak_bytes, 16 * kObjects)
      << "agent peak " << job.peak_bytes << " bytes: messages " << job.queue.messages_peak()
      << ", buffers " << job.queue.buffers_peak();
}

TEST(CapturePeak, WithoutAHeapSizeTheResumedLimitStays) {
  // No heap counter: the configured bound holds, and this consumer (which frees only when the
  // walk waits) lets the whole capture be held, far over 16 B/object: what the heap-sized bound
  // above saves.
  ManyClassesRuntime rt(false);
  CaptureJob job(1, 1, kLimit, kDefaultResumedLimit);
  size_t taken = 0;
  ASSERT_NO_FATAL_FAILURE(CaptureToTheEnd(rt, job, &taken));
  EXPECT_EQ(job.queue.resumed_limit(), kDefaultResumedLimit);
  EXPECT_LT(job.wire_bytes, kDefaultResumedLimit);
  EXPECT_GE(job.queue.messages_peak(), job.wire_bytes) << "the whole capture was held";
  EXPECT_GT(job.peak_bytes, 16 * kObjects);
}

}  // namespace
}  // namespace xrpm::testing
