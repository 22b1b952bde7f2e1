// Agent markers path: the game's markers and capture requests (game_events.h) from the marker
// queue to the host. On the network thread, every loop: the queue is drained; each marker
// becomes the "last marker" (sent with the next capture's CaptureBegin), a capture request is
// sent at once to the controlling host on the control channel (GameCaptureRequest), and while
// frames are subscribed every marker waits in a bounded list for the next FrameBatch (past
// kMaxPendingMarkers the oldest are dropped and counted, so a host that does not read costs a
// fixed amount of memory).
#include <algorithm>

#include "agent_impl.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace agent {

namespace {
constexpr size_t kMaxPendingMarkers = 4 * protocol::kMaxBatchMarkers;
}

void Agent::Impl::StartMarkers() {
  if (!markers) markers = std::make_unique<MarkerQueue>();
  markers_on = runtime.SetGameEventSink(markers.get());
  if (!markers_on) markers.reset();  // the runtime has no game events: hold nothing
}

void Agent::Impl::StopMarkers() {
  if (markers_on) runtime.SetGameEventSink(nullptr);
  markers_on = false;
}

void Agent::Impl::PumpMarkers() {
  if (!markers_on) return;
  QueuedMarker m;
  while (markers->Pop(&m)) {
    last_marker = m;
    has_last_marker = true;
    if (m.kind == MarkerKind::kCaptureRequest && controller) {
      wire::Envelope env;
      FillMarkerRow(m, env.mutable_game_capture_request()->mutable_marker());
      SendControl(controller, env);
      Log("the game requested a capture: '" + std::string(m.text, m.length) + "'");
    }
    if (!frames_on) continue;
    if (pending_markers.size() == kMaxPendingMarkers) {
      pending_markers.pop_front();
      ++pending_markers_dropped;
    }
    pending_markers.push_back(m);
  }
}

bool Agent::Impl::FillMarkers(wire::FrameBatch* b) {
  const size_t n = std::min<size_t>(pending_markers.size(), protocol::kMaxBatchMarkers);
  for (size_t i = 0; i < n; ++i) FillMarkerRow(pending_markers[i], b->add_markers());
  pending_markers.erase(pending_markers.begin(), pending_markers.begin() + n);
  b->set_dropped_markers((markers ? markers->dropped() : 0) + pending_markers_dropped);
  return n > 0;
}

}  // namespace agent
}  // namespace xrpm
