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
// that ended since the previous end and their pause. The port samples allocations
// (SampleInterval, xrpm/agent/sample_interval.h) and walks the stack of a sampled one
// (stack_walk.h); a sample on the game thread is passed here and carries the type and up to 32
// managed frames (innermost first; method names "Namespace.Class.Method", cached per method).
// completed() is the port's frame counter: frames completed by the game thread.
//
// Thread-safety: SetSink from the agent's thread; OnFrameEnter/OnFrameLeave/CountAllocation on
// Mono threads (only the game thread's are used); Sample on the game thread; OnGc from the
// collecting thread; completed() anywhere. Sink calls happen under sink_mu_, on the game thread
// only, so they are serialised, and SetSink returns only once the previous sink can receive no
// further call.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "stack_walk.h"
#include "xrpm/agent/frame_events.h"
#include "xrpm/agent/gc_tally.h"

namespace xrpm {
namespace mono {

class MonoFrames {
 public:
  MonoFrames(bool enabled, std::chrono::steady_clock::time_point start)
      : enabled_(enabled), start_(start) {}

  bool enabled() const { return enabled_; }
  bool SetSink(agent::FrameEventSink* sink);
  bool sink_active() const { return sink_active_.load(std::memory_order_acquire); }
  // Frames completed by the game thread (the frame in progress).
  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }

  void OnFrameEnter();
  void OnFrameLeave();
  // The calling thread is the game thread (frames enabled).
  bool on_game_thread() const { return enabled_ && OnGameThread(); }
  // Counts an allocation of `size` bytes; true when the calling thread is the game thread.
  bool CountAllocation(uint32_t size);
  // A sampled allocation of the game thread (MonoObject*), its stack walked.
  void Sample(void* object, uint32_t size, const StackWalk& walk);
  // A collection of `generation` (SGen: 0 nursery, 1 major) ended after a pause of `pause_us`;
  // Mono does not say why a collection ran.
  void OnGc(uint32_t pause_us, uint8_t generation) {
    gc_tally_.Add(pause_us, generation, protocol::GcReason::kUnknown);
  }

 private:
  bool OnGameThread() const {
    return have_game_.load(std::memory_order_acquire) && pthread_equal(game_, pthread_self());
  }
  const std::string& CachedMethodName(void* method);
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
  std::atomic<uint64_t> completed_{0};

  // Game thread only.
  uint64_t frame_ = 0;
  int64_t last_end_ns_ = -1;
  int64_t enter_ns_ = -1;
  uint64_t bytes_ = 0;
  uint32_t objects_ = 0;
  std::unordered_map<void*, std::string> method_names_;
  std::unordered_map<void*, std::string> type_names_;

  agent::GcTally gc_tally_;  // the collections since the last frame ended
};

}  // namespace mono
}  // namespace xrpm
