// RuntimePort: what a managed runtime (the emulator today, a device runtime later) implements so
// the device agent can serve a host: identity, counters, stopping the world, GC and the heap walk,
// and (optionally) per-frame figures and allocation samples with call stacks (frame_events.h).
//
// The agent calls these from its own network thread. The runtime owns its game thread(s).
// Plain C++17, no exceptions across the interface, no allocation required of the runtime.
//
// Thread-safety: every method may be called from the agent thread while the game runs, except
// where a method says it needs the world stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "xrpm/agent/frame_events.h"
#include "xrpm/agent/game_events.h"
#include "xrpm/agent/heap_walker.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm {
namespace agent {

// The clock of WorldStoppedAtNs and HeapReportStartNs (and of the agent's own timing):
// std::chrono::steady_clock in nanoseconds since its epoch. Ports stamp their moments with it.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct RuntimeInfo {
  const char* runtime_name;     // e.g. "xrpm-emulator (NETCF 3.5 model)"
  const char* runtime_version;  // e.g. "3.5.0"
  const char* app_name;         // e.g. "bubbles.exe"
  const char* platform;         // e.g. "Xbox 360 (emulated)"
  uint32_t pointer_bytes;       // 4 on Xbox 360 / NETCF
  bool big_endian;              // true on Xbox 360
  uint32_t dump_version;        // the `a` record's version number (2 for NETCF 2.0 SP2+)
  uint32_t app_domain_count;
};

// One performance counter, as the NETCF Remote Performance Monitor shows it: the catalog's type
// (xrpm/protocol/netcf_counters.h), which the host reads back from the wire.
using CounterInfo = protocol::CounterInfo;

// The `.stat` columns of one counter.
struct CounterValue {
  int64_t total;  // running total (or current level for level counters)
  int64_t last;   // last datum
  uint64_t n;     // number of data
  double mean;
  int64_t min;
  int64_t max;
};

class RuntimePort : public HeapWalkable {
 public:
  ~RuntimePort() override = default;

  virtual RuntimeInfo Info() const = 0;
  // Milliseconds since the device booted (the clock of the `a`/`c` timestamps).
  virtual uint64_t BootMillis() const = 0;

  virtual size_t CounterCount() const = 0;
  virtual CounterInfo DescribeCounter(size_t index) const = 0;
  // Fills out[0..min(count, CounterCount())) with a consistent sample; returns how many.
  virtual size_t SampleCounters(CounterValue* out, size_t count) const = 0;

