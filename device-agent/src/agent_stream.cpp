// Agent data paths on the network thread: capture requests, streaming the capture queue into
// ENet under the unacknowledged-bytes cap, finishing captures, and counter samples.
#include "agent_impl.h"
#include "utf8.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace agent {

void Agent::Impl::OnCaptureRequest(ENetPeer* peer, const wire::CaptureRequest& r) {
  if (job && !deferred_request && !job->cancelled() &&
      job->finishing.load(std::memory_order_acquire)) {
    // The host has seen (or is about to see) the end of `job` while its capture thread is
    // still returning: not busy from the host's point of view.
    deferred_request = true;
    deferred_request_msg = r;
    return;
  }
  if (job) {
    SendControl(peer, protocol::MakeError(
                          wire::CAPTURE_BUSY,
                          "capture " + std::to_string(job->id) + " is still running", false));
    return;
  }
  if (r.string_cap() > protocol::kMaxStringCap || (r.values() && !r.fields())) {
    SendControl(peer, protocol::MakeError(wire::BAD_REQUEST,
                                          r.values() && !r.fields()
                                              ? std::string("capture values need fields")
                                              : "string cap " + std::to_string(r.string_cap()) +
                                                    " over the limit of " +
                                                    std::to_string(protocol::kMaxStringCap),
                                          false));
    return;
  }
  if (r.join_induced_gc_ms() != 0 && (!runtime.JoinsInducedCollections() ||
                                      r.join_induced_gc_ms() > protocol::kMaxJoinInducedGcMs)) {
    SendControl(peer,
                protocol::MakeError(
                    wire::BAD_REQUEST,
                    !runtime.JoinsInducedCollections()
                        ? std::string("this runtime cannot join another tool's collection: "
                                      "it induces its own (CAP_JOIN_INDUCED_GC)")
                        : "join_induced_gc_ms " + std::to_string(r.join_induced_gc_ms()) +
                              " over the limit of " + std::to_string(protocol::kMaxJoinInducedGcMs),
                    false));
    return;
  }
  StartJob(r);
}

void Agent::Impl::StartJob(const wire::CaptureRequest& r) {
  job = std::make_shared<CaptureJob>(next_capture_id++, r.request_id(), opt.capture_memory_limit,
                                     opt.capture_resumed_limit);
  // What this capture carries: what the host asked for, as far as the runtime reports it.
  job->detail.fields = r.fields() && runtime.ReportsFields();
  job->detail.values = job->detail.fields && r.values() && runtime.ReportsValues();
  job->detail.string_cap = r.string_cap() ? r.string_cap() : protocol::kDefaultStringCap;
  job->join_induced_gc_ms = r.join_induced_gc_ms();
  PumpMarkers();  // the markers posted up to now, so the last one is current
  job->has_marker = has_last_marker;
  job->last_marker = last_marker;
  abort_on_finish = false;
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    stats.capture_running = true;
  }
  {
    std::lock_guard<std::mutex> lock(worker_mu);
    worker_job = job;
  }
  worker_cv.notify_all();
  Log("capture " + std::to_string(job->id) + " requested");
}

void Agent::Impl::OnCancel(ENetPeer* peer, const wire::CancelCapture& c) {
  if (!job || (c.capture_id() != 0 && job->id != c.capture_id())) {
    SendControl(peer, protocol::MakeError(
                          wire::BAD_REQUEST,
                          "no capture " + std::to_string(c.capture_id()) + " is running", false));
    return;
  }
  if (!job->cancelled()) {
    Log("capture " + std::to_string(job->id) + " cancelled by the host");
    job->Cancel();
    abort_on_finish = true;
  }
}

void Agent::Impl::PumpCapture() {
  if (!job) return;
  job->queue.Wake();  // ENet may have released bytes the walk is waiting for
  // Buffered mode holds the batches while the world is stopped (CaptureJob::hold_sends), up to
  // half the memory limit, so the walk never waits on a queue nobody drains.
  const bool hold = job->hold_sends.load(std::memory_order_acquire) &&
                    job->memory.unacked() < opt.capture_memory_limit / 2;
  if (controller && !job->cancelled() && !hold) {
    std::string bytes;
    while (flight.unacked() < protocol::kMaxUnackedBytes && job->queue.Pop(&bytes)) {
      if (!protocol::SendOwned(controller, protocol::kChannelHeap, std::move(bytes), true, &flight,
                               &job->memory)) {
        Log("capture " + std::to_string(job->id) + ": ENet refused a batch; cancelling");
        job->Cancel();
        break;
      }
    }
  }
  if (job->done.load(std::memory_order_acquire) && job->queue.closed_and_empty()) {
    FinishJob();
    if (deferred_request && controller) StartJob(deferred_request_msg);
    deferred_request = false;
  }
}

