// CaptureJob: one heap capture, shared by the network thread (creates it, streams its queue,
// cancels it) and the capture thread (runs it with RunCapture).
//
// Thread-safety: `queue`, `memory` and the atomics are thread-safe. The result fields are
// written by the capture thread before it sets `done` (release) and read by the network thread
// after it sees `done` (acquire).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "batch_queue.h"
#include "marker_queue.h"
#include "xrpm/agent/runtime_port.h"
#include "xrpm/protocol/enet_io.h"

namespace xrpm {
namespace agent {

using SteadyClock = std::chrono::steady_clock;

struct CaptureJob {
  // `resumed_limit`: the messages held once the game runs again (BatchQueue::Resume).
  CaptureJob(uint32_t capture_id, uint32_t request, size_t memory_limit,
             size_t resumed_limit = SIZE_MAX)
      : id(capture_id), request_id(request), queue(memory_limit, &memory, resumed_limit) {}

  // Asks the walk to stop at its next callback; first caller's time is kept.
  void Cancel() {
    int64_t expected = 0;
    cancel_ns.compare_exchange_strong(expected, NowNs());
    queue.Cancel();
  }
  bool cancelled() const { return cancel_ns.load(std::memory_order_acquire) != 0; }

  const uint32_t id;
  const uint32_t request_id;
  // Fields and values (heap_walker.h): set when the job is created, before the capture thread
  // sees it; constant afterwards.
  WalkDetail detail;
  // How the capture walks the heap into its sink, with the world stopped, after the collection
  // (null: runtime.WalkHeap(sink)). An in-process capture (local_capture.h) may hand the same
  // walk to another sink too. Set before the capture thread sees the job.
  std::function<void(HeapInfoCallback& sink)> walk;
  // Not 0: record the next full collection induced in the process within this many ms instead
  // of inducing one (RuntimePort::JoinInducedCollection). Set before the capture thread sees
  // the job.
  uint32_t join_induced_gc_ms = 0;
  // The last marker the game posted before the request (CaptureBegin.last_marker).
  bool has_marker = false;
  QueuedMarker last_marker;
  protocol::SendAccounting memory;  // encoded bytes held (queue + ENet); declared before queue
  BatchQueue queue;
  std::atomic<int64_t> cancel_ns{0};
  std::atomic<bool> done{false};
  // Set by the capture thread just before it queues the final message (CaptureEnd or
  // CaptureAbort): from then on the host may have seen the capture end, and a new request is
  // deferred until this job is finished instead of being refused as busy.
  std::atomic<bool> finishing{false};
  // Buffered mode (not streaming): true while the world is stopped. The network thread then
  // sends nothing (unless the queue passes half the memory limit), so the walk and the batch
  // sealer have the CPU to themselves and the game's pause stays short; the batches stream
  // once the game runs again.
  std::atomic<bool> hold_sends{false};
  // A snapshot walk (heap_walker.h WorldResumed): when the game ran again, before the walk
  // ended (0: the walk ran with the world stopped). Set by the capture thread.
  std::atomic<int64_t> world_resumed_ns{0};

  // ---- results (capture thread, before done) ----
  bool completed = false;              // a CaptureEnd was queued
  std::string failure;                 // why not, when not cancelled
  bool cancelled_during_walk = false;  // the sink returned kAbort because of a cancel
  int64_t resumed_ns = 0;              // when RunWithWorldStopped returned
  uint64_t pause_us = 0;
  uint64_t peak_bytes = 0;
  uint64_t wire_bytes = 0;
  uint64_t objects = 0, refs = 0;  // the CaptureEnd's totals, when completed
};

// Runs `job` on the calling thread: stop the world, GC, walk into the job's queue, resume,
// then queue CaptureEnd (or CaptureAbort on failure), close the queue and set done.
void RunCapture(RuntimePort& runtime, CaptureJob& job, uint32_t stop_timeout_ms);

}  // namespace agent
}  // namespace xrpm
