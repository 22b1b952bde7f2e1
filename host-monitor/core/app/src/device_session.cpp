// DeviceSession (device_session.h): connecting, discovery, launching xrpm-emulator and
// xrpm-mono, capture, counters export, frames, auto capture.
// Thread-safety: UI thread only.
#include "xrpm/app/device_session.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>

#include "xrpm/app/child_process.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

DeviceSession::DeviceSession(SessionLog& log, Settings& settings, std::string config_dir,
                             std::function<void()> wake)
    : log_(log), settings_(settings), config_dir_(std::move(config_dir)), wake_(std::move(wake)) {}

void DeviceSession::Connect(const std::string& endpoint, const std::string& token) {
  counters_.Reset();
  // Remember it for the Connection panel and the next run ("HOST:PORT", port optional).
  const size_t colon = endpoint.rfind(':');
  settings_.host = endpoint.substr(0, colon);
  if (colon != std::string::npos) {
    try {
      settings_.port = std::stoi(endpoint.substr(colon + 1));
    } catch (const std::exception&) {
      // not a number: the client reports the bad endpoint
    }
  }
  settings_.token = token;
  link_.Connect(endpoint, token);
  log_.Add(LogEntry::kInfo, "Connecting to " + endpoint);
}

void DeviceSession::Disconnect() {
  const bool had_emulator = link_.emulator_running();
  link_.Disconnect();
  log_.Add(LogEntry::kInfo,
           had_emulator ? "Disconnected and stopped the emulator" : "Disconnected");
}

bool DeviceSession::StartDiscovery() {
  if (discovery_ && discovery_->running()) return true;
  auto d = std::make_unique<client::DeviceDiscovery>();
  d->on_new_device = wake_;
  if (!d->Start(&discovery_error_)) {
    log_.Add(LogEntry::kWarning, "Device discovery is off: " + discovery_error_);
    return false;
  }
  discovery_error_.clear();
  discovery_ = std::move(d);
  return true;
}

std::vector<client::DiscoveredDevice> DeviceSession::DiscoveredDevices() const {
  return discovery_ ? discovery_->Devices() : std::vector<client::DiscoveredDevice>{};
}

void DeviceSession::ConnectDiscovered(const client::DiscoveredDevice& d, const std::string& token) {
  log_.Add(LogEntry::kInfo, "Picked " + d.beacon.app + " (" + d.beacon.platform + ") at " +
                                d.endpoint() + " from the devices on the network");
  Connect(d.endpoint(), token);
}

std::string DeviceSession::PrepareChild(const std::string& log_name) {
  std::error_code ec;
  std::filesystem::create_directories(config_dir_, ec);
  counters_.Reset();
  return config_dir_ + "/" + log_name;
}

