// CaptureTriggers: when an unattended run (`xrpm capture --every/--on-*`, the monitor's "Auto
// capture") should take the next heap capture. A pure state machine: the
// caller feeds it what the device sent (counter samples, frame rows, markers, the game's capture
// requests) and when captures start and end, on its own clock (seconds, any monotonic origin),
// and asks Due() whether to capture now and why. No network, no files, no clock reads, so every
// rule is testable without a device.
//
// The rules (each off unless set):
//   every      a capture when `every_s` passed since the last one started (the first at once);
//   growth     "Managed Bytes In Use After GC" grew by `growth_bytes` over its first sample
//              after the last capture (the capture's own collection sets the new baseline);
//   gc-pause   a frame row whose collections paused longer than `gc_pause_ms` (the row arrives
//              at the frame boundary after the collection). The capture's own induced
//              collection does not count: rows whose frame overlaps a capture, or ends within
//              kCaptureGcGuardS after it, on the device clock mapped to ours from the rows'
//              arrival times (an upper bound of the offset, so the guard errs towards ignoring);
//   marker     a marker (Xrpm.Profiler.Marker) whose text matches the pattern `marker`
//              (xrpm/model/glob.h: '*' any run of characters, '?' one, '\' a literal);
//   game       the game's own Xrpm.Profiler.RequestCapture (`game_requests`, on by default).
// Events that arrive while a capture runs are kept: one pending capture (the first reason)
// follows it. Counting events (markers, requests) that arrive while one is already pending are
// merged into it (coalesced() counts them).
//
// Thread-safety: none; one owner thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "xrpm/model/frame_recording.h"

namespace xrpm::analysis {

struct CaptureTriggerOptions {
  double every_s = 0;         // 0: off
  uint64_t growth_bytes = 0;  // 0: off
  double gc_pause_ms = -1;    // < 0: off (0: any collection that paused at all)
  std::string marker;         // "": off
  bool game_requests = true;

  bool NeedsFrames() const { return gc_pause_ms >= 0 || !marker.empty(); }
  bool NeedsCounters() const { return growth_bytes > 0; }
};

enum class TriggerKind : uint8_t { kEvery, kGrowth, kGcPause, kMarker, kGameRequest };
const char* TriggerKindName(TriggerKind k);  // "every", "growth", "gc-pause", "marker", "game"

struct TriggerFire {
  TriggerKind kind = TriggerKind::kEvery;
  std::string label;   // the marker's or request's text; "" for the others
  std::string detail;  // why, for the log line: "every 10 s", "+1.2 MiB after GC", ...
};

class CaptureTriggers {
 public:
  static constexpr double kCaptureGcGuardS = 0.5;

  explicit CaptureTriggers(CaptureTriggerOptions options);
  const CaptureTriggerOptions& options() const { return o_; }

  // A (re)connection to a device: its clock and counters start afresh; a pending capture stays.
  void OnConnected();
  // The level of "Managed Bytes In Use After GC" in a counter sample.
  void OnInUseAfterGc(int64_t bytes);
  // A frame row that arrived at `now_s`.
  void OnFrame(const FrameRow& row, double now_s);
  // A marker (kind kMarker; capture requests come through OnGameRequest).
  void OnMarker(const MarkerRow& m);
  void OnGameRequest(const MarkerRow& m);

  // Whether to capture now: the pending reason, or the every timer. Does not consume it.
  std::optional<TriggerFire> Due(double now_s) const;
  // A capture was requested at now_s: the pending reason is consumed.
  void OnCaptureStarted(double now_s);
  // It ended (saved or not) at now_s.
  void OnCaptureEnded(double now_s);

  // Seconds until the every timer fires (a wait bound for the caller), or a large number.
  double SecondsUntilTimer(double now_s) const;
  uint64_t coalesced() const { return coalesced_; }

 private:
  void SetPending(TriggerKind kind, std::string label, std::string detail);

  CaptureTriggerOptions o_;
  std::optional<TriggerFire> pending_;
  uint64_t coalesced_ = 0;
  bool started_any_ = false;
  double last_start_s_ = 0;
  bool capturing_ = false;
  // growth
  bool have_baseline_ = false;
  int64_t baseline_ = 0;
  // gc-pause: device microseconds = our seconds * 1e6 - offset_us_ (offset_us_ an upper bound)
  bool have_offset_ = false;
  double offset_us_ = 0;
  double guard_from_s_ = 0, guard_to_s_ = -1;  // our clock: the last capture's span
};

}  // namespace xrpm::analysis
