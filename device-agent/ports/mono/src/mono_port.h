// MonoPort: the device agent's RuntimePort over a running Mono (SGen) runtime, driven by the
// profiler module's callbacks (profiler_entry.cpp wires them).
//
// A capture, as the agent runs it (RunWithWorldStopped -> InduceFullCollection -> WalkHeap):
//   1. The capture thread posts a request and waits for a Mono thread to take it: the game
//      thread when it leaves the frame method (Microsoft.Xna.Framework.Game:Tick unless
//      --frame says otherwise; "frame boundary"), or, when no thread has left the frame
//      method within the frame window (1 s unless --frame-window-ms says otherwise), the
//      finalizer thread, which Mono wakes for us ("safe point": the next point where Mono can
//      stop every thread).
//   2. That thread (the "collector") calls mono_gc_collect(max generation) with root and move
//      reporting on. At MONO_GC_EVENT_PRE_START_WORLD of that full, serial collection, with
//      every other thread stopped, it hands over to the capture thread and waits.
//   3. The capture thread's WalkHeap has the collector walk (mono_gc_walk_heap, which at that
//      point reports live objects only; roots from the collection's gc_roots reports, mapped
//      through its moves) into the agent's sink: Mono's queries need a thread attached to the
//      runtime, which the agent's threads are not. Then the collector goes on: the world
//      restarts and the game continues.
//   3'. With the snapshot walk (WalkMode::kSnapshot, the default on Linux; snapshot_walk.h),
//      the collector instead starts a copy-on-write child of the process that walks the heap
//      as it was into a pipe, and the world restarts at once; the capture thread tells the
//      sink (WorldResumed: the game's pause ends here) and replays the child's walk into it
//      while the game runs. Kept paused: with allocation origins (the walk prunes the origin
//      tracker, which a child cannot do for the parent), or when no child can be made. The
//      child is a raw clone (SnapshotWalk::Clone::kRaw): under hybrid suspend a stopped thread
//      may hold a malloc arena lock, on which glibc's fork() would wait for good. The child
//      has the collector thread's copy only, so Mono's queries see the collector's thread.
//      SGen's concurrent sweep: a full collection hands its sweep to a worker thread that may
//      still run when the world restarts, and mono_gc_walk_heap waits for it, in the child
//      (which has no such thread) forever; xrpm-mono therefore runs Mono with MONO_GC_PARAMS
//      no-concurrent-sweep when it snapshots (unless the environment already says
//      concurrent-sweep or no-concurrent-sweep): the sweep (lazy: blocks are only checked) is
//      then part of the collection. A child that hangs anyway is killed after
//      SnapshotWalk::kIdleTimeoutMs, the capture fails, and the port walks paused from then on.
//      Test hook: XRPM_MONO_SNAPSHOT_STOP=1 (read when the port is made) makes the first
//      snapshot's child stop itself before it walks.
// A collection that turns out concurrent (is_serial false) is not walked; the collector
// collects again (at most three times).
//
// Allocation origins (origin_tracker.h): with `allocations` and a start-up sample interval > 0,
// every thread's allocations are sampled (SampleInterval) from start-up; a sampled object is
// recorded with the frame counter (MonoFrames::completed) and its stack's site, its address is
// kept current through Mono's move reports (gc_moves, on for every collection then), and the
// capture's walk reports the origins (heap_walk.cpp) and prunes what it did not see.
//
// Nothing here blocks a Mono thread on a lock another Mono thread may hold while suspended:
// registries are fed through a lock-free log (event_log.h), counters are atomics, and the
// capture state is only locked by the collector while it is the one collecting.
//
// Thread-safety: RuntimePort methods from the agent's threads; the On* callbacks from Mono's
// threads as documented on each.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "event_log.h"
#include "field_layouts.h"
#include "game_api.h"
#include "mono_counters.h"
#include "mono_frames.h"
#include "origin_tracker.h"
#include "profiler_options.h"
#include "registry.h"
#include "xrpm/agent/runtime_port.h"
#include "xrpm/agent/sample_interval.h"
#include "xrpm/agent/snapshot_walk.h"

