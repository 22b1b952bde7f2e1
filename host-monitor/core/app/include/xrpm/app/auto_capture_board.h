// AutoCaptureBoard: the model of the Capture panel's "Auto capture", GUI-free:
// the same rules as `xrpm capture --every/--on-growth/--on-gc-pause/--on-marker` and the game's
// own requests (analysis/capture_triggers.h, parsed by app::ParseTriggers), the same output
// template and ring (capture_output.h), over the monitor's own connection: it reads the frames
// the Timeline records (FrameBoard's recording, incrementally), the live counters and the
// game's capture requests, and says when to capture; DeviceSession (device_session.h) starts
// the capture on its DeviceLink and hands the result back, which is saved under the template
// and not opened as a document (hours of captures must not pile up in memory); the log gets one
// line per capture.
// A new connection (the device restarted, the user reconnected) resets the rules' device state,
// and the rules keep running while the board is active.
//
// Algorithm: Poll is O(new frame rows + new markers + new counter samples).
//
// Thread-safety: UI thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "xrpm/analysis/capture_triggers.h"
#include "xrpm/app/auto_capture.h"
#include "xrpm/app/capture_output.h"
#include "xrpm/app/trigger_feed.h"
#include "xrpm/client/host_client.h"
#include "xrpm/model/frame_recording.h"

namespace xrpm::app {

class AutoCaptureBoard {
 public:
  // The panel's fields (edited while stopped; Start takes a copy).
  TriggerText triggers;
  std::string output = "auto-{n}-{marker}.xrpm";
  uint32_t keep = 5;  // 0: keep every file

  // Parses the fields; false with *error (the CLI's messages) and the board stays stopped.
  bool Start(std::string* error);
  // No more captures; one already started is still saved when its result comes (awaiting()).
  void Stop();
  bool active() const { return trig_ != nullptr; }
  // The rules in force need the frames subscription (--on-gc-pause, --on-marker).
  bool needs_frames() const { return trig_ && trig_->options().NeedsFrames(); }

  // One UI frame: feeds the rules from `c` (null: not connected) and `rec`; returns the reason
  // to capture now when one is due and `link_busy` is false.
  std::optional<analysis::TriggerFire> Poll(client::HostClient* c, const FrameRecording& rec,
                                            bool link_busy, double now_s);
  void OnCaptureStarted(const analysis::TriggerFire& why, double now_s);
  bool awaiting() const { return awaiting_.has_value(); }
  // The result of the capture it started: saved under the template (ok) or not; the log line.
  struct Outcome {
    bool ok = false;
    std::string text;
  };
  Outcome OnCaptureResult(const client::CaptureResult& r, double now_s);

  uint64_t saved() const { return saved_; }
  uint64_t failed() const { return failed_; }
  const std::string& last_file() const { return last_file_; }
  const std::deque<std::string>& files() const;  // kept, oldest first
  std::string Describe() const;                  // "every 10 s, the game's requests"

 private:
  std::unique_ptr<analysis::CaptureTriggers> trig_;
  OutputTemplate template_;
  std::unique_ptr<CaptureFileRing> ring_;
  std::optional<analysis::TriggerFire> awaiting_;
  const client::HostClient* client_ = nullptr;  // the connection the rules' state belongs to
  uint64_t subscription_ = ~uint64_t{0};
  size_t frames_seen_ = 0, markers_seen_ = 0;
  TriggerFeed feed_;
  uint64_t saved_ = 0, failed_ = 0;
  std::string last_file_;
};

}  // namespace xrpm::app
