// AppSession: the monitor's application state without any GUI, so it can be unit-tested without
// a display and driven by scripts. It owns the open snapshots (SnapshotDoc), runs loads,
// analyses, saves and comparisons on a Worker thread with progress and cancel, keeps a log of
// what happened in plain words, and persists settings and recent files.
//
// Views read the documents and draw them; they hold no analysis logic. Every change to session
// state happens on the UI thread: in the calls below or in Poll() (which applies finished
// worker tasks).
//
// Thread-safety: not thread-safe; call everything from the UI thread. The `wake` callback given
// in Options is called from other threads when something finished (it must be thread-safe).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xrpm/analysis/diff.h"
#include "xrpm/app/auto_capture_board.h"
#include "xrpm/app/counter_board.h"
#include "xrpm/app/demo_heap.h"
#include "xrpm/app/device_link.h"
#include "xrpm/app/frame_board.h"
#include "xrpm/app/leak_view.h"
#include "xrpm/app/recording_doc.h"
#include "xrpm/app/settings.h"
#include "xrpm/app/snapshot_doc.h"
#include "xrpm/app/worker.h"
#include "xrpm/client/device_discovery.h"

namespace xrpm::app {

// The result of comparing two or more snapshots (oldest first).
struct CompareResult {
  std::vector<uint32_t> docs;
  std::vector<std::string> titles;
  analysis::HeapDiff diff;                  // per type name, sorted by growth
  std::vector<analysis::Suspect> growth;    // growing types, with paths in the last snapshot
  std::shared_ptr<const DocAnalysis> last;  // the analysis the growth suspects refer to
};

struct LogEntry {
  enum Level { kInfo, kWarning, kError } level = kInfo;
  double time_s = 0;  // seconds since the session started
  std::string text;
};

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

  // ---- settings ----
  Settings& settings() { return settings_; }
  const std::string& config_dir() const { return config_dir_; }
  std::string imgui_ini_path() const { return config_dir_ + "/imgui.ini"; }
  void SaveSettingsNow();  // errors go to the log

  // ---- documents ----
  const std::vector<std::unique_ptr<SnapshotDoc>>& docs() const { return docs_; }
  SnapshotDoc* doc(uint32_t id);
  SnapshotDoc* active() { return doc(active_id_); }
  uint32_t active_id() const { return active_id_; }
  void SetActive(uint32_t id);

  // Starts loading `path` (any readable format) in the background; returns the new document's
  // id. The document appears at once in state kLoading.
  uint32_t OpenFile(const std::string& path);
  // Generates a demo heap in the background.
  uint32_t OpenDemo(const DemoHeapOptions& opts);
  // Adds a snapshot that is already in memory (a capture): unsaved until saved.
  uint32_t AddSnapshot(Snapshot snap, DocOrigin origin, std::string title);
  uint32_t AddSnapshot(std::shared_ptr<const Snapshot> snap, DocOrigin origin, std::string title);
  // Saves in the background (format "" = by extension). On success the document's path is
  // `path`, it is no longer unsaved and the file is in the recent list.
  void SaveAs(uint32_t id, const std::string& path, const std::string& format = {});
  // Closes a document. Refuses (returns false) when it has unsaved changes and !discard: the
  // caller asks the user first.
  bool Close(uint32_t id, bool discard = false);
  bool HasUnsaved() const;