namespace xrpm {
namespace mono {

using agent::SnapshotWalk;

// Where the last capture stopped the game.
enum class StopPoint : uint8_t { kNone, kFrameBoundary, kSafePoint };

class MonoPort final : public agent::RuntimePort {
 public:
  // `reporting(on)` turns Mono's root and move reports on for the capture's collection only
  // (they cost every collection something).
  // `allocations`: Mono reports allocations (profiler option `allocations`), so frames and
  // allocation samples can be served (mono_frames.h). `origin_sample_bytes` (with
  // `allocations`): the start-up sample interval of allocation origins; 0 records none.
  // `frame_window_ms`: a capture waits for the frame boundary when the frame method returned
  // within this window, else for the next safe point.
  // `walk`: how captures walk the heap (profiler_options.h WalkMode).
  MonoPort(std::string app_name, FrameMethod frame, void (*reporting)(bool on),
           bool allocations = false, uint32_t origin_sample_bytes = 0,
           uint32_t frame_window_ms = kDefaultFrameWindowMs, WalkMode walk = kDefaultWalkMode);
  ~MonoPort() override;
  MonoPort(const MonoPort&) = delete;
  MonoPort& operator=(const MonoPort&) = delete;

  // ---- RuntimePort ----
  agent::RuntimeInfo Info() const override;
  uint64_t BootMillis() const override;
  size_t CounterCount() const override { return kMonoCounterCount; }
  agent::CounterInfo DescribeCounter(size_t index) const override {
    return MonoCounters::Describe(index);
  }
  size_t SampleCounters(agent::CounterValue* out, size_t count) const override;
  bool RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) override;
  void InduceFullCollection() override;
  void WalkHeap(agent::HeapInfoCallback& sink) override;
  // Where the last capture stopped the game: "at the frame boundary (NS.Class:Method)" or "at
  // the next safe point (...)". Also logged with each capture ("xrpm-agent: capture: ...").
  std::string LastStopPoint() const;
  bool SetFrameEventSink(agent::FrameEventSink* sink, uint32_t sample_bytes) override {
    if (!frames_.SetSink(sink)) return false;
    interval_.SetSubscription(sink ? sample_bytes : 0);
    return true;
  }
  bool SupportsFrameEvents() const override { return frames_.enabled(); }
  // Xrpm.Profiler.Marker / RequestCapture (game_api.h).
  bool SetGameEventSink(agent::GameEventSink* sink) override { return game_.SetSink(sink); }
  agent::GameEvents& game_events() { return game_; }
  // Layouts, slots, static labels and values (field_layouts.h).
  bool ReportsFields() const override { return true; }
  bool ReportsValues() const override { return true; }
  MonoFrames& frames() { return frames_; }
  // Allocation origins are recorded (Mono must then report every move).
  bool origins_enabled() const { return origins_ != nullptr; }
  OriginTracker::Stats origin_stats() const {
    return origins_ ? origins_->stats() : OriginTracker::Stats{};
  }
  // Where the port's lines go (the agent's log function; empty: stderr, "xrpm-agent: " prefix).
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

  const FrameMethod& frame() const { return frame_; }
  EventLog& events() { return events_; }
  MonoCounters& counters() { return counters_; }
  StopPoint last_stop_point() const { return last_stop_.load(); }

  // ---- Mono callbacks (profiler_entry.cpp) ----
  // The frame method returned (the game thread, at its frame boundary).
  void OnFrameLeave();
  // The finalizer thread woke up (gc_finalizing).
  void OnFinalizing();
  // gc_event on the collecting thread.
  void OnGcEvent(int event, uint32_t generation, bool is_serial);
  // An object was allocated (gc_allocation; any thread; MonoObject*).
  void OnAllocation(void* object);
  // gc_roots during our collection; gc_moves during our collection and, with origins, during
  // every collection (the GC thread, world stopped).
  void OnRoots(uint64_t count, const void* const* addresses, void* const* objects);
  void OnMoves(void* const* objects, uint64_t count);
  bool capture_gc_active() const { return capture_gc_.load(std::memory_order_acquire); }
  // The runtime finished initialising and loaded the program (profiler_callbacks.cpp): captures
  // may be served from now on (a capture asked for
  // earlier waits for this, within its time limit).
  void SetRuntimeReady();

