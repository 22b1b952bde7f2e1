// Device control (AppSession): connecting, discovery, launching xrpm-emulator and xrpm-mono,
// capture, counters export, frames.
// Thread-safety: the UI thread only, as the rest of AppSession (app_session.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xrpm/app/app_session.h"
#include "xrpm/app/capture_status.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

void AppSession::Connect(const std::string& endpoint, const std::string& token) {
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
  Log(LogEntry::kInfo, "Connecting to " + endpoint);
}

void AppSession::Disconnect() {
  const bool had_emulator = link_.emulator_running();
  link_.Disconnect();
  Log(LogEntry::kInfo, had_emulator ? "Disconnected and stopped the emulator" : "Disconnected");
}

bool AppSession::StartDiscovery() {
  if (discovery_ && discovery_->running()) return true;
  auto d = std::make_unique<client::DeviceDiscovery>();
  d->on_new_device = opts_.wake;
  if (!d->Start(&discovery_error_)) {
    Log(LogEntry::kWarning, "Device discovery is off: " + discovery_error_);
    return false;
  }
  discovery_error_.clear();
  discovery_ = std::move(d);
  return true;
}

std::vector<client::DiscoveredDevice> AppSession::DiscoveredDevices() const {
  return discovery_ ? discovery_->Devices() : std::vector<client::DiscoveredDevice>{};
}

void AppSession::ConnectDiscovered(const client::DiscoveredDevice& d, const std::string& token) {
  Log(LogEntry::kInfo, "Picked " + d.beacon.app + " (" + d.beacon.platform + ") at " +
                           d.endpoint() + " from the devices on the network");
  Connect(d.endpoint(), token);
}

