// RunCapture: the capture thread's work for one CaptureJob (see capture_job.h).
#include <algorithm>
#include <exception>

#include "capture_job.h"
#include "capture_sink.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace agent {
namespace {

struct StoppedWork {
  RuntimePort* runtime;
  CaptureSink* sink;
  const std::function<void(HeapInfoCallback&)>* walk;
  uint32_t join_induced_gc_ms;
  const std::atomic<int64_t>* cancelled;
  int64_t stopped_ns = 0, gc_done_ns = 0, walk_done_ns = 0;
};

void WithWorldStopped(void* ctx) {
  auto* w = static_cast<StoppedWork*>(ctx);
  w->stopped_ns = NowNs();
  if (w->join_induced_gc_ms != 0) {
    // The collection is the other tool's, and so is its pause: the wait for it counts as the
    // wait for the stop (CaptureEnd.stop_wait_us), not as the capture's collection.
    w->runtime->JoinInducedCollection(w->join_induced_gc_ms, w->cancelled);
    w->stopped_ns = NowNs();
  } else {
    w->runtime->InduceFullCollection();
  }
  w->gc_done_ns = NowNs();
  // A runtime that stops the game only inside the collection says when it did (after the wait
  // for the frame boundary): the pause starts there.
  const int64_t stopped_inside = w->runtime->WorldStoppedAtNs();
  if (stopped_inside > w->stopped_ns && stopped_inside <= w->gc_done_ns) {
    w->stopped_ns = stopped_inside;
    const int64_t report_start = w->runtime->HeapReportStartNs();
    if (report_start >= stopped_inside && report_start <= w->gc_done_ns)
      w->gc_done_ns = report_start;  // the rest of the collection was the runtime's heap report
  }
  if (*w->walk)
    (*w->walk)(*w->sink);
  else
    w->runtime->WalkHeap(*w->sink);
  w->walk_done_ns = NowNs();
}

uint64_t Us(int64_t from_ns, int64_t to_ns) {
  return to_ns > from_ns ? static_cast<uint64_t>((to_ns - from_ns) / 1000) : 0;
}

void QueueAbort(CaptureJob& job, wire::ErrorCode code, const std::string& reason) {
  wire::Envelope env;
  wire::CaptureAbort* a = env.mutable_capture_abort();
  a->set_capture_id(job.id);
  a->set_request_id(job.request_id);
  a->set_code(code);
  a->set_reason(reason.substr(0, protocol::kMaxErrorMessage));
  std::string bytes;
  job.finishing.store(true, std::memory_order_release);
  if (protocol::SerializeEnvelope(env, protocol::kMaxAgentMessageBytes, &bytes))
    job.queue.Push(std::move(bytes), BatchQueue::kBuffersUnchanged, nullptr);
}

void Run(RuntimePort& runtime, CaptureJob& job, uint32_t stop_timeout_ms) {
  CaptureSink sink(runtime, job);
  StoppedWork work{&runtime, &sink, &job.walk, job.join_induced_gc_ms, &job.cancel_ns};
  const int64_t requested_ns = NowNs();
  job.hold_sends.store(!CaptureSink::Streaming(job), std::memory_order_release);
  const bool stopped = runtime.RunWithWorldStopped(&WithWorldStopped, &work, stop_timeout_ms);
  job.resumed_ns = NowNs();
  job.hold_sends.store(false, std::memory_order_release);
  job.cancelled_during_walk = sink.aborted_by_cancel();
  job.wire_bytes = sink.wire_bytes();
  job.peak_bytes = job.memory.peak();  // encoded batches held + the encoder's buffers
  // A snapshot walk (WorldResumed) paused the game until the snapshot was taken; the rest of
  // the walk ran with the game running.
  const int64_t resumed_early_ns = job.world_resumed_ns.load(std::memory_order_acquire);
  const int64_t pause_end_ns = resumed_early_ns != 0 ? resumed_early_ns : work.walk_done_ns;
  if (stopped) job.pause_us = Us(work.stopped_ns, pause_end_ns);
  if (job.cancelled()) return;  // the network thread tells the host, if it is still there
  if (!stopped) {
    job.failure =
        "the game did not reach a safe point within " + std::to_string(stop_timeout_ms) + " ms";
    QueueAbort(job, wire::CAPTURE_FAILED, job.failure);
    return;
  }
  if (!sink.ended()) {
    job.failure = sink.error().empty() ? "the runtime ended the walk early" : sink.error();
    QueueAbort(job, wire::CAPTURE_FAILED, job.failure);
    return;
  }
  wire::Envelope env;
  wire::CaptureEnd* e = env.mutable_capture_end();
  const protocol::CaptureTotals& t = sink.totals();
  e->set_capture_id(job.id);
  e->set_batch_count(t.batches);
  e->set_type_count(t.types);
  e->set_container_count(t.containers);
  e->set_object_count(t.objects);
  e->set_ref_count(t.refs);
  e->set_root_count(t.roots);
  e->set_heap_bytes(t.heap_bytes);
  e->set_checksum(t.checksum);
  e->set_end_ms(sink.end_ms());
  e->set_pause_us(job.pause_us);
  e->set_gc_us(Us(work.stopped_ns, work.gc_done_ns));
  e->set_walk_us(Us(work.gc_done_ns, pause_end_ns));
  if (resumed_early_ns != 0)
    e->set_walk_after_pause_us(std::max<uint64_t>(1, Us(resumed_early_ns, work.walk_done_ns)));
  e->set_stop_wait_us(Us(requested_ns, work.stopped_ns));
  e->set_agent_peak_bytes(job.peak_bytes);
  e->set_wire_bytes(job.wire_bytes);
  e->set_stall_us(sink.stalled_us());
  job.objects = t.objects;
  job.refs = t.refs;
  e->set_origins_dropped(sink.origins_dropped());
  e->set_fields_dropped(sink.fields_dropped());
  std::string bytes;
  job.finishing.store(true, std::memory_order_release);
  job.completed = protocol::SerializeEnvelope(env, protocol::kMaxAgentMessageBytes, &bytes) &&
                  job.queue.Push(std::move(bytes), BatchQueue::kBuffersUnchanged, nullptr);
}

}  // namespace

void RunCapture(RuntimePort& runtime, CaptureJob& job, uint32_t stop_timeout_ms) {
  try {
    Run(runtime, job, stop_timeout_ms);
  } catch (const std::exception& e) {  // bad_alloc: nothing may escape into the runtime
    job.failure = std::string("agent error: ") + e.what();
    QueueAbort(job, wire::CAPTURE_FAILED, job.failure);
  }
  job.queue.Close();
  job.done.store(true, std::memory_order_release);
}

}  // namespace agent
}  // namespace xrpm
