#include "script_runner.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "app.h"
#include "xrpm/model/atomic_file.h"

namespace xrpm::gui {
using namespace xrpm::app;
using Clock = std::chrono::steady_clock;

namespace {
constexpr uint64_t kSettleFrames = 3;  // frames drawn after each step (popups, tab switches)
constexpr double kDefaultWaitS = 120;
// A snapshot that loads (open, drop, demo) may take many minutes on a heap of hundreds of
// millions of objects: its wait fails only after this long without the worker's progress moving.
constexpr double kLoadStallS = 600;

#define XRPM_SCRIPT_VERB_ONE(e, name, args, usage) +1
constexpr size_t kVerbCount = 0 XRPM_SCRIPT_VERBS(XRPM_SCRIPT_VERB_ONE);
#undef XRPM_SCRIPT_VERB_ONE

// A row of the verb table: the member function that starts a step of `verb`.
struct VerbStart {
  ScriptVerb verb;
  void (ScriptRunner::*start)(const ScriptStep&);
};

// Every verb has its row, at the index of its enumerator.
template <size_t N>
constexpr bool InVerbOrder(const VerbStart (&rows)[N]) {
  if (N != kVerbCount) return false;
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].verb) != i) return false;
  return true;
}

// The step's first argument ("" when it has none).
std::string FirstArg(const ScriptStep& s) {
  return s.args.empty() ? std::string() : s.args[0];
}
}  // namespace

ScriptRunner::ScriptRunner(std::vector<ScriptStep> steps, App& app)
    : steps_(std::move(steps)), app_(app) {}

void ScriptRunner::Fail(const std::string& why) {
  const std::string where = pc_ < steps_.size() ? steps_[pc_].ToString() : "end of script";
  std::fprintf(stderr, "xrpm-monitor: script %s: %s\n", where.c_str(), why.c_str());
  Finish(1);
}

void ScriptRunner::Finish(int code) {
  done_ = true;
  exit_code_ = code;
  wait_ = Wait::kNone;
}

void ScriptRunner::Next() {
  ++pc_;
  wait_ = Wait::kFrames;
  frames_left_ = kSettleFrames;
}

void ScriptRunner::BeforeFrame() {
  while (!done_) {
    if (wait_ != Wait::kNone) {
      Check();
      if (wait_ != Wait::kNone || done_) return;
    }
    if (pc_ >= steps_.size()) {
      Finish(0);
      return;
    }
    Start(steps_[pc_]);
  }
}

