#include "xrpm/app/auto_capture_board.h"

#include <exception>

#include "xrpm/app/capture_status.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

bool AutoCaptureBoard::Start(std::string* error) {
  analysis::CaptureTriggerOptions o;
  if (!ParseTriggers(triggers, &o, error)) return false;
  AutoCaptureOptions check;
  check.output = output;
  check.keep = keep;
  if (!CheckAutoCaptureOptions(check, error)) return false;
  template_.Parse(output, error);
  trig_ = std::make_unique<analysis::CaptureTriggers>(std::move(o));
  ring_ = std::make_unique<CaptureFileRing>(keep);
  client_ = nullptr;
  subscription_ = ~uint64_t{0};
  return true;  // a capture still in flight (awaiting_) is saved under the new fields
}

void AutoCaptureBoard::Stop() {
  trig_.reset();  // a capture in flight stays awaited: it is saved, never opened as a document
}

const std::deque<std::string>& AutoCaptureBoard::files() const {
  static const std::deque<std::string> kNone;
  return ring_ ? ring_->files() : kNone;
}

std::string AutoCaptureBoard::Describe() const {
  if (!trig_) return "off";
  const auto& o = trig_->options();
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (o.every_s > 0) add("every " + FormatDuration(o.every_s));
  if (o.growth_bytes > 0) add("on growth of " + FormatBytes(o.growth_bytes));
  if (o.gc_pause_ms >= 0) add("on GC pauses over " + triggers.on_gc_pause + " ms");
  if (!o.marker.empty()) add("on marker '" + o.marker + "'");
  if (o.game_requests) add("the game's requests");
  return s;
}

std::optional<analysis::TriggerFire> AutoCaptureBoard::Poll(client::HostClient* c,
                                                            const FrameRecording& rec,
                                                            bool link_busy, double now_s) {
  if (!trig_) return std::nullopt;
  if (c != client_) {  // a new connection: the device's clock and counters start afresh
    client_ = c;
    trig_->OnConnected();
    feed_.Reset();
  }
  if (rec.subscription != subscription_ || rec.frames.size() < frames_seen_ ||
      rec.markers.size() < markers_seen_) {
    subscription_ = rec.subscription;
    frames_seen_ = markers_seen_ = 0;
  }
  for (; frames_seen_ < rec.frames.size(); ++frames_seen_)
    trig_->OnFrame(rec.frames[frames_seen_], now_s);
  for (; markers_seen_ < rec.markers.size(); ++markers_seen_)
    trig_->OnMarker(rec.markers[markers_seen_]);
  if (!c) return std::nullopt;
  feed_.FromClient(*c, *trig_);
  if (link_busy || awaiting_ || c->state() != client::ConnectionState::kConnected)
    return std::nullopt;
  return trig_->Due(now_s);
}

void AutoCaptureBoard::OnCaptureStarted(const analysis::TriggerFire& why, double now_s) {
  if (!trig_) return;
  trig_->OnCaptureStarted(now_s);
  awaiting_ = why;
}

AutoCaptureBoard::Outcome AutoCaptureBoard::OnCaptureResult(const client::CaptureResult& r,
                                                            double now_s) {
  Outcome out;
  const analysis::TriggerFire why = awaiting_.value_or(analysis::TriggerFire{});
  awaiting_.reset();
  if (trig_) trig_->OnCaptureEnded(now_s);
  const uint64_t n = saved_ + 1;
  if (!r.ok || !r.snapshot) {
    ++failed_;
    out.text = "Auto capture " + std::to_string(n) + " (" + why.detail + ") failed: " + r.error;
    return out;
  }
  std::string file;
  std::vector<std::string> gone;
  try {
    file = SaveCapture(*r.snapshot, n, why, template_, *ring_, &gone);
  } catch (const std::exception& e) {
    ++failed_;
    out.text = "Auto capture " + std::to_string(n) + " (" + why.detail + ") not saved: " + e.what();
    return out;
  }
  ++saved_;
  last_file_ = file;
  std::string removed;
  for (const auto& f : gone) removed += (removed.empty() ? "; removed " : ", ") + f;
  out.ok = true;
  out.text = "Auto capture " + std::to_string(n) + " (" + why.detail + ") -> " + file + ": " +
             FormatCount(r.stats.objects) + " objects, " + FormatBytes(r.stats.heap_bytes) +
             ", the game paused " + CapturePauseText(r.snapshot.get(), r.stats.pause_us) + removed;
  return out;
}

}  // namespace xrpm::app