  // Selects a type by exact name in the active document (false if absent or not ready).
  bool SelectType(const std::string& name);
  // (Re)runs the analysis of a loaded snapshot (after a cancel or a failure).
  void Analyse(uint32_t id);
  // Computes in the background the merged shortest paths holding the instances of the type
  // (all types of its name) into doc->holders.
  void FindHolders(uint32_t id, uint32_t type_index);
  // Compares analysed snapshots in the background (oldest first); the result replaces compare().
  void Compare(std::vector<uint32_t> ids);
  const std::shared_ptr<const CompareResult>& compare() const { return compare_; }
  // Compare's leak filter: the objects of capture c allocated between captures a and b and
  // still held in c, on the worker; the result (or why it cannot run) replaces leaks().
  void FindLeaks(uint32_t a, uint32_t b, uint32_t c);
  const std::shared_ptr<const LeaksResult>& leaks() const { return leaks_; }
  bool SelectObject(uint64_t object_index);
  // Selects the `n`-th (0-based) finding of the inspection named `name` in the active
  // document: its objects' type and its first object (the Inspections view's links). False
  // when the document is not analysed or has no such finding.
  bool SelectFinding(const std::string& name, size_t n);
  // Narrows the Instances list of the active snapshot to one allocation site: the largest site
  // of the selected type's instances (of all objects when no type is selected) whose label
  // contains `text`; "unknown": the objects of unknown origin; "all": no narrowing. False when
  // nothing matches or the snapshot has no origins.
  bool SelectSite(const std::string& text);
  // Picks the Age view's bin holding objects `age_frames` old, or "largest" (most bytes) /
  // "oldest" non-empty bin. False when the snapshot has no ages or no such bin.
  bool SelectAgeBin(const std::string& what);

  // ---- device ----
  // Connects to an agent ("HOST:PORT"); progress and errors show in link() and the log.
  void Connect(const std::string& endpoint, const std::string& token);
  void Disconnect();
  // Starts xrpm-emulator locally with `scenario` on 127.0.0.1:<settings port> and connects;
  // `extra_args` go to the emulator as they are (e.g. {"--objects", "5000000"}).
  bool LaunchEmulator(const std::string& scenario, const std::vector<std::string>& extra_args = {});
  // Starts a C# program under Mono with the agent inside (xrpm-mono, found like xrpm-emulator)
  // on 127.0.0.1:<settings port> and connects; `game` "" is the sample game XnaBubbles.exe
  // built beside xrpm-mono. Mono itself gets the options of settings().mono_options.
  bool LaunchMono(const std::string& game, const std::vector<std::string>& game_args = {});
  // Captures the connected device's heap; the snapshot arrives as a new unsaved document.
  bool Capture();
  void CancelCapture() { link_.CancelCapture(); }
  // The id of the document the last capture produced (0: none yet).
  uint32_t last_capture_doc() const { return last_capture_doc_; }
  // The document of a capture (Capture(), not auto capture) completed since the last call, once
  // (0: none): the monitor then shows its Inspections view, as after an open.
  uint32_t TakeLandedCapture() { return std::exchange(landed_capture_, 0u); }
  DeviceLink& link() { return link_; }
  const DeviceLink& link() const { return link_; }
  CounterBoard& counters() { return counters_; }
  // Writes the connected device's kept counter history as CSV (errors go to the log).
  bool ExportCounters(const std::string& path);
  // Frames and allocation samples (Timeline, Allocations): starts or stops the subscription;
  // the rows land in live_frames() (a new subscription starts a new recording), which the
  // Timeline then shows.
  bool StartFrames(uint32_t sample_bytes);
  void StopFrames();
  // The recording the Timeline and Allocations views show: the live one or an opened file.
  FrameBoard& frames();
  const FrameBoard& frames() const;
  FrameBoard& live_frames() { return frames_; }
  const FrameBoard& live_frames() const { return frames_; }
  uint32_t frame_sample_bytes() const { return frame_sample_bytes_; }
  void set_frame_sample_bytes(uint32_t n) { frame_sample_bytes_ = n; }
  // Auto capture (the Capture panel; auto_capture_board.h): starts the rules in its fields on
  // the connected device (and the frames subscription when they need it; frames already being
  // recorded are kept); captures it takes are saved under its output template, not opened.
  // False, with the reason in the log and last_error(), when the fields do not parse.
  bool StartAutoCapture();
  void StopAutoCapture();
  AutoCaptureBoard& auto_capture() { return auto_capture_; }
  const AutoCaptureBoard& auto_capture() const { return auto_capture_; }