bool DeviceSession::LaunchEmulator(const std::string& scenario,
                                   const std::vector<std::string>& extra_args) {
  const std::string program =
      FindCompanionProgram("xrpm-emulator", "emulator", settings_.emulator_path);
  if (program.empty()) {
    log_.Add(
        LogEntry::kError,
        "Cannot find xrpm-emulator (next to xrpm-monitor, in the build tree or in PATH; or set "
        "emulator_path in settings.json)");
    return false;
  }
  const std::string log_path = PrepareChild("emulator.log");
  std::string error;
  settings_.emulator_scenario = scenario;
  std::vector<std::string> args = extra_args;
  if (settings_.emulator_snapshot_walk &&
      std::find(args.begin(), args.end(), "--walk") == args.end())
    args.insert(args.end(), {"--walk", "snapshot"});
  if (!link_.LaunchEmulator(program, scenario, settings_.port, log_path, &error, args)) {
    log_.Add(LogEntry::kError, "Could not start the emulator: " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo, "Started " + program + " --scenario " + scenario +
                                (extra_args.empty() ? "" : " ...") + " (output in " + log_path +
                                ")");
  return true;
}

bool DeviceSession::LaunchMono(const std::string& game, const std::vector<std::string>& game_args) {
  const std::string launcher = FindCompanionProgram("xrpm-mono", "emulator");
  if (launcher.empty()) {
    log_.Add(
        LogEntry::kError,
        "Cannot find xrpm-mono (next to xrpm-monitor, in the build tree or in PATH); it is built "
        "when Mono is installed: sudo apt-get install mono-runtime libmono-2.0-dev mono-mcs");
    return false;
  }
  const std::string program =
      game.empty() ? launcher.substr(0, launcher.find_last_of('/') + 1) + "XnaBubbles.exe" : game;
  const std::string log_path = PrepareChild("mono.log");
  std::string error;
  std::vector<std::string> mono_options;
  std::istringstream words(settings_.mono_options);
  for (std::string w; words >> w;) mono_options.push_back(w);
  if (!link_.LaunchMono(launcher, program, settings_.port, log_path, &error, game_args,
                        mono_options, AgentArgs())) {
    log_.Add(LogEntry::kError, "Could not start " + program + " under Mono: " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo,
           "Started " + launcher + " -- " + program + " (output in " + log_path + ")");
  return true;
}

std::vector<std::string> DeviceSession::AgentArgs() const {
  if (settings_.runtime_allocations) return {"--allocations"};
  return {};
}

std::string DeviceSession::DotnetLauncher() {
  const std::string launcher = FindCompanionProgram("xrpm-dotnet", "emulator");
  if (launcher.empty())
    log_.Add(LogEntry::kError,
             "Cannot find xrpm-dotnet (next to xrpm-monitor, in the build tree or in PATH); it is "
             "built when the .NET SDK is installed (`dotnet` on the PATH)");
  return launcher;
}

bool DeviceSession::LaunchDotnet(const std::string& program,
                                 const std::vector<std::string>& program_args) {
  const std::string launcher = DotnetLauncher();
  if (launcher.empty()) return false;
  const std::string dll = program.empty() ? launcher.substr(0, launcher.find_last_of('/') + 1) +
                                                "dotnet/XnaBubbles/XnaBubbles.dll"
                                          : program;
  const std::string log_path = PrepareChild("dotnet.log");
  std::string error;
  if (!link_.LaunchDotnet(launcher, dll, settings_.port, log_path, &error, program_args,
                          AgentArgs())) {
    log_.Add(LogEntry::kError, "Could not start " + dll + " under .NET: " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo, "Started " + launcher + " -- " + dll + " (output in " + log_path + ")");
  return true;
}

bool DeviceSession::AttachDotnet(pid_t pid) {
  const std::string launcher = DotnetLauncher();
  if (launcher.empty()) return false;
  const std::string log_path = PrepareChild("dotnet-attach.log");
  std::string error;
  if (!link_.AttachDotnet(launcher, pid, settings_.port, log_path, &error, AgentArgs())) {
    log_.Add(LogEntry::kError, "Could not attach to process " + std::to_string(pid) + ": " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo, "Started " + launcher + " --attach " + std::to_string(pid) +
                                " (output in " + log_path + ")");
  return true;
}

bool DeviceSession::Capture() {
  std::string error;
  if (!link_.StartCapture(&error)) {
    log_.Add(LogEntry::kError, "Cannot capture: " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo, "Capturing the heap of " + link_.endpoint() + "...");
  return true;
}

bool DeviceSession::ExportCounters(const std::string& path) {
  const client::HostClient* c = link_.client();
  if (!c) {
    log_.Add(LogEntry::kError, "No counters to export: not connected");
    return false;
  }
  try {
    ExportCountersCsv(c->counters(), path);
  } catch (const std::exception& e) {
    log_.Add(LogEntry::kError, std::string("Could not export the counters: ") + e.what());
    return false;
  }
  log_.Add(LogEntry::kInfo,
           "Exported " + FormatCount(c->counters().size()) + " counter samples to " + path);
  return true;
}

bool DeviceSession::StartFrames(uint32_t sample_bytes) {
  client::HostClient* c = link_.client();
  if (!c || c->state() != client::ConnectionState::kConnected) {
    log_.Add(LogEntry::kError, "Cannot record frames: not connected");
    return false;
  }
  frames_.Reset();
  if (on_frames_started) on_frames_started();  // the Timeline follows what is being recorded
  c->SubscribeFrames(sample_bytes);
  frames_asked_bytes_ = sample_bytes;
  frames_start_logged_ = false;  // PollEvents says what the device answered
  log_.Add(LogEntry::kInfo, "Asked " + link_.endpoint() + " to record frames (one allocation " +
                                "sampled per " + FormatBytes(sample_bytes) + ")");
  return true;
}

void DeviceSession::StopFrames() {
  if (client::HostClient* c = link_.client()) c->SubscribeFrames(0);
  log_.Add(LogEntry::kInfo, "Stopped recording frames (" +
                                FormatCount(frames_.recording().frames.size()) + " frames kept)");
}

bool DeviceSession::StartAutoCapture() {
  std::string error;
  if (!auto_capture_.Start(&error)) {
    log_.Add(LogEntry::kError, "Auto capture: " + error);
    return false;
  }
  log_.Add(LogEntry::kInfo,
           "Auto capture on: " + auto_capture_.Describe() + " -> " + auto_capture_.output);
  client::HostClient* c = link_.client();
  if (auto_capture_.needs_frames() && c && !c->frames_status().requested)
    StartFrames(frame_sample_bytes_);
  return true;
}

void DeviceSession::StopAutoCapture() {
  if (!auto_capture_.active()) return;
  auto_capture_.Stop();
  log_.Add(LogEntry::kInfo, "Auto capture off (" + FormatCount(auto_capture_.saved()) + " saved)");
}

std::optional<DeviceSession::Captured> DeviceSession::TakeCapture() {
  return std::exchange(captured_, std::nullopt);
}

bool DeviceSession::Poll() {
  const uint64_t before = counters_.samples();
  const size_t frames_before = frames_.recording().frames.size();
  PollEvents();
  return counters_.samples() != before || frames_.recording().frames.size() != frames_before;
}

void DeviceSession::PollEvents() {
  for (const auto& e : link_.Poll()) log_.Add(e.error ? LogEntry::kError : LogEntry::kInfo, e.text);
  if (const client::HostClient* c = link_.client()) counters_.Update(c->counters());
  if (client::HostClient* c = link_.client()) {
    const std::string before = frames_error_;
    frames_.Update(*c);
    const client::FramesStatus& st = c->frames_status();
    frames_error_ = st.error;
    if (!frames_error_.empty() && frames_error_ != before)
      log_.Add(LogEntry::kError, "The device refused to record frames: " + frames_error_);
    if (st.started && !frames_start_logged_) {
      // The device's answer: a runtime that samples on its own (.NET's) keeps its interval.
      frames_start_logged_ = true;
      const std::string interval = FormatBytes(st.sample_bytes);
      log_.Add(
          LogEntry::kInfo,
          "Recording frames of " + link_.endpoint() + " (one allocation sampled per " + interval +
              (st.sample_bytes != frames_asked_bytes_
                   ? ", the device's interval; asked " + FormatBytes(frames_asked_bytes_)
                   : std::string()) +
              (st.frame_totals == FrameTotals::kEstimated ? "; frame totals estimated from samples)"
                                                          : ")"));
    }
  }
  if (auto_capture_.active()) {
    if (auto why = auto_capture_.Poll(link_.client(), frames_.recording(), link_.capturing(),
                                      log_.Now())) {
      std::string error;
      if (link_.StartCapture(&error))
        auto_capture_.OnCaptureStarted(*why, log_.Now());
      else
        log_.Add(LogEntry::kError, "Auto capture: " + error);
    }
  }
  if (auto r = link_.TakeCaptureResult()) {
    if (auto_capture_.awaiting()) {
      const auto out = auto_capture_.OnCaptureResult(*r, log_.Now());
      log_.Add(out.ok ? LogEntry::kInfo : LogEntry::kError, out.text);
      return;
    }
    if (!r->ok) {
      log_.Add(LogEntry::kError,
               std::string(r->incomplete ? "The capture is incomplete" : "The capture failed") +
                   (r->error.empty() ? "" : ": " + r->error) + " (nothing was kept)");
      return;
    }
    std::string app;
    if (const client::HostClient* c = link_.client()) app = c->device().app_name;
    captured_ = Captured{r->snapshot, std::move(app)};
  }
}

}  // namespace xrpm::app
