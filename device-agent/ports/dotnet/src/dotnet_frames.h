// DotnetFrames: the per-frame records of a program under xrpm-dotnet (RuntimePort::
// SetFrameEventSink, xrpm/agent/frame_events.h), fed by the frame method's hooks (frame_hook.h)
// and the runtime's collection notifications (GarbageCollectionStarted/Finished, which the port
// receives in either event mode: COR_PRF_HIGH_BASIC_GC or COR_PRF_MONITOR_GC).
//
// A frame ends when the game thread returns from the frame method (Microsoft.Xna.Framework.Game:
// Tick unless --frame says otherwise): frame = the frames completed before it (0, 1, 2, ...: the
// hook's count), duration = previous end -> this end, work = the method's entry -> return,
// collections = those that finished since the previous end, their pause (started -> finished,
// summed). Allocations: with xrpm-dotnet --allocations=exact (ObjectAllocated, start-up only;
// dotnet_allocations.h) what the game thread allocated since the previous end, exact (every
// allocation is reported to the profiler); with the sampled route (the default --allocations on
// .NET 10) the weights of the game thread's samples in the frame, an unbiased estimate (most
// frames under 100 KiB show 0, a few ~100 KiB: meaningful averaged over frames); without
// --allocations 0 (the profiling API has no per-thread allocation figure). Allocation samples
// (dotnet_allocations.h) come from every thread and carry the frame in progress. No byte budget
// (gc_budget_left -1).
//
// Thread-safety: set_start from the runtime's start-up thread, before any managed code; SetSink
// from the agent's thread; OnEnter/OnLeave/CountAllocation/CountEstimate on the game thread only
// (the callers filter); OnGc from the collecting thread; Sample from any thread. Sink calls happen
// under sink_mu_ (frames on the game thread, samples on the allocating thread), so they are
// serialised, and SetSink returns only once the previous sink can receive no further call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "xrpm/agent/frame_events.h"
#include "xrpm/agent/gc_tally.h"

namespace xrpm {
namespace dotnet {

class DotnetFrames {
 public:
  // The clock's origin (the port's BootMillis origin), before the program runs managed code.
  void set_start(std::chrono::steady_clock::time_point start) { start_ = start; }

  void SetSink(agent::FrameEventSink* sink) {
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink && !sink_) gc_tally_.Take();  // a subscription's first frame holds only its own
    sink_ = sink;
    sink_active_.store(sink != nullptr, std::memory_order_release);
  }

  // The game thread entered the frame method (depth 0 -> 1). Without a sink nothing is timed
  // (an idle agent reads no clock per frame): a subscription's first frame has no duration or
  // work when it began before the subscription.
  void OnEnter() { enter_ns_ = sink_active() ? NowNs() : -1; }
  // The game thread returned from it (depth back to 0): frame number `frame` ended.
  void OnLeave(uint64_t frame) {
    if (sink_active()) return Record(frame);
    last_end_ns_ = -1;
    alloc_bytes_ = 0;
    alloc_objects_ = 0;
    est_bytes_ = est_objects_ = 0;
    frame_in_progress_.store(frame + 1, std::memory_order_relaxed);
  }
  // The game thread allocated an object of `bytes` (counted in the frame in progress).
  void CountAllocation(uint64_t bytes) {
    alloc_bytes_ += bytes;
    ++alloc_objects_;
  }
  // The game thread allocated an estimated `bytes` in `objects` (a sample's weight, the sampled
  // route: dotnet_allocations.h), counted in the frame in progress.
  void CountEstimate(double bytes, double objects) {
    est_bytes_ += bytes;
    est_objects_ += objects;
  }
  // A subscription listens (a sample is worth its stack walk).
  bool sink_active() const { return sink_active_.load(std::memory_order_acquire); }
  // Hands a sampled allocation to the sink (if any), stamped with the frame in progress.
  void Sample(agent::AllocationSample& sample) {
    sample.frame = frame_in_progress_.load(std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink_) sink_->OnAllocationSample(sample);
  }
  // A collection of `generation` (its highest) finished after a pause of `pause_us`.
  void OnGc(uint32_t pause_us, uint8_t generation, protocol::GcReason reason) {
    gc_tally_.Add(pause_us, generation, reason);
  }

 private:
  void Record(uint64_t frame);  // OnLeave with a sink
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start_)
        .count();
  }

  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex sink_mu_;
  agent::FrameEventSink* sink_ = nullptr;  // guarded by sink_mu_
  std::atomic<bool> sink_active_{false};

  // Game thread only.
  int64_t last_end_ns_ = -1;
  int64_t enter_ns_ = -1;
  uint64_t alloc_bytes_ = 0;  // since the previous end (CountAllocation)
  uint32_t alloc_objects_ = 0;
  double est_bytes_ = 0;  // since the previous end (CountEstimate)
  double est_objects_ = 0;

  std::atomic<uint64_t> frame_in_progress_{0};  // the next OnLeave's frame number

  agent::GcTally gc_tally_;  // the collections since the last frame ended
};

}  // namespace dotnet
}  // namespace xrpm
