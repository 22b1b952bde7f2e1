#include "xrpm/analysis/capture_triggers.h"

#include <algorithm>
#include <cstdio>

#include "xrpm/model/glob.h"
#include "xrpm/model/human_format.h"

namespace xrpm::analysis {

const char* TriggerKindName(TriggerKind k) {
  switch (k) {
    case TriggerKind::kEvery:
      return "every";
    case TriggerKind::kGrowth:
      return "growth";
    case TriggerKind::kGcPause:
      return "gc-pause";
    case TriggerKind::kMarker:
      return "marker";
    case TriggerKind::kGameRequest:
      return "game";
  }
  return "?";
}

CaptureTriggers::CaptureTriggers(CaptureTriggerOptions options) : o_(std::move(options)) {}

void CaptureTriggers::OnConnected() {
  have_baseline_ = false;
  have_offset_ = false;
  guard_to_s_ = -1;
}

void CaptureTriggers::SetPending(TriggerKind kind, std::string label, std::string detail) {
  if (pending_) {
    ++coalesced_;
    return;
  }
  pending_ = TriggerFire{kind, std::move(label), std::move(detail)};
}

void CaptureTriggers::OnInUseAfterGc(int64_t bytes) {
  if (o_.growth_bytes == 0 || capturing_) return;
  if (!have_baseline_) {
    have_baseline_ = true;
    baseline_ = bytes;
    return;
  }
  const int64_t grew = bytes - baseline_;
  if (grew >= static_cast<int64_t>(o_.growth_bytes) && !pending_)
    SetPending(TriggerKind::kGrowth, "",
               FormatSignedBytes(grew) + " in use after GC (" +
                   FormatBytes(baseline_ < 0 ? 0 : static_cast<uint64_t>(baseline_)) + " -> " +
                   FormatBytes(bytes < 0 ? 0 : static_cast<uint64_t>(bytes)) + ")");
}

void CaptureTriggers::OnFrame(const FrameRow& row, double now_s) {
  const double off = now_s * 1e6 - static_cast<double>(row.end_us);
  if (!have_offset_ || off < offset_us_) offset_us_ = off;
  have_offset_ = true;
  if (o_.gc_pause_ms < 0 || row.gcs == 0) return;
  if (static_cast<double>(row.gc_pause_us) <= o_.gc_pause_ms * 1000.0) return;
  // The capture's own collection: the row's frame overlaps the last capture's span (plus the
  // guard) on the device clock.
  if (guard_to_s_ >= guard_from_s_ || capturing_) {
    const double from_us = guard_from_s_ * 1e6 - offset_us_;
    const double to_us = capturing_ ? 1e300 : (guard_to_s_ + kCaptureGcGuardS) * 1e6 - offset_us_;
    const double row_from = static_cast<double>(row.end_us) - row.duration_us;
    if (static_cast<double>(row.end_us) >= from_us && row_from <= to_us) return;
  }
  char d[96];
  std::snprintf(d, sizeof d, "frame %llu: %u collection(s) paused %.1f ms",
                static_cast<unsigned long long>(row.frame), row.gcs, row.gc_pause_us / 1000.0);
  SetPending(TriggerKind::kGcPause, "", d);
}

void CaptureTriggers::OnMarker(const MarkerRow& m) {
  if (o_.marker.empty() || m.kind != MarkerKind::kMarker) return;
  if (GlobMatch(o_.marker, m.text))
    SetPending(TriggerKind::kMarker, m.text, "marker '" + m.text + "'");
}

void CaptureTriggers::OnGameRequest(const MarkerRow& m) {
  if (!o_.game_requests) return;
  SetPending(TriggerKind::kGameRequest, m.text, "the game asked: '" + m.text + "'");
}

std::optional<TriggerFire> CaptureTriggers::Due(double now_s) const {
  if (capturing_) return std::nullopt;
  if (pending_) return pending_;
  if (o_.every_s > 0 && (!started_any_ || now_s - last_start_s_ >= o_.every_s))
    return TriggerFire{TriggerKind::kEvery, "", "every " + FormatDuration(o_.every_s)};
  return std::nullopt;
}

void CaptureTriggers::OnCaptureStarted(double now_s) {
  pending_.reset();
  started_any_ = true;
  last_start_s_ = now_s;
  capturing_ = true;
  guard_from_s_ = now_s;
}

void CaptureTriggers::OnCaptureEnded(double now_s) {
  capturing_ = false;
  guard_to_s_ = now_s;
  have_baseline_ = false;  // the capture collected: the next sample is the new baseline
}

double CaptureTriggers::SecondsUntilTimer(double now_s) const {
  if (o_.every_s <= 0) return 1e9;
  if (!started_any_) return 0;
  return std::max(0.0, last_start_s_ + o_.every_s - now_s);
}

}  // namespace xrpm::analysis
