// MonoFrames: per-frame records and sampled allocations with their managed stacks for the Mono
// port (RuntimePort::SetFrameEventSink, xrpm/agent/frame_events.h). Enabled by the profiler
// option `allocations` (xrpm-mono --allocations), because Mono must be told at start-up to report
// allocations (mono_profiler_enable_allocations), which sends every allocation through a slower
// path; without it the port reports no frames and the agent refuses a frames subscription.
//
// The game thread is the thread that runs the frame method. A frame ends when the frame method
// returns: duration = previous end -> this end, work = the frame method's entry -> return,
// allocations = what the game thread allocated since the previous end (exact, from Mono's
// allocation events; other threads' allocations are not in the frame), collections = those
// that ended since the previous end and their pause. Allocation samples (AllocationSampler on the
// game thread) carry the type and up to 32 managed frames (mono_stack_walk_no_il, innermost
// first; method names "Namespace.Class.Method", cached per method).
//
// Thread-safety: SetSink from the agent's thread; OnFrameEnter/OnFrameLeave/OnAllocation on Mono
// threads (only the game thread's are used); OnGc from the collecting thread. Sink calls happen
// under sink_mu_, on the game thread only, so they are serialised, and SetSink returns only once
// the previous sink can receive no further call.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "xrpm/agent/frame_events.h"

namespace xrpm {
namespace mono {

class MonoFrames {
 public:
  MonoFrames(bool enabled, std::chrono::steady_clock::time_point start)
      : enabled_(enabled), start_(start) {}

  bool enabled() const { return enabled_; }
  bool SetSink(agent::FrameEventSink* sink, uint32_t sample_bytes);

  void OnFrameEnter();
  void OnFrameLeave();
  void OnAllocation(void* object);  // MonoObject*
  void OnGc(uint32_t pause_us) {
    gcs_.fetch_add(1, std::memory_order_relaxed);
    gc_pause_us_.fetch_add(pause_us, std::memory_order_relaxed);
  }

 private:
  bool OnGameThread() const {
    return have_game_.load(std::memory_order_acquire) && pthread_equal(game_, pthread_self());
  }
  void Sample(void* object, uint32_t size);
  const std::string& MethodName(void* method);
  const std::string& TypeName(void* klass);
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start_)
        .count();
  }

  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<bool> have_game_{false};
  pthread_t game_{};

  std::mutex sink_mu_;
  agent::FrameEventSink* sink_ = nullptr;  // guarded by sink_mu_
  std::atomic<bool> sink_active_{false};
  std::atomic<uint32_t> pending_mean_{0};
  std::atomic<bool> mean_changed_{false};

  // Game thread only.
  agent::AllocationSampler sampler_;
  uint64_t frame_ = 0;
  int64_t last_end_ns_ = -1;
  int64_t enter_ns_ = -1;
  uint64_t bytes_ = 0;
  uint32_t objects_ = 0;
  std::unordered_map<void*, std::string> method_names_;
  std::unordered_map<void*, std::string> type_names_;

  std::atomic<uint32_t> gcs_{0};
  std::atomic<uint32_t> gc_pause_us_{0};
};

}  // namespace mono
}  // namespace xrpm