  // ---- saved recordings (recording_doc.h) ----
  // Opens `path` as what it holds: a saved recording (OpenRecording) or a snapshot (OpenFile).
  // File > Open, dropped files, recent files and the command line all come here.
  struct Opened {
    bool recording = false;
    uint32_t id = 0;  // the RecordingDoc or SnapshotDoc
  };
  Opened Open(const std::string& path);
  // Reads a saved recording in the background; it appears at once in recordings() (kLoading)
  // and, once read, is shown in the Timeline and Allocations views. A corrupt, truncated or
  // non-recording file is refused: the document is kFailed with the reader's error, which
  // also goes to the log and last_error().
  uint32_t OpenRecording(const std::string& path);
  // Saves the shown recording (frames, collections, markers, allocation samples with their
  // stacks and tags) to `path` in the background, atomically (formats::SaveRecordingFile).
  // False, with the reason in the log, when there is nothing to save.
  bool SaveRecording(const std::string& path);
  // The path of the last recording saved ("" while a save runs or after it failed).
  const std::string& last_saved_recording() const { return last_saved_recording_; }
  const std::vector<std::unique_ptr<RecordingDoc>>& recordings() const { return recordings_; }
  RecordingDoc* recording(uint32_t id);
  // Which recording the Timeline shows: kLiveRecording or a ready RecordingDoc's id.
  uint32_t shown_recording() const { return shown_recording_; }
  void ShowRecording(uint32_t id);
  void CloseRecording(uint32_t id);
  // "Live recording (bubbles.exe)" or the file name.
  std::string RecordingTitle(uint32_t id) const;
  // Compare's Allocations mode: the allocation traffic of recordings A and B (ids as above)
  // per call site, by analysis::DiffAllocations on the worker; the result replaces
  // alloc_compare(). False, logged, when a recording is missing or not ready.
  bool CompareAllocations(uint32_t a, uint32_t b, analysis::AllocSiteKind by);
  const std::shared_ptr<const AllocCompareResult>& alloc_compare() const { return alloc_compare_; }

  // ---- discovery: devices that announce themselves (agents started with --announce) ----
  // Starts listening for their beacons (idempotent). It only listens: nothing connects until
  // the user picks a device. False where no socket could listen (reason: discovery_error()).
  bool StartDiscovery();
  std::vector<client::DiscoveredDevice> DiscoveredDevices() const;
  const std::string& discovery_error() const { return discovery_error_; }
  // Connects to a listed device at its beacon's source address (the user's click); `token`
  // for a device that requires one.
  void ConnectDiscovered(const client::DiscoveredDevice& d, const std::string& token);

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
  const std::deque<LogEntry>& log() const { return log_; }
  void Log(LogEntry::Level level, std::string text);
  // The last error message, cleared by ClearError (shown in the status bar).
  const std::string& last_error() const { return last_error_; }
  void ClearError() { last_error_.clear(); }

  // Everything a test or script wants to assert, as JSON text.
  std::string StateJson() const;

 private:
  uint32_t NewDoc(std::string title, std::string path, DocOrigin origin);
  void StartAnalysis(uint32_t id);
  void Fail(uint32_t id, const std::string& what);
  double Now() const;

  Options opts_;
  std::string config_dir_;
  Settings settings_;
  Worker worker_;
  std::vector<std::unique_ptr<SnapshotDoc>> docs_;
  uint32_t next_id_ = 1;
  uint32_t active_id_ = 0;
  std::deque<LogEntry> log_;
  std::string last_error_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  uint32_t captures_ = 0;
  std::shared_ptr<const CompareResult> compare_;
  std::shared_ptr<const LeaksResult> leaks_;
  DeviceLink link_;
  std::unique_ptr<client::DeviceDiscovery> discovery_;
  std::string discovery_error_;
  CounterBoard counters_;
  FrameBoard frames_;  // the live recording
  std::vector<std::unique_ptr<RecordingDoc>> recordings_;
  uint32_t shown_recording_ = kLiveRecording;
  uint32_t next_recording_id_ = 1;
  std::string last_saved_recording_;
  std::shared_ptr<const AllocCompareResult> alloc_compare_;
  const FrameRecording* RecordingOf(uint32_t id) const;
  AutoCaptureBoard auto_capture_;
  uint32_t frame_sample_bytes_ = 16 * 1024;
  std::string frames_error_;  // the last refusal logged
  uint32_t last_capture_doc_ = 0;
  uint32_t landed_capture_ = 0;  // TakeLandedCapture
  void PollDevice();
};

}  // namespace xrpm::app