void ScriptRunner::Start(const ScriptStep& s) {
  // One row per verb, in ScriptVerb order: the member that starts its step.
  static constexpr VerbStart kStarts[] = {
      {ScriptVerb::kLaunchEmulator, &ScriptRunner::StartLaunchEmulator},
      {ScriptVerb::kLaunchMono, &ScriptRunner::StartLaunchMono},
      {ScriptVerb::kMonoOptions, &ScriptRunner::StartMonoOptions},
      {ScriptVerb::kConnect, &ScriptRunner::StartConnect},
      {ScriptVerb::kWaitDiscovered, &ScriptRunner::StartWaitDiscovered},
      {ScriptVerb::kConnectDiscovered, &ScriptRunner::StartConnectDiscovered},
      {ScriptVerb::kDisconnect, &ScriptRunner::StartDisconnect},
      {ScriptVerb::kCapture, &ScriptRunner::StartCapture},
      {ScriptVerb::kCaptureStart, &ScriptRunner::StartCapture},
      {ScriptVerb::kWaitCapture, &ScriptRunner::StartWaitCapture},
      {ScriptVerb::kOpen, &ScriptRunner::StartOpen},
      {ScriptVerb::kDrop, &ScriptRunner::StartDrop},
      {ScriptVerb::kDemo, &ScriptRunner::StartDemo},
      {ScriptVerb::kDemoDialog, &ScriptRunner::StartDemoDialog},
      {ScriptVerb::kSelectDoc, &ScriptRunner::StartSelectDoc},
      {ScriptVerb::kSelectType, &ScriptRunner::StartSelectType},
      {ScriptVerb::kSelectObject, &ScriptRunner::StartSelectObject},
      {ScriptVerb::kFilter, &ScriptRunner::StartFilter},
      {ScriptVerb::kFieldFilter, &ScriptRunner::StartFieldFilter},
      {ScriptVerb::kGroupBy, &ScriptRunner::StartGroupBy},
      {ScriptVerb::kSelectSite, &ScriptRunner::StartSelectSite},
      {ScriptVerb::kSelectAge, &ScriptRunner::StartSelectAge},
      {ScriptVerb::kSelectFinding, &ScriptRunner::StartSelectFinding},
      {ScriptVerb::kView, &ScriptRunner::StartView},
      {ScriptVerb::kCompare, &ScriptRunner::StartCompare},
      {ScriptVerb::kLeaks, &ScriptRunner::StartLeaks},
      {ScriptVerb::kSave, &ScriptRunner::StartSave},
      {ScriptVerb::kClose, &ScriptRunner::StartClose},
      {ScriptVerb::kWaitIdle, &ScriptRunner::StartWaitIdle},
      {ScriptVerb::kWaitFrames, &ScriptRunner::StartWaitFrames},
      {ScriptVerb::kWaitCounters, &ScriptRunner::StartWaitCount},
      {ScriptVerb::kPauseCounters, &ScriptRunner::StartPauseCounters},
      {ScriptVerb::kResumeCounters, &ScriptRunner::StartResumeCounters},
      {ScriptVerb::kExportCounters, &ScriptRunner::StartExportCounters},
      {ScriptVerb::kRecordFrames, &ScriptRunner::StartRecordFrames},
      {ScriptVerb::kWaitGameFrames, &ScriptRunner::StartWaitCount},
      {ScriptVerb::kSelectFrames, &ScriptRunner::StartSelectFrames},
      {ScriptVerb::kAutoCapture, &ScriptRunner::StartAutoCapture},
      {ScriptVerb::kWaitAutoCaptures, &ScriptRunner::StartWaitCount},
      {ScriptVerb::kStopAutoCapture, &ScriptRunner::StartStopAutoCapture},
      {ScriptVerb::kAllocationsBy, &ScriptRunner::StartAllocationsBy},
      {ScriptVerb::kSaveRecording, &ScriptRunner::StartSaveRecording},
      {ScriptVerb::kOpenRecording, &ScriptRunner::StartOpenRecording},
      {ScriptVerb::kCompareAllocations, &ScriptRunner::StartCompareAllocations},
      {ScriptVerb::kScreenshot, &ScriptRunner::StartScreenshot},
      {ScriptVerb::kState, &ScriptRunner::StartState},
      {ScriptVerb::kKey, &ScriptRunner::StartKey},
      {ScriptVerb::kType, &ScriptRunner::StartType},
      {ScriptVerb::kCloseWindow, &ScriptRunner::StartCloseWindow},
      {ScriptVerb::kExpectView, &ScriptRunner::StartExpectView},
      {ScriptVerb::kExpectDialog, &ScriptRunner::StartExpectDialog},
      {ScriptVerb::kQuit, &ScriptRunner::StartQuit},
  };
  static_assert(InVerbOrder(kStarts), "one row per script verb, in ScriptVerb order");
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(kDefaultWaitS));
  progress_seen_.clear();
  std::fprintf(stderr, "xrpm-monitor: script %s\n", s.ToString().c_str());
  (this->*kStarts[static_cast<size_t>(s.id)].start)(s);
}

void ScriptRunner::StartQuit(const ScriptStep&) {
  Finish(0);
}