bool AppSession::LaunchEmulator(const std::string& scenario,
                                const std::vector<std::string>& extra_args) {
  const std::string program =
      FindCompanionProgram("xrpm-emulator", "emulator", settings_.emulator_path);
  if (program.empty()) {
    Log(LogEntry::kError,
        "Cannot find xrpm-emulator (next to xrpm-monitor, in the build tree or in PATH; or set "
        "emulator_path in settings.json)");
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(config_dir_, ec);
  const std::string log_path = config_dir_ + "/emulator.log";
  std::string error;
  counters_.Reset();
  settings_.emulator_scenario = scenario;
  if (!link_.LaunchEmulator(program, scenario, settings_.port, log_path, &error, extra_args)) {
    Log(LogEntry::kError, "Could not start the emulator: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Started " + program + " --scenario " + scenario +
                           (extra_args.empty() ? "" : " ...") + " (output in " + log_path + ")");
  return true;
}

bool AppSession::LaunchMono(const std::string& game, const std::vector<std::string>& game_args) {
  const std::string launcher = FindCompanionProgram("xrpm-mono", "emulator");
  if (launcher.empty()) {
    Log(LogEntry::kError,
        "Cannot find xrpm-mono (next to xrpm-monitor, in the build tree or in PATH); it is built "
        "when Mono is installed: sudo apt-get install mono-runtime libmono-2.0-dev mono-mcs");
    return false;
  }
  const std::string program =
      game.empty() ? launcher.substr(0, launcher.find_last_of('/') + 1) + "XnaBubbles.exe" : game;
  std::error_code ec;
  std::filesystem::create_directories(config_dir_, ec);
  const std::string log_path = config_dir_ + "/mono.log";
  std::string error;
  counters_.Reset();
  std::vector<std::string> mono_options;
  std::istringstream words(settings_.mono_options);
  for (std::string w; words >> w;) mono_options.push_back(w);
  if (!link_.LaunchMono(launcher, program, settings_.port, log_path, &error, game_args,
                        mono_options)) {
    Log(LogEntry::kError, "Could not start " + program + " under Mono: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Started " + launcher + " -- " + program + " (output in " + log_path + ")");
  return true;
}

bool AppSession::Capture() {
  std::string error;
  if (!link_.StartCapture(&error)) {
    Log(LogEntry::kError, "Cannot capture: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Capturing the heap of " + link_.endpoint() + "...");
  return true;
}

bool AppSession::ExportCounters(const std::string& path) {
  const client::HostClient* c = link_.client();
  if (!c) {
    Log(LogEntry::kError, "No counters to export: not connected");
    return false;
  }
  try {
    ExportCountersCsv(c->counters(), path);
  } catch (const std::exception& e) {
    Log(LogEntry::kError, std::string("Could not export the counters: ") + e.what());
    return false;
  }
  Log(LogEntry::kInfo,
      "Exported " + FormatCount(c->counters().size()) + " counter samples to " + path);
  return true;
}

bool AppSession::StartFrames(uint32_t sample_bytes) {
  client::HostClient* c = link_.client();
  if (!c || c->state() != client::ConnectionState::kConnected) {
    Log(LogEntry::kError, "Cannot record frames: not connected");
    return false;
  }
  frames_.Reset();
  shown_recording_ = kLiveRecording;  // the Timeline follows what is being recorded
  c->SubscribeFrames(sample_bytes);
  Log(LogEntry::kInfo, "Recording frames of " + link_.endpoint() + " (one allocation sampled per " +
                           FormatBytes(sample_bytes) + ")");
  return true;
}

void AppSession::StopFrames() {
  if (client::HostClient* c = link_.client()) c->SubscribeFrames(0);
  Log(LogEntry::kInfo, "Stopped recording frames (" +
                           FormatCount(frames_.recording().frames.size()) + " frames kept)");
}

bool AppSession::StartAutoCapture() {
  std::string error;
  if (!auto_capture_.Start(&error)) {
    Log(LogEntry::kError, "Auto capture: " + error);
    return false;
  }
  Log(LogEntry::kInfo,
      "Auto capture on: " + auto_capture_.Describe() + " -> " + auto_capture_.output);
  client::HostClient* c = link_.client();
  if (auto_capture_.needs_frames() && c && !c->frames_status().requested)
    StartFrames(frame_sample_bytes_);
  return true;
}

void AppSession::StopAutoCapture() {
  if (!auto_capture_.active()) return;
  auto_capture_.Stop();
  Log(LogEntry::kInfo, "Auto capture off (" + FormatCount(auto_capture_.saved()) + " saved)");
}

void AppSession::PollDevice() {
  for (const auto& e : link_.Poll()) Log(e.error ? LogEntry::kError : LogEntry::kInfo, e.text);
  if (const client::HostClient* c = link_.client()) counters_.Update(c->counters());
  if (client::HostClient* c = link_.client()) {
    const std::string before = frames_error_;
    frames_.Update(*c);
    frames_error_ = c->frames_status().error;
    if (!frames_error_.empty() && frames_error_ != before)
      Log(LogEntry::kError, "The device refused to record frames: " + frames_error_);
  }
  if (auto_capture_.active()) {
    if (auto why =
            auto_capture_.Poll(link_.client(), frames_.recording(), link_.capturing(), Now())) {
      std::string error;
      if (link_.StartCapture(&error))
        auto_capture_.OnCaptureStarted(*why, Now());
      else
        Log(LogEntry::kError, "Auto capture: " + error);
    }
  }
  if (auto r = link_.TakeCaptureResult()) {
    if (auto_capture_.awaiting()) {
      const auto out = auto_capture_.OnCaptureResult(*r, Now());
      Log(out.ok ? LogEntry::kInfo : LogEntry::kError, out.text);
      return;
    }
    if (!r->ok) {
      Log(LogEntry::kError,
          std::string(r->incomplete ? "The capture is incomplete" : "The capture failed") +
              (r->error.empty() ? "" : ": " + r->error) + " (nothing was kept)");
      return;
    }
    std::string app;
    if (const client::HostClient* c = link_.client()) app = c->device().app_name;
    const uint32_t id =
        AddSnapshot(r->snapshot, DocOrigin::kCaptured,
                    "Capture " + std::to_string(++captures_) + (app.empty() ? "" : " — " + app));
    last_capture_doc_ = landed_capture_ = id;
    Log(LogEntry::kInfo, CaptureLandedText(*r->snapshot));
  }
}

}  // namespace xrpm::app
