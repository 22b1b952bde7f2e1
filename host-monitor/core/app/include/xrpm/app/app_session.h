// AppSession: the monitor's application state without any GUI, so it can be unit-tested without
// a display and driven by scripts. It is a thin facade over the sessions it hosts, which share
// its Worker (loads, analyses, saves and comparisons in the background, with progress and
// cancel), its SessionLog and its Settings (persisted with the recent files):
//   - documents():   the open snapshots and the active one (documents.h);
//   - selection():   what is selected in the active snapshot (selection.h);
//   - recordings():  the live and opened frames recordings, and which one is shown (recordings.h);
//   - comparisons(): Compare's results: snapshots, leaks, allocations (comparisons.h);
//   - device():      connection, discovery, counters, frames, captures, auto capture
//                    (device_session.h).
// It wires what crosses between them: a capture from the device becomes an open document, a new
// live recording is shown, File > Open opens a path as what it holds.
//
// Views read the documents and draw them; they hold no analysis logic. Every change to session
// state happens on the UI thread: in the calls of the parts or in Poll() (which applies finished
// worker tasks and device events).
//
// Thread-safety: not thread-safe; call everything from the UI thread. The `wake` callback given
// in Options is called from other threads when something finished (it must be thread-safe).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "xrpm/app/comparisons.h"
#include "xrpm/app/device_session.h"
#include "xrpm/app/documents.h"
#include "xrpm/app/recordings.h"
#include "xrpm/app/selection.h"
#include "xrpm/app/session_log.h"
#include "xrpm/app/settings.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {

class AppSession {
 public:
  struct Options {
    std::string config_dir;      // "" = ConfigDir()
    bool persist = true;         // write settings on change and at exit
    std::function<void()> wake;  // called from worker threads when the UI should redraw
  };

  explicit AppSession(Options opts);
  ~AppSession();  // saves settings (when persisting) and stops the worker
  AppSession(const AppSession&) = delete;
  AppSession& operator=(const AppSession&) = delete;

  // ---- the sessions it hosts ----
  Documents& documents() { return documents_; }
  const Documents& documents() const { return documents_; }
  Selection& selection() { return selection_; }
  Recordings& recordings() { return recordings_; }
  const Recordings& recordings() const { return recordings_; }
  Comparisons& comparisons() { return comparisons_; }
  const Comparisons& comparisons() const { return comparisons_; }
  DeviceSession& device() { return device_; }
  const DeviceSession& device() const { return device_; }

  // ---- settings ----
  Settings& settings() { return settings_; }
  const std::string& config_dir() const { return config_dir_; }
  std::string imgui_ini_path() const { return config_dir_ + "/imgui.ini"; }
  void SaveSettingsNow();  // errors go to the log

  // Opens `path` as what it holds: a saved recording (recordings().Open) or a snapshot
  // (documents().OpenFile). File > Open, dropped files, recent files and the command line all
  // come here.
  struct Opened {
    bool recording = false;
    uint32_t id = 0;  // the RecordingDoc or SnapshotDoc
  };
  Opened Open(const std::string& path);

  // ---- captures from the device, as documents ----
  // The id of the document the last capture produced (0: none yet).
  uint32_t last_capture_doc() const { return last_capture_doc_; }
  // The document of a capture (device().Capture(), not auto capture) completed since the last
  // call, once (0: none): the monitor then shows its Inspections view, as after an open.
  uint32_t TakeLandedCapture() { return std::exchange(landed_capture_, 0u); }

  // ---- work ----
  TaskStatus work() const { return worker_.Status(); }
  void CancelWork() { worker_.CancelAll(); }
  // No background task queued, running or waiting to be applied.
  bool Idle() const { return worker_.Idle(); }
  // Applies finished background work and device events. Call once per frame; returns true if
  // anything changed.
  bool Poll();
  // Blocks until no background task is queued or running, then applies the results. For
  // scripts and tests. Returns false on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);

  // ---- log ----
  const std::deque<LogEntry>& log() const { return log_.entries(); }
  void Log(LogEntry::Level level, std::string text) { log_.Add(level, std::move(text)); }
  // The last error message, cleared by ClearError (shown in the status bar).
  const std::string& last_error() const { return log_.last_error(); }
  void ClearError() { log_.ClearError(); }

  // Everything a test or script wants to assert, as JSON text (app_session_state_json.cpp).
  std::string StateJson() const;

 private:
  Options opts_;
  std::string config_dir_;
  Settings settings_;
  SessionLog log_;
  Worker worker_;
  // The parts refer to the members above (and recordings_ to device_'s live frames), so they
  // are declared after them: built after, destroyed before.
  DeviceSession device_;
  Documents documents_;
  Selection selection_;
  Recordings recordings_;
  Comparisons comparisons_;
  uint32_t last_capture_doc_ = 0;
  uint32_t landed_capture_ = 0;  // TakeLandedCapture
};

}  // namespace xrpm::app