void ScriptRunner::StartOpen(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  const AppSession::Opened o = app_.OpenPath(arg);  // as File > Open does
  awaited_doc_ = o.recording ? 0 : o.id;
  awaited_recording_ = o.recording ? o.id : 0;
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartOpenRecording(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  awaited_doc_ = 0;
  awaited_recording_ = ses.recordings().Open(arg);
  app_.SetView(View::kTimeline);
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartSaveRecording(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.recordings().Save(arg)) return Fail(ses.last_error());
  awaited_save_ = arg;
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartCompareAllocations(const ScriptStep& s) {
  AppSession& ses = app_.session();
  uint32_t ids[2];
  for (size_t k = 0; k < 2; ++k) {
    if (s.args[k] == "live") {
      ids[k] = kLiveRecording;
      continue;
    }
    const size_t n = std::stoull(s.args[k]);
    if (n > ses.recordings().docs().size())
      return Fail("there are " + std::to_string(ses.recordings().docs().size()) +
                  " recordings open");
    ids[k] = ses.recordings().docs()[n - 1]->id;
  }
  const auto by = s.args.size() > 2 ? *analysis::AllocSiteKindFromName(s.args[2])
                                    : analysis::AllocSiteKind::kStack;
  CompareViewState& cv = app_.views().compare;
  cv.mode = CompareMode::kAllocations;
  cv.alloc_a = ids[0];
  cv.alloc_b = ids[1];
  cv.alloc_by = by;
  app_.SetView(View::kCompare);
  if (!ses.comparisons().CompareAllocations(ids[0], ids[1], by)) return Fail(ses.last_error());
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartDrop(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  const size_t recordings = ses.recordings().docs().size();
  app_.OpenDropped({arg});  // the window's drop handler
  const bool recording = ses.recordings().docs().size() > recordings;
  awaited_recording_ = recording ? ses.recordings().docs().back()->id : 0;
  awaited_doc_ = recording ? 0 : ses.documents().active_id();
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartDemo(const ScriptStep& s) {
  AppSession& ses = app_.session();
  DemoHeapOptions o;
  o.objects = std::stoull(s.args[0]);
  if (s.args.size() > 1) o.generation = static_cast<uint32_t>(std::stoul(s.args[1]));
  if (s.args.size() > 2) o.extra_refs_per_object = double(std::stoul(s.args[2]));
  awaited_doc_ = ses.documents().OpenDemo(o);
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartWaitIdle(const ScriptStep& s) {
  if (!s.args.empty()) deadline_ = Clock::now() + std::chrono::seconds(std::stoull(s.args[0]));
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartWaitFrames(const ScriptStep& s) {
  ++pc_;
  wait_ = Wait::kFrames;
  frames_left_ = std::stoull(s.args[0]);
}

void ScriptRunner::StartSelectDoc(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  const size_t n = std::stoull(arg);
  if (n == 0 || n > ses.documents().docs().size())
    return Fail("there are " + std::to_string(ses.documents().docs().size()) + " snapshots open");
  ses.documents().SetActive(ses.documents().docs()[n - 1]->id);
  Next();
}

void ScriptRunner::StartSelectType(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.selection().SelectType(arg))
    return Fail("no type named '" + arg + "' in the active snapshot");
  Next();
}

void ScriptRunner::StartSelectObject(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  SnapshotDoc* d = ses.documents().active();
  if (!d || !d->snapshot) return Fail("no snapshot is open");
  if (arg == "first") {
    if (d->selection.type < 0) return Fail("select-object first needs select-type first");
    // The first row of the Instances view: the largest retained size (size before analysis).
    auto objs = InstancesOfType(*d->snapshot, uint32_t(d->selection.type));
    if (objs.empty()) return Fail("the selected type has no instances");
    SortInstances(*d->snapshot, objs, InstanceOrder::kRetained, true,
                  d->analysis ? d->analysis->dom().retained_sizes() : std::span<const uint64_t>());
    ses.selection().SelectObject(objs.front());
  } else if (arg == "shown") {  // the Instances view's first row (as filtered and sorted)
    const InstanceListView& list = app_.views().instances.list;
    if (!list.built() || list.doc() != d->id || list.objects().empty())
      return Fail("select-object shown needs the Instances view drawn with rows");
    ses.selection().SelectObject(list.objects().front());
  } else if (!ses.selection().SelectObject(std::stoull(arg))) {
    return Fail("no object with index " + arg);
  }
  Next();
}

void ScriptRunner::StartFilter(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  SnapshotDoc* d = ses.documents().active();
  if (!d) return Fail("no snapshot is open");
  d->selection.type_filter = arg;
  Next();
}

// The Instances view's field filter.
void ScriptRunner::StartFieldFilter(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  InstancesViewState& st = app_.views().instances;
  st.filter = arg;
  std::snprintf(st.filter_input.data(), st.filter_input.size(), "%s", arg.c_str());
  Next();
}

void ScriptRunner::StartGroupBy(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  SnapshotDoc* d = ses.documents().active();
  if (!d) return Fail("no snapshot is open");
  d->selection.grouping = *SiteGroupingFromName(arg);
  Next();
}

void ScriptRunner::StartSelectSite(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.selection().SelectSite(arg))
    return Fail("no allocation site matching '" + arg +
                "' (the snapshot has no origins, or none of the sites matches)");
  Next();
}

void ScriptRunner::StartSelectAge(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.selection().SelectAgeBin(arg))
    return Fail("no age bin '" + arg + "' (the snapshot has no ages, or that bin is empty)");
  Next();
}

void ScriptRunner::StartSelectFinding(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const size_t n = s.args.size() > 1 ? std::stoull(s.args[1]) : 1;
  if (!ses.selection().SelectFinding(s.args[0], n - 1))
    return Fail("no finding " + std::to_string(n) + " of " + s.args[0] +
                " (not analysed yet, or the inspection found fewer)");
  Next();
}

void ScriptRunner::StartView(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  auto v = ViewFromName(arg);
  if (!v) return Fail("unknown view");
  app_.SetView(*v);
  Next();
}

void ScriptRunner::StartLaunchEmulator(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  std::istringstream words(arg);
  std::string scenario;
  words >> scenario;
  std::vector<std::string> options;
  for (std::string w; words >> w;) options.push_back(w);
  if (!ses.device().LaunchEmulator(scenario, options))
    return Fail("could not start the emulator: " + ses.last_error());
  app_.SetView(View::kCounters);
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartLaunchMono(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  std::istringstream words(arg);
  std::string game;
  words >> game;
  std::vector<std::string> game_args;
  for (std::string w; words >> w;) game_args.push_back(w);
  if (!ses.device().LaunchMono(game == "sample" ? "" : game, game_args))
    return Fail("could not start the program under Mono: " + ses.last_error());
  app_.SetView(View::kCounters);
  wait_ = Wait::kDevice;
}

// Mono's own options for the next launch-mono.
void ScriptRunner::StartMonoOptions(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  ses.settings().mono_options = arg;
  Next();
}

void ScriptRunner::StartConnect(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  ses.device().Connect(arg, ses.settings().token);
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartWaitDiscovered(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.device().StartDiscovery())
    return Fail("device discovery is off: " + ses.device().discovery_error());
  counter_target_ = std::stoull(arg);
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartConnectDiscovered(const ScriptStep&) {
  AppSession& ses = app_.session();
  // As a user would: wait for the device to be listed, then click it (CheckDevice).
  if (!ses.device().StartDiscovery())
    return Fail("device discovery is off: " + ses.device().discovery_error());
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartDisconnect(const ScriptStep&) {
  AppSession& ses = app_.session();
  ses.device().Disconnect();
  Next();
}

// capture and capture-start: both start a capture; CheckDevice waits for the snapshot or for
// its first objects.
void ScriptRunner::StartCapture(const ScriptStep&) {
  AppSession& ses = app_.session();
  captures_before_ = ses.last_capture_doc();
  if (!ses.device().Capture()) return Fail(ses.last_error());
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartWaitCapture(const ScriptStep&) {
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartDemoDialog(const ScriptStep&) {
  app_.ShowDemoDialog();
  Next();
}

void ScriptRunner::StartPauseCounters(const ScriptStep&) {
  app_.session().device().counters().set_paused(true);
  Next();
}

void ScriptRunner::StartResumeCounters(const ScriptStep&) {
  app_.session().device().counters().set_paused(false);
  Next();
}

void ScriptRunner::StartExportCounters(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!ses.device().ExportCounters(arg)) return Fail("exporting the counters failed");
  Next();
}

void ScriptRunner::StartKey(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  // Pressed before this frame's NewFrame, released after it: what the GLFW backend does for a
  // real key press (Dear ImGui 1.86 indexes KeysDown by GLFW key code).
  const ScriptKey k = *ParseScriptKey(arg);
  ImGuiIO& io = ImGui::GetIO();
  key_down_ = k.key == ScriptKey::kEnter    ? GLFW_KEY_ENTER
              : k.key == ScriptKey::kEscape ? GLFW_KEY_ESCAPE
                                            : GLFW_KEY_A + (k.key - 'a');
  io.KeysDown[key_down_] = true;
  io.KeyCtrl = k.ctrl;
  Next();
}

void ScriptRunner::StartType(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  ImGui::GetIO().AddInputCharactersUTF8(arg.c_str());
  Next();
}

void ScriptRunner::StartCloseWindow(const ScriptStep&) {
  app_.RequestQuit();
  Next();
}

void ScriptRunner::StartExpectView(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  if (ViewName(app_.view()) != arg)
    return Fail("the view shown is " + std::string(ViewName(app_.view())));
  Next();
}

void ScriptRunner::StartExpectDialog(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  if (app_.DialogName() != arg)
    return Fail("the dialog shown is " + std::string(app_.DialogName()));
  Next();
}

void ScriptRunner::StartRecordFrames(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  if (!arg.empty()) ses.device().set_frame_sample_bytes(uint32_t(std::stoul(arg)));
  if (!ses.device().StartFrames(ses.device().frame_sample_bytes()))
    return Fail("could not record frames: " + ses.last_error());
  app_.SetView(View::kTimeline);
  Next();
}

// wait-counters, wait-game-frames, wait-auto-captures: the count CheckDevice waits for.
void ScriptRunner::StartWaitCount(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  counter_target_ = std::stoull(arg);
  wait_ = Wait::kDevice;
}

void ScriptRunner::StartAutoCapture(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  AutoCaptureBoard& b = ses.device().auto_capture();
  std::istringstream in(arg);
  for (std::string field; in >> field;) {
    const size_t eq = field.find('=');
    const std::string key = field.substr(0, eq),
                      value = eq == std::string::npos ? "" : field.substr(eq + 1);
    if (key == "every")
      b.triggers.every = value;
    else if (key == "on-growth")
      b.triggers.on_growth = value;
    else if (key == "on-gc-pause")
      b.triggers.on_gc_pause = value;
    else if (key == "on-marker")
      b.triggers.on_marker = value;
    else if (key == "files")
      b.output = value;
    else if (key == "keep")
      b.keep = uint32_t(std::stoul(value));
    else if (key == "game")
      b.triggers.game_requests = value == "on";
    else
      return Fail(
          "auto-capture: expected every=, on-growth=, on-gc-pause=, on-marker=, files=, keep= or "
          "game=, found '" +
          field + "'");
  }
  if (!ses.device().StartAutoCapture()) return Fail("auto-capture: " + ses.last_error());
  app_.SetView(View::kConnection);
  Next();
}

void ScriptRunner::StartStopAutoCapture(const ScriptStep&) {
  AppSession& ses = app_.session();
  ses.device().StopAutoCapture();
  Next();
}

void ScriptRunner::StartSelectFrames(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const auto& rows = ses.recordings().shown().recording().frames;
  const size_t a = std::stoull(s.args[0]);
  const size_t b = s.args.size() > 1 ? std::stoull(s.args[1]) : rows.size();
  if (a == 0 || a > b || b > rows.size())
    return Fail("select-frames: " + std::to_string(rows.size()) + " frames are recorded");
  ses.recordings().shown().Select(rows[a - 1].frame, rows[b - 1].frame);
  Next();
}

void ScriptRunner::StartAllocationsBy(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  auto g = AllocGroupFromName(arg);
  if (!g) return Fail("allocations-by: type, method or stack");
  ses.recordings().shown().group = *g;
  app_.SetView(View::kAllocations);
  Next();
}

void ScriptRunner::StartCompare(const ScriptStep&) {
  AppSession& ses = app_.session();
  std::vector<uint32_t> ids;
  for (const auto& d : ses.documents().docs()) ids.push_back(d->id);
  if (ids.size() < 2) return Fail("compare needs at least two open snapshots");
  ses.comparisons().CompareSnapshots(ids);
  app_.SetView(View::kCompare);
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartLeaks(const ScriptStep& s) {
  AppSession& ses = app_.session();
  uint32_t ids[3];
  for (size_t k = 0; k < 3; ++k) {
    const size_t n = std::stoull(s.args[k]);
    if (n == 0 || n > ses.documents().docs().size())
      return Fail("there are " + std::to_string(ses.documents().docs().size()) + " snapshots open");
    ids[k] = ses.documents().docs()[n - 1]->id;
  }
  ses.comparisons().FindLeaks(ids[0], ids[1], ids[2]);
  app_.views().compare.mode = CompareMode::kLeaks;
  app_.views().compare.leak_docs = {ids[0], ids[1], ids[2]};
  app_.SetView(View::kCompare);
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartSave(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  SnapshotDoc* d = ses.documents().active();
  if (!d || !d->snapshot) return Fail("no snapshot to save");
  awaited_save_ = arg;
  awaited_doc_ = d->id;
  ses.documents().SaveAs(d->id, arg);
  wait_ = Wait::kIdle;
}

void ScriptRunner::StartClose(const ScriptStep&) {
  AppSession& ses = app_.session();
  SnapshotDoc* d = ses.documents().active();
  if (!d) return Fail("no snapshot is open");
  ses.documents().Close(d->id, /*discard=*/true);
  Next();
}

void ScriptRunner::StartScreenshot(const ScriptStep& s) {
  const std::string arg = FirstArg(s);
  shot_path_ = arg;
  shot_pending_ = true;
  wait_ = Wait::kScreenshot;
}

void ScriptRunner::StartState(const ScriptStep& s) {
  AppSession& ses = app_.session();
  const std::string arg = FirstArg(s);
  try {
    AtomicFile f(arg);
    f.Write(ses.StateJson());
    f.Commit();
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
  Next();
}

void ScriptRunner::Check() {
  AppSession& ses = app_.session();
  switch (wait_) {
    case Wait::kNone:
      return;
    case Wait::kFrames:
      if (frames_left_ == 0) wait_ = Wait::kNone;
      return;
    case Wait::kScreenshot:
      return;  // resolved in AfterFrame
    case Wait::kDevice:
      return CheckDevice();
    case Wait::kIdle:
      break;
  }
  const auto& step = steps_[pc_];
  if (step.id == ScriptVerb::kOpen || step.id == ScriptVerb::kDrop ||
      step.id == ScriptVerb::kDemo) {
    const TaskStatus w = ses.work();
    std::string seen = w.label + '\n' + w.phase + '\n' + std::to_string(w.done);
    if (seen != progress_seen_) {
      progress_seen_ = std::move(seen);
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(kLoadStallS));
    }
  }
  if (Clock::now() > deadline_) return Fail("timed out waiting for background work");
  if (!ses.Idle()) return;
  if ((step.id == ScriptVerb::kOpen || step.id == ScriptVerb::kOpenRecording ||
       step.id == ScriptVerb::kDrop) &&
      awaited_recording_) {
    const RecordingDoc* r = ses.recordings().doc(awaited_recording_);
    if (!r) return Fail("the recording was closed while loading");
    if (r->state == RecordingDoc::State::kFailed) return Fail(r->problem);
  } else if (step.id == ScriptVerb::kOpen || step.id == ScriptVerb::kDemo ||
             step.id == ScriptVerb::kDrop) {
    SnapshotDoc* d = ses.documents().doc(awaited_doc_);
    if (!d) return Fail("the snapshot was closed while loading");
    if (d->state == DocState::kFailed) return Fail(d->problem);
  } else if (step.id == ScriptVerb::kCompare) {
    if (!ses.comparisons().snapshots()) return Fail("comparing failed: " + ses.last_error());
  } else if (step.id == ScriptVerb::kLeaks) {
    if (!ses.comparisons().leaks()) return Fail("the leak filter failed: " + ses.last_error());
  } else if (step.id == ScriptVerb::kSaveRecording) {
    if (ses.recordings().last_saved() != awaited_save_)
      return Fail("saving the recording failed: " + ses.last_error());
  } else if (step.id == ScriptVerb::kCompareAllocations) {
    if (!ses.comparisons().allocations())
      return Fail("comparing allocations failed: " + ses.last_error());
  } else if (step.id == ScriptVerb::kSave) {
    SnapshotDoc* d = ses.documents().doc(awaited_doc_);
    if (!d || d->path != awaited_save_ || d->unsaved)
      return Fail("saving failed: " + ses.last_error());
  }
  Next();
}

void ScriptRunner::CheckDevice() {
  AppSession& ses = app_.session();
  const auto& step = steps_[pc_];
  const DeviceLink& link = ses.device().link();
  if (Clock::now() > deadline_) return Fail("timed out (" + std::string(link.PhaseName()) + ")");
  if (step.id == ScriptVerb::kWaitDiscovered) {
    if (ses.device().DiscoveredDevices().size() < counter_target_) return;
    return Next();
  }
  if (step.id == ScriptVerb::kConnectDiscovered &&
      link.phase() == DeviceLink::Phase::kDisconnected) {
    for (const auto& d : ses.device().DiscoveredDevices())
      if (!step.args.empty() && d.beacon.app == step.args[0]) {
        ses.device().ConnectDiscovered(d, ses.settings().token);
        return;
      }
    return;  // not heard yet
  }
  if (step.id == ScriptVerb::kLaunchEmulator || step.id == ScriptVerb::kLaunchMono ||
      step.id == ScriptVerb::kConnect || step.id == ScriptVerb::kConnectDiscovered) {
    if (link.phase() == DeviceLink::Phase::kFailed) return Fail(link.error());
    if (link.phase() != DeviceLink::Phase::kConnected) return;
  } else if (step.id == ScriptVerb::kCaptureStart) {
    // Objects are streaming in (or the capture is already over: nothing left to show).
    if (link.capturing() && link.capture_progress().objects == 0) return;
  } else if (step.id == ScriptVerb::kCapture || step.id == ScriptVerb::kWaitCapture) {
    if (link.capturing() || !ses.Idle()) return;
    if (ses.last_capture_doc() == captures_before_)
      return Fail("the capture failed: " + ses.last_error());
    SnapshotDoc* d = ses.documents().doc(ses.last_capture_doc());
    if (!d || !d->ready()) return;  // counting types / analysing
  } else if (step.id == ScriptVerb::kWaitCounters) {
    // A connection started with --connect / --launch-emulator may still be on its way.
    if (link.phase() == DeviceLink::Phase::kConnecting ||
        link.phase() == DeviceLink::Phase::kStartingEmulator)
      return;
    if (link.phase() != DeviceLink::Phase::kConnected) return Fail("not connected");
    if (ses.device().counters().samples() < counter_target_) return;
  } else if (step.id == ScriptVerb::kWaitGameFrames) {
    if (link.phase() != DeviceLink::Phase::kConnected) return Fail("not connected");
    if (const client::HostClient* c = link.client(); c && !c->frames_status().error.empty())
      return Fail(c->frames_status().error);
    if (ses.recordings().shown().recording().frames.size() < counter_target_) return;
  } else if (step.id == ScriptVerb::kWaitAutoCaptures) {
    if (ses.device().auto_capture().failed() > 0)
      return Fail("an auto capture failed: " + ses.last_error());
    if (ses.device().auto_capture().saved() < counter_target_) return;
  }
  Next();
}

std::string ScriptRunner::ScreenshotRequest() const {
  return shot_pending_ ? shot_path_ : std::string();
}

void ScriptRunner::AfterFrame(bool ok, const std::string& error) {
  ++frames_;
  if (key_down_ >= 0) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[key_down_] = false;
    io.KeyCtrl = false;
    key_down_ = -1;
  }
  if (frames_left_) --frames_left_;
  if (shot_pending_) {
    shot_pending_ = false;
    if (!ok) return Fail("screenshot failed: " + error);
    std::fprintf(stderr, "xrpm-monitor: wrote %s\n", shot_path_.c_str());
    Next();
  }
}

}  // namespace xrpm::gui
