// Unattended triggered captures (`xrpm capture --every/--on-growth/
// --on-gc-pause/--on-marker/--keep`, the monitor's "Auto capture"): connect to a device, take a
// capture whenever CaptureTriggers (analysis/capture_triggers.h) says so, save it under the output
// template, keep the ring of files (capture_output.h), report one event per capture, and
// reconnect when the device goes away (a restarted game, a rebooted console) until stopped.
//
// Bounded for runs of hours: one connection at a time with a small counter history; frame rows
// are taken every poll and dropped after the triggers saw them (only the rows, not the
// allocation samples, are wanted: the subscription samples one allocation per 64 MiB); one
// snapshot in memory at a time, released after its save; the ring removes old files. The run's
// own state is O(keep).
//
// Thread-safety: RunAutoCapture blocks its calling thread (the CLI's main thread, or a worker
// of the monitor) and calls `on_event` on it; `stop` may be set from any thread or a signal
// handler, and the run returns within about 0.2 s (or after the capture in flight ends, bounded
// by capture_timeout_s).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "xrpm/analysis/capture_triggers.h"
#include "xrpm/client/host_client.h"

namespace xrpm::app {

struct AutoCaptureOptions {
  client::ClientOptions client;  // endpoint, token, timeouts
  analysis::CaptureTriggerOptions triggers;
  client::CaptureOptions capture;
  std::string output;         // template (capture_output.h): "run-{n}-{marker}.xrpm"
  uint32_t keep = 0;          // 0: keep every file
  uint64_t max_captures = 0;  // stop after this many saved files (0: until stopped)
  double duration_s = 0;      // stop after this long (0: until stopped)
  double capture_timeout_s = 600;
  double reconnect_max_s = 5;  // the longest wait between two connection attempts
};

// The trigger options as a user types them (the CLI's --every/--on-growth/--on-gc-pause/
// --on-marker, the monitor's Auto capture fields); "" leaves a rule off.
struct TriggerText {
  std::string every, on_growth, on_gc_pause, on_marker;
  bool game_requests = true;
};
// Parses `t` into *out; false with *error naming the option ("--every: expected a positive
// duration such as 10s, 500ms, 2m or 1h, found '10x'"), also when no rule is on at all.
bool ParseTriggers(const TriggerText& t, analysis::CaptureTriggerOptions* out, std::string* error);

// The options' own consistency, before connecting: the template parses, and names differ
// between captures ({n}) unless only one file is kept. False with *error for the user.
bool CheckAutoCaptureOptions(const AutoCaptureOptions& o, std::string* error);

struct AutoCaptureEvent {
  enum class Kind { kConnected, kLost, kCaptured, kFailed };
  Kind kind = Kind::kConnected;
  double at_s = 0;   // since the run started
  std::string text;  // kConnected: the device; kLost/kFailed: why
  // kCaptured (and kFailed, for the capture that failed):
  uint64_t n = 0;
  analysis::TriggerFire trigger;
  std::string file;
  std::vector<std::string> removed;  // files the ring removed after this save
  client::CaptureStats stats;
  std::string pause;        // kCaptured: the pause in words (CapturePauseText, capture_status.h)
  std::string last_marker;  // the game's last marker before the capture ("" none)
  int64_t marker_age_us = -1;
};

struct AutoCaptureResult {
  bool ok = false;    // false: the first connection failed or the device refused what the
  std::string error;  // triggers need (e.g. frames for --on-marker)
  uint64_t saved = 0, failed = 0, reconnects = 0;
  uint64_t coalesced = 0;  // trigger events merged into a capture already pending
};

AutoCaptureResult RunAutoCapture(const AutoCaptureOptions& o, const std::atomic<bool>& stop,
                                 const std::function<void(const AutoCaptureEvent&)>& on_event);

}  // namespace xrpm::app
