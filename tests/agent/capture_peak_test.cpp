// ctest-labels: threaded
// The agent's peak extra memory (CaptureEnd.agent_peak_bytes) on a small heap of many classes,
// the csharp shell's shape (issue 25: 66 k objects, 18 k classes, ~1 MB of the capture being
// class names), walked after the game resumed (a snapshot walk): the messages held are bounded
// by a share of the live heap (CaptureSink::kResumedLimitHeapShare, not the 4 MiB a large heap
// needs), the batches are sealed inline and a phase's columns are given back when it ends, so
// the peak stays under 16 B/object. Accounting assertions only: the test stands in for the
// network thread and frees what is queued only once the walk waited for room, so the queue is
// as full as the bound lets it be (batch_queue_test.cpp does the same).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "capture_job.h"
#include "capture_sink.h"
#include "xrpm/agent/runtime_port.h"

namespace xrpm::testing {
namespace {

using agent::CaptureJob;
using agent::ContainerType;
using agent::RootRef;
using agent::WalkResult;

constexpr size_t kObjects = 66000;
constexpr uint32_t kTypes = 18000;
constexpr size_t kRoots = 6000;

// A heap of kObjects objects of kTypes classes with ~60-byte names, kRoots roots, 0-3
// references each, walked after WorldResumed (as the Mono port replays a snapshot). Reports
// the live heap's bytes in "Managed Bytes In Use After GC" (`heap_counter`, 0: not at all).
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

// Polls `done` until it holds or 60 s passed (a bounded wait: it costs time only when the code
// under test is broken).
bool WaitUntil(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// Runs one capture of `rt` with the agent's default bounds; the consumer frees the queue each
// time the walk waited for room, and once the capture is done.
void Capture(ManyClassesRuntime& rt, CaptureJob& job) {
  std::thread capture([&] { agent::RunCapture(rt, job, 5000); });
  uint64_t seen = 0;
  auto take_all = [&] {
    std::string bytes;
    while (job.queue.Pop(&bytes)) job.memory.Release(bytes.capacity());
    job.queue.Wake();
  };
  const bool ended = WaitUntil([&] {
    const uint64_t w = job.queue.waits();
    const bool done = job.done.load(std::memory_order_acquire);
    if (w > seen || done) {
      seen = w;
      take_all();
    }
    return done && job.queue.closed_and_empty();
  });
  if (!ended) job.Cancel();  // lets the capture thread end before the join
  capture.join();
  ASSERT_TRUE(ended) << "the capture did not end";
  ASSERT_TRUE(job.completed) << job.failure;
}

constexpr size_t kMemoryLimit = size_t{256} << 20;   // AgentOptions' defaults
constexpr size_t kResumedLimit = size_t{4} << 20;

TEST(CapturePeak, ASmallHeapOfManyClassesStaysUnder16BytesAnObject) {
  ManyClassesRuntime rt(true);
  CaptureJob job(1, 1, kMemoryLimit, kResumedLimit);
  ASSERT_NO_FATAL_FAILURE(Capture(rt, job));
  const size_t bound = std::max<size_t>(rt.heap_bytes() / agent::CaptureSink::kResumedLimitHeapShare,
                                        agent::CaptureSink::kMinResumedLimit);
  ASSERT_LT(bound, kResumedLimit);
  EXPECT_EQ(job.queue.resumed_limit(), bound) << "the bound is sized to the heap";
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
  CaptureJob job(1, 1, kMemoryLimit, kResumedLimit);
  ASSERT_NO_FATAL_FAILURE(Capture(rt, job));
  EXPECT_EQ(job.queue.resumed_limit(), kResumedLimit);
  EXPECT_LT(job.wire_bytes, kResumedLimit);
  EXPECT_GE(job.queue.messages_peak(), job.wire_bytes) << "the whole capture was held";
  EXPECT_GT(job.peak_bytes, 16 * kObjects);
}

}  // namespace
}  // namespace xrpm::testing