  // Stops the game at its next safe point (a frame boundary), calls fn(ctx) on the calling
  // thread while every game thread is parked, then resumes the game. Returns false (without
  // calling fn) if the game could not be stopped within timeout_ms. While fn runs, the agent
  // may call InduceFullCollection() and WalkHeap().
  virtual bool RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) = 0;
  // A full, compacting collection, as GC.Collect() would do (world stopped).
  virtual void InduceFullCollection() = 0;
  // When the world stopped for the last InduceFullCollection, on std::chrono::steady_clock in
  // nanoseconds since its epoch, for a runtime that stops the game only inside the collection
  // rather than in RunWithWorldStopped (CoreCLR: RunWithWorldStopped returns at once and the
  // collection may first wait for the frame boundary); 0 otherwise. The capture's pause and its
  // stop wait are measured from it when it is set.
  virtual int64_t WorldStoppedAtNs() const { return 0; }
  // For such a runtime, when its collection was done and it began reporting the heap inside the
  // same pause (same clock; 0: not known): the capture then reports the collection and the walk
  // apart (gc_us, walk_us).
  virtual int64_t HeapReportStartNs() const { return 0; }
  // The objects and references the WalkHeap under way will report, for a runtime that knows
  // them before it walks (one that recorded its heap inside the collection): false when not
  // known. Asked once per capture, on the walking thread, before the walk's first callback
  // returns; the host prepares for them (CaptureBegin.expected_objects).
  virtual bool WalkSizes(uint64_t* objects, uint64_t* refs) const {
    (void)objects;
    (void)refs;
    return false;
  }
  // A forecast of a capture's sizes before any (from the heap's size in bytes, say): what a
  // host with nothing else to go by prepares for while the game is stopped (Welcome.forecast_*).
  // False when the runtime cannot tell. Asked on the agent's network thread when a host
  // connects and no capture has completed (one may be running: a host that dropped mid-capture
  // and came back); must not stop or wait for the game.
  virtual bool ForecastCaptureSizes(uint64_t* objects, uint64_t* refs) const {
    (void)objects;
    (void)refs;
    return false;
  }

  // ---- joining another tool's collection (optional) ----
  // True when JoinInducedCollection is supported (the agent then advertises
  // CAP_JOIN_INDUCED_GC and accepts CaptureRequest.join_induced_gc_ms).
  virtual bool JoinsInducedCollections() const { return false; }
  // Instead of InduceFullCollection (world "stopped" as for it): induces nothing, waits up to
  // timeout_ms for the next full collection induced in the process (another tool's, such as
  // dotnet-gcdump's, or the program's GC.Collect) and records that one, so the capture and the
  // other tool read the same heap at the same moment. Returns early, recording nothing, once
  // *cancelled is non-zero (may be null). A wait that ends without a recorded collection makes
  // WalkHeap report WalkFailed, saying why. Called only when JoinsInducedCollections().
  virtual void JoinInducedCollection(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled) {
    (void)timeout_ms;
    (void)cancelled;
  }

  // ---- frames and allocation samples (optional; frame_events.h) ----
  // A runtime that does not override these reports no frames: the agent refuses a frames
  // subscription with BAD_REQUEST ("this runtime does not report frames"), nothing else changes.
  //
  // Installs `sink` (nullptr removes it) and the mean sampling interval in bytes (>= 1; the agent
  // validates the host's value). From then on the runtime calls sink->OnFrame at the end of every
  // game frame and sink->OnAllocationSample for the allocations its AllocationSampler picks
  // (one per `sample_bytes` allocated on average). The runtime serialises the calls (never two at
  // once), and once this returns the previous sink receives no further call, so the agent may
  // reuse or free it. Called from the agent's network thread while the game runs; a runtime may
  // apply a new interval at its next frame boundary. Returns false if unsupported.
  virtual bool SetFrameEventSink(FrameEventSink* sink, uint32_t sample_bytes) {
    (void)sink;
    (void)sample_bytes;
    return false;
  }
  // The mean interval the runtime's samples actually follow once SetFrameEventSink(sink,
  // `requested`) succeeded: `requested` unless the runtime samples at its own fixed interval
  // (CoreCLR's randomized allocation sampling). The agent tells the host this one, whose
  // estimates weight each sample by it (xrpm/protocol/sampling.h).
  virtual uint32_t FrameSampleBytes(uint32_t requested) const { return requested; }
  // True when the FrameRecord's alloc_bytes / alloc_objects are an estimate from the runtime's
  // allocation samples (CoreCLR's sampled route: each game-thread sample adds its weight) rather
  // than its exact count. The agent tells the host in FramesStarted, which then labels them.
  virtual bool FrameTotalsEstimated() const { return false; }
  // True when SetFrameEventSink is supported (the agent then advertises CAP_FRAMES).
  virtual bool SupportsFrameEvents() const { return false; }

  // ---- markers, capture requests and scope tags (optional; game_events.h) ----
  // Installs the sink the game's markers and capture requests go to (nullptr removes it); the
  // agent installs it when it starts and removes it when it stops. Once this returns the previous
  // sink receives no further call. Returns false when the runtime has no game events (the agent
  // then does not advertise CAP_MARKERS). A runtime that reports scope tags fills
  // AllocationSample::tag_key / tag_name.
  virtual bool SetGameEventSink(GameEventSink* sink) {
    (void)sink;
    return false;
  }

  // ---- fields and values (optional; heap_walker.h) ----
  // What WalkHeap reports when the sink's Detail() asks for it: layouts, slots and root labels
  // (the agent then advertises CAP_FIELDS), and values (CAP_VALUES).
  virtual bool ReportsFields() const { return false; }
  virtual bool ReportsValues() const { return false; }
};

}  // namespace agent
}  // namespace xrpm
