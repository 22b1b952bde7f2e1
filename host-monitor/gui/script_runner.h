// ScriptRunner: plays a parsed script (xrpm/app/script.h) against the running window, one step
// at a time between frames, so tests drive the real GUI: the same App, session, worker threads
// and client a user gets. Steps that start work (open, capture, save, ...) wait for it to
// finish, each with a deadline; any failure stops the script with "line N: what went wrong"
// and exit code 1.
//
// Thread-safety: UI thread only.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "xrpm/app/script.h"

namespace xrpm::gui {

class App;

class ScriptRunner {
 public:
  ScriptRunner(std::vector<app::ScriptStep> steps, App& app);

  // Before drawing a frame: runs steps until one needs frames drawn or work to finish.
  void BeforeFrame();
  // The PNG path to write after this frame's drawing ("" = none).
  std::string ScreenshotRequest() const;
  // After the frame was drawn (and the screenshot, if any, written).
  void AfterFrame(bool screenshot_ok, const std::string& screenshot_error);

  bool done() const { return done_; }
  int exit_code() const { return exit_code_; }
  uint64_t frames() const { return frames_; }

 private:
  enum class Wait { kNone, kFrames, kIdle, kScreenshot, kDevice };
  // Starts step `s` through the verb table (script_runner.cpp): one Start<Verb> per verb, which
  // either finishes the step (Next), or sets what to wait for, or fails.
  void Start(const app::ScriptStep& s);
  void StartAllocationsBy(const app::ScriptStep& s);
  void StartAutoCapture(const app::ScriptStep& s);
  void StartCapture(const app::ScriptStep& s);
  void StartClose(const app::ScriptStep& s);
  void StartCloseWindow(const app::ScriptStep& s);
  void StartCompare(const app::ScriptStep& s);
  void StartCompareAllocations(const app::ScriptStep& s);
  void StartConnect(const app::ScriptStep& s);
  void StartConnectDiscovered(const app::ScriptStep& s);
  void StartDemo(const app::ScriptStep& s);
  void StartDisconnect(const app::ScriptStep& s);
  void StartDrop(const app::ScriptStep& s);
  void StartExpectDialog(const app::ScriptStep& s);
  void StartExpectView(const app::ScriptStep& s);
  void StartExportCounters(const app::ScriptStep& s);
  void StartFieldFilter(const app::ScriptStep& s);
  void StartFilter(const app::ScriptStep& s);
  void StartGroupBy(const app::ScriptStep& s);
  void StartKey(const app::ScriptStep& s);
  void StartLaunchEmulator(const app::ScriptStep& s);
  void StartLaunchMono(const app::ScriptStep& s);
  void StartLeaks(const app::ScriptStep& s);
  void StartMonoOptions(const app::ScriptStep& s);
  void StartOpen(const app::ScriptStep& s);
  void StartOpenRecording(const app::ScriptStep& s);
  void StartDemoDialog(const app::ScriptStep& s);
  void StartPauseCounters(const app::ScriptStep& s);
  void StartQuit(const app::ScriptStep& s);
  void StartRecordFrames(const app::ScriptStep& s);
  void StartResumeCounters(const app::ScriptStep& s);
  void StartSave(const app::ScriptStep& s);
  void StartSaveRecording(const app::ScriptStep& s);
  void StartScreenshot(const app::ScriptStep& s);
  void StartSelectAge(const app::ScriptStep& s);
  void StartSelectDoc(const app::ScriptStep& s);
  void StartSelectFinding(const app::ScriptStep& s);
  void StartSelectFrames(const app::ScriptStep& s);
  void StartSelectObject(const app::ScriptStep& s);
  void StartSelectSite(const app::ScriptStep& s);
  void StartSelectType(const app::ScriptStep& s);
  void StartState(const app::ScriptStep& s);
  void StartStopAutoCapture(const app::ScriptStep& s);
  void StartType(const app::ScriptStep& s);
  void StartView(const app::ScriptStep& s);
  void StartWaitCapture(const app::ScriptStep& s);
  void StartWaitCount(const app::ScriptStep& s);
  void StartWaitDiscovered(const app::ScriptStep& s);
  void StartWaitFrames(const app::ScriptStep& s);
  void StartWaitIdle(const app::ScriptStep& s);
  void Check();  // while waiting: done yet?
  void CheckDevice();
  void Fail(const std::string& why);
  void Finish(int code);
  void Next();

  std::vector<app::ScriptStep> steps_;
  App& app_;
  size_t pc_ = 0;
  Wait wait_ = Wait::kNone;
  uint64_t frames_left_ = 0;
  uint64_t frames_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::string progress_seen_;  // a loading snapshot's worker status when it last moved
  std::string shot_path_;
  bool shot_pending_ = false;
  uint32_t awaited_doc_ = 0;        // open/demo: the document to wait for
  uint32_t awaited_recording_ = 0;  // open/open-recording: the recording to wait for
  std::string awaited_save_;        // save: the path that must become the document's path
  uint32_t captures_before_ = 0;    // capture: the last captured document before this step
  uint64_t counter_target_ = 0;     // wait-counters, wait-discovered
  int key_down_ = -1;               // the `key` step's key code, released after one frame
  bool done_ = false;
  int exit_code_ = 0;
};

}  // namespace xrpm::gui