 private:
  // kWalking: the capture thread asked the collector to walk into walk_sink_; kWalked: done.
  enum class Phase : uint8_t {
    kIdle,
    kRequested,
    kCollecting,
    kWorldStopped,
    kWalking,
    kWalked,
    kWalkDone
  };
  void Collect();  // on the collector thread
  using AddressPairs = std::vector<std::pair<uintptr_t, uintptr_t>>;
  // The walk itself, on the collector thread (Mono's heap and handle queries need a thread
  // attached to the runtime; the agent's threads are not). With `snapshot`, it starts a child
  // that walks and returns it (null: the walk was made here, in the pause). No exception
  // escapes.
  // escapes; *note: why a snapshot could not be taken.
  std::unique_ptr<SnapshotWalk> WalkOnCollector(agent::HeapInfoCallback& sink, bool snapshot,
                                                std::string* note);
  std::unique_ptr<SnapshotWalk> WalkOnCollectorUnguarded(agent::HeapInfoCallback& sink,
                                                         bool snapshot, std::string* note);
  // The walk proper, with the registry locked and this collection's moves and roots taken;
  // in the pause or in the snapshot's child.
  void WalkLocked(agent::HeapInfoCallback& sink, AddressPairs& moves, const AddressPairs& raw);
  void Bookkeeper();
  void SampleAllocation(void* object, uint32_t size, bool game_thread);
  std::string OriginsLine() const;

  const std::string app_name_;
  const FrameMethod frame_;
  void (*const reporting_)(bool on);
  const uint32_t frame_window_ms_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<bool> ready_{false};
  std::function<void(const std::string&)> log_;
  MonoFrames frames_;
  agent::GameEvents game_{start_, &MonoFrameInProgress, &frames_};
  agent::SampleInterval interval_;
  std::unique_ptr<OriginTracker> origins_;  // null: origins off
  EventLog events_;
  Registry registry_;
  FieldLayouts layouts_;  // the collector thread of a capture (field_layouts.h)
  MonoCounters counters_;

  // Capture hand-over (see the class comment).
  std::mutex mu_;
  std::condition_variable cv_;
  Phase phase_ = Phase::kIdle;
  StopPoint mode_ = StopPoint::kNone;
  bool walked_ = false;
  agent::HeapInfoCallback* walk_sink_ = nullptr;
  const WalkMode walk_mode_;
  bool snapshot_stop_for_test_ = false;     // snapshot_walk.h's test hook (the first child)
  std::unique_ptr<SnapshotWalk> snapshot_;  // started by the collector, replayed by WalkHeap
  bool snapshot_taken_ = false;
  bool snapshot_failed_ = false;  // a snapshot walk broke: later captures walk paused
  std::string walk_note_;         // how the last walk went, logged with the capture
  std::atomic<int> request_{0};   // a StopPoint value while a request waits for a taker
  std::atomic<bool> capture_gc_{false};
  std::atomic<pthread_t> collector_{};
  std::atomic<int64_t> last_frame_leave_ns_{0};
  std::atomic<StopPoint> last_stop_{StopPoint::kNone};
  std::mutex roots_mu_;                                 // GC threads only, during our collection
  std::vector<std::pair<uintptr_t, uintptr_t>> roots_;  // (root address, object)
  std::vector<std::pair<uintptr_t, uintptr_t>> moves_;  // (old address, new address)

  // GC timing for the latency counter (collecting thread only).
  int64_t gc_start_ns_ = 0;
  uint8_t gc_generation_ = 0;  // the collection in progress's (MONO_GC_EVENT_START)
  // A collection ended since the memory counters were last read: Mono's heap-size queries take
  // the GC lock, so they are made at the next frame boundary or finalizer wake-up, outside it.
  std::atomic<bool> memory_stale_{true};
  void UpdateMemoryCounters();

  // The bookkeeper drains the event log every 100 ms so it stays small.
  std::mutex book_mu_;
  std::condition_variable book_cv_;
  bool book_stop_ = false;
  std::thread bookkeeper_;
};

}  // namespace mono
}  // namespace xrpm
