// AppSession (app_session.h): the facade's own jobs: settings, the wiring between its parts,
// polling and waiting for the worker.
// Thread-safety: UI thread only.
#include "xrpm/app/app_session.h"

#include "xrpm/app/capture_status.h"

namespace xrpm::app {

AppSession::AppSession(Options opts)
    : opts_(std::move(opts)),
      config_dir_(opts_.config_dir.empty() ? ConfigDir() : opts_.config_dir),
      worker_(opts_.wake),
      device_(log_, settings_, config_dir_, opts_.wake),
      documents_(worker_, log_, settings_),
      selection_(documents_),
      recordings_(worker_, log_, settings_, device_.live_frames(), device_.link()),
      comparisons_(worker_, log_, documents_, recordings_) {
  device_.on_frames_started = [this] { recordings_.Show(kLiveRecording); };
  std::string problem;
  settings_ = LoadSettings(config_dir_ + "/settings.json", &problem);
  if (!problem.empty()) Log(LogEntry::kWarning, problem);
}

AppSession::~AppSession() {
  worker_.CancelAll();
  if (opts_.persist) SaveSettingsNow();
}

void AppSession::SaveSettingsNow() {
  if (!opts_.persist) return;
  try {
    SaveSettings(settings_, config_dir_ + "/settings.json");
  } catch (const std::exception& e) {
    Log(LogEntry::kWarning, std::string("Could not save settings: ") + e.what());
  }
}

AppSession::Opened AppSession::Open(const std::string& path) {
  if (IsRecordingFile(path)) return {true, recordings_.Open(path)};
  return {false, documents_.OpenFile(path)};
}

bool AppSession::Poll() {
  const bool ran = worker_.RunCompletions() > 0;
  const bool device_changed = device_.Poll();
  // A capture the user asked for becomes an unsaved document (auto captures go to files).
  if (auto c = device_.TakeCapture()) {
    const uint32_t id = documents_.AddSnapshot(c->snapshot, DocOrigin::kCaptured,
                                               documents_.NewCaptureTitle(c->app));
    last_capture_doc_ = landed_capture_ = id;
    Log(LogEntry::kInfo, CaptureLandedText(*c->snapshot));
  }
  return ran || device_changed;
}

bool AppSession::WaitIdle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // A completion may start new work (load -> analysis), so loop until truly idle.
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (!worker_.WaitTasksDone(left)) return false;
    Poll();
    if (worker_.Idle()) return true;
  }
}

}  // namespace xrpm::app
