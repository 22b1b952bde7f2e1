// Agent frames path on the network thread: a SubscribeFrames request (validated, then the
// runtime's sink installed), and the periodic drain of the frame ring into FrameBatch messages on
// the frames channel under a cap on unacknowledged bytes (AgentOptions::frames_unacked_limit).
// While the host does not acknowledge, nothing is drained: the ring overwrites its oldest
// records and the next batch reports them in dropped_records.
#include <algorithm>

#include "agent_impl.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace agent {

namespace {
constexpr int64_t kFramesFlushNs = 100 * 1000000LL;  // a batch every 100 ms (6 frames at 60 Hz)

wire::Envelope RefuseFrames(const std::string& why) {
  wire::Envelope env = protocol::MakeError(wire::BAD_REQUEST, why, false);
  env.mutable_error()->set_refused_body(wire::Envelope::kSubscribeFrames);
  return env;
}
}  // namespace

void Agent::Impl::OnSubscribeFrames(ENetPeer* peer, const wire::SubscribeFrames& s) {
  if (!s.enable()) {
    StopFrames();
    return;
  }
  if (!runtime.SupportsFrameEvents()) {
    SendControl(peer, RefuseFrames("this runtime does not report frames"));
    return;
  }
  uint32_t n = s.sample_bytes();
  if (n < protocol::kMinSampleBytes || n > protocol::kMaxSampleBytes) {
    SendControl(peer, RefuseFrames("sample interval of " + std::to_string(n) +
                                   " bytes is out of range: expected " +
                                   std::to_string(protocol::kMinSampleBytes) + ".." +
                                   std::to_string(protocol::kMaxSampleBytes) + " bytes"));
    return;
  }
  StopFrames();  // a resubscription starts a fresh stack table
  if (!frames) frames = std::make_unique<FrameTracker>(opt.frame_ring_records);
  frames->Reset();
  if (!runtime.SetFrameEventSink(frames.get(), n)) {
    SendControl(peer, RefuseFrames("the runtime refused to report frames"));
    return;
  }
  n = runtime.FrameSampleBytes(n);  // the interval the samples follow, which the host weights
  frames_on = true;
  pending_markers.clear();  // markers of this subscription only
  pending_markers_dropped = 0;
  frames_sample_bytes = n;
  frames_subscription = s.subscription();
  frame_batch_seq = 0;
  next_frames_ns = NowNs() + kFramesFlushNs;
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    stats.frames_subscribed = true;
    stats.frame_records = stats.frame_records_dropped = 0;
    stats.frame_batches = stats.frame_wire_bytes = stats.frames_unacked_peak = 0;
  }
  wire::Envelope env;
  wire::FramesStarted* st = env.mutable_frames_started();
  st->set_sample_bytes(n);
  st->set_ring_records(static_cast<uint32_t>(frames->ring_capacity()));
  st->set_max_stack_depth(kMaxSampleStackDepth);
  st->set_subscription(frames_subscription);
  st->set_frame_totals_estimated(runtime.FrameTotalsEstimated());
  SendControl(peer, env);
  Log("frames and allocation samples on (one sample per " + std::to_string(n) + " bytes)");
}

void Agent::Impl::StopFrames() {
  if (!frames_on) return;
  runtime.SetFrameEventSink(nullptr, 0);
  frames_on = false;
  std::lock_guard<std::mutex> lock(stats_mu);
  stats.frames_subscribed = false;
}

void Agent::Impl::PumpFrames() {
  if (!frames_on || !controller) return;
  const int64_t now = NowNs();
  const bool due = now >= next_frames_ns || frames->pending() > frames->ring_capacity() / 2;
  if (!due) return;
  next_frames_ns = now + kFramesFlushNs;
  uint64_t sent_bytes = 0, batches = 0;
  // Several batches when the ring is far behind, while ENet takes them.
  while (frames_flight.unacked() < opt.frames_unacked_limit) {
    wire::Envelope env;
    wire::FrameBatch* b = env.mutable_frame_batch();
    const bool marked = FillMarkers(b);
    if (!frames->Fill(b) && !marked) break;
    b->set_seq(++frame_batch_seq);
    b->set_sample_bytes(frames_sample_bytes);
    b->set_subscription(frames_subscription);
    std::string bytes;
    if (!protocol::SerializeEnvelope(env, protocol::kMaxAgentMessageBytes, &bytes)) break;
    sent_bytes += bytes.size();
    ++batches;
    if (!protocol::SendOwned(controller, protocol::kChannelFrames, std::move(bytes), true,
                             &frames_flight))
      break;
    if (b->frames_size() + b->samples_size() < static_cast<int>(protocol::kMaxFrameBatchRows) &&
        b->methods_size() + b->types_size() + b->stacks_size() + b->tags_size() == 0 &&
        pending_markers.empty())
      break;  // the ring is drained
  }
  std::lock_guard<std::mutex> lock(stats_mu);
  stats.frame_records = frames->pushed();
  stats.frame_records_dropped = frames->dropped();
  stats.frame_batches += batches;
  stats.frame_wire_bytes += sent_bytes;
  stats.frames_unacked_peak = std::max<uint64_t>(stats.frames_unacked_peak, frames_flight.peak());
}

}  // namespace agent
}  // namespace xrpm