void Agent::Impl::FinishJob() {
  CaptureJob& j = *job;
  const bool cancelled = j.cancelled();
  if (cancelled && abort_on_finish && controller) {
    wire::Envelope env;
    wire::CaptureAbort* a = env.mutable_capture_abort();
    a->set_capture_id(j.id);
    a->set_request_id(j.request_id);
    a->set_reason("cancelled by the host");
    protocol::SendEnvelope(controller, protocol::kChannelHeap, env, true,
                           protocol::kMaxAgentMessageBytes, &flight);
  }
  const int64_t cancel_ns = j.cancel_ns.load();
  const uint64_t cancel_to_resume_us = cancelled && j.resumed_ns > cancel_ns
                                           ? static_cast<uint64_t>(j.resumed_ns - cancel_ns) / 1000
                                           : 0;
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    stats.capture_running = false;
    if (j.completed && !cancelled) {
      ++stats.captures_completed;
      last_capture_objects = j.objects;
      last_capture_refs = j.refs;
      last_capture_fields = j.detail.fields;
    } else {
      ++stats.captures_aborted;
    }
    stats.last_pause_us = j.pause_us;
    stats.last_peak_bytes = j.peak_bytes;
    stats.last_wire_bytes = j.wire_bytes;
    stats.last_cancelled_during_walk = j.cancelled_during_walk;
    stats.last_cancel_to_resume_us = cancel_to_resume_us;
  }
  if (cancelled)
    Log("capture " + std::to_string(j.id) + " stopped" +
        (j.cancelled_during_walk ? " during the walk; game resumed " +
                                       std::to_string(cancel_to_resume_us) + " us after the cancel"
                                 : ""));
  else if (!j.completed)
    Log("capture " + std::to_string(j.id) + " failed: " + j.failure);
  else
    Log("capture " + std::to_string(j.id) + " done: pause " + std::to_string(j.pause_us / 1000) +
        " ms, " + std::to_string(j.wire_bytes) + " bytes, agent peak " +
        std::to_string(j.peak_bytes) + " bytes");
  retired.push_back(std::move(job));
  job.reset();
}

void Agent::Impl::RetireFreedJobs() {
  // A finished job's memory accounting is referenced by its packets until ENet frees them.
  for (size_t i = 0; i < retired.size();) {
    if (retired[i]->memory.unacked() == 0) {
      retired[i] = std::move(retired.back());
      retired.pop_back();
    } else {
      ++i;
    }
  }
}

void Agent::Impl::OnSubscribe(ENetPeer* peer, const wire::SubscribeCounters& s) {
  if (s.interval_ms() == 0) {
    counter_interval_ms = 0;
    return;
  }
  counter_interval_ms = std::max(s.interval_ms(), protocol::kMinCounterIntervalMs);
  wire::Envelope env;
  wire::CounterDescriptors* d = env.mutable_counter_descriptors();
  d->set_interval_ms(counter_interval_ms);
  for (size_t i = 0; i < counter_values.size(); ++i) {
    const CounterInfo c = runtime.DescribeCounter(i);
    wire::CounterDescriptor* e = d->add_counters();
    e->set_category(SanitizeUtf8(c.category, protocol::kMaxShortString));
    e->set_name(SanitizeUtf8(c.name, protocol::kMaxShortString));
    e->set_unit(SanitizeUtf8(c.unit, protocol::kMaxShortString));
  }
  SendControl(peer, env);
  next_sample_ns = NowNs();
}

void Agent::Impl::PumpCounters() {
  if (!counter_interval_ms || !controller) return;
  const int64_t now = NowNs();
  if (now < next_sample_ns) return;
  const int64_t interval_ns = int64_t{counter_interval_ms} * 1000000;
  next_sample_ns += interval_ns;
  if (next_sample_ns < now) next_sample_ns = now + interval_ns;  // fell behind: do not burst
  const size_t n = runtime.SampleCounters(counter_values.data(), counter_values.size());
  wire::Envelope env;
  wire::CounterSample* s = env.mutable_counter_sample();
  s->set_seq(sample_seq++);
  s->set_boot_ms(runtime.BootMillis());
  for (size_t i = 0; i < n; ++i) {
    const CounterValue& v = counter_values[i];
    wire::CounterValue* o = s->add_values();
    o->set_total(v.total);
    o->set_last(v.last);
    o->set_n(v.n);
    o->set_mean(v.mean);
    o->set_min(v.min);
    o->set_max(v.max);
  }
  protocol::SendEnvelope(controller, protocol::kChannelCounters, env, false,
                         protocol::kMaxAgentMessageBytes, nullptr);
}

}  // namespace agent
}  // namespace xrpm
