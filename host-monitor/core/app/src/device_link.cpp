#include "xrpm/app/device_link.h"

#include "xrpm/app/capture_status.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {
namespace {
constexpr uint32_t kConnectTimeoutMs = 5000;
constexpr auto kEmulatorStartBudget = std::chrono::seconds(30);  // big synthetic heaps take time
constexpr uint32_t kCounterIntervalMs = 250;

std::string Describe(const client::DeviceInfo& d) {
  std::string s = d.app_name.empty() ? std::string("the device") : d.app_name;
  std::string rt = d.runtime_name;
  if (!d.runtime_version.empty()) rt += (rt.empty() ? "" : " ") + d.runtime_version;
  if (!d.platform.empty()) rt += (rt.empty() ? "" : " on ") + d.platform;
  if (!rt.empty()) s += " (" + rt + ")";
  return s;
}
}  // namespace

DeviceLink::~DeviceLink() {
  Disconnect();
}

const char* DeviceLink::PhaseName() const {
  switch (phase_) {
    case Phase::kDisconnected:
      return "disconnected";
    case Phase::kStartingEmulator:
      return "starting-emulator";
    case Phase::kConnecting:
      return "connecting";
    case Phase::kConnected:
      return "connected";
    case Phase::kFailed:
      return "failed";
  }
  return "?";
}

void DeviceLink::StartClient(uint32_t connect_timeout_ms) {
  if (client_) client_->Disconnect();
  client::ClientOptions o;
  o.endpoint = endpoint_;
  o.token = token_;
  o.client_name = "xrpm-monitor 0.1.0";
  o.connect_timeout_ms = connect_timeout_ms;
  client_ = std::make_unique<client::HostClient>(o);
  client_->Connect();
}

void DeviceLink::Connect(const std::string& endpoint, const std::string& token) {
  if (client_) client_->Disconnect();
  endpoint_ = endpoint;
  token_ = token;
  error_.clear();
  capturing_ = false;
  phase_ = Phase::kConnecting;
  status_ = "Connecting to " + endpoint + "...";
  StartClient(kConnectTimeoutMs);
}

void DeviceLink::Disconnect() {
  if (client_) {
    client_->Disconnect();
    client_.reset();
  }
  capturing_ = false;
  attaching_ = 0;
  if (emulator_) {
    emulator_->Stop();
    emulator_.reset();
    emulator_pid_ = -1;
  }
  if (phase_ != Phase::kFailed) {
    phase_ = Phase::kDisconnected;
    status_ = "Not connected.";
  }
}

bool DeviceLink::LaunchEmulator(const std::string& program, const std::string& scenario, int port,
                                const std::string& log_path, std::string* error,
                                const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {"--scenario", scenario, "--port", std::to_string(port),
                                   "--quiet"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  if (!LaunchChild(program, args, "the emulator (" + scenario + ")", port, log_path, error))
    return false;
  child_what_ = "the emulator";
  scenario_ = scenario;
  return true;
}

bool DeviceLink::LaunchMono(const std::string& launcher, const std::string& game, int port,
                            const std::string& log_path, std::string* error,
                            const std::vector<std::string>& game_args,
                            const std::vector<std::string>& mono_options,
                            const std::vector<std::string>& agent_args) {
  std::vector<std::string> args = {"--port", std::to_string(port), "--quiet"};
  for (const std::string& o : mono_options) args.push_back("--mono-option=" + o);
  args.insert(args.end(), agent_args.begin(), agent_args.end());
  args.push_back("--");
  args.push_back(game);
  args.insert(args.end(), game_args.begin(), game_args.end());
  const std::string name = game.substr(game.find_last_of('/') + 1);
  if (!LaunchChild(launcher, args, name + " under Mono", port, log_path, error)) return false;
  child_what_ = name + " under Mono";
  scenario_ = name;
  return true;
}

bool DeviceLink::LaunchDotnet(const std::string& launcher, const std::string& program, int port,
                              const std::string& log_path, std::string* error,
                              const std::vector<std::string>& program_args,
                              const std::vector<std::string>& agent_args) {
  std::vector<std::string> args = {"--port", std::to_string(port), "--quiet"};
  args.insert(args.end(), agent_args.begin(), agent_args.end());
  args.insert(args.end(), {"--", program});
  args.insert(args.end(), program_args.begin(), program_args.end());
  const std::string name = program.substr(program.find_last_of('/') + 1);
  if (!LaunchChild(launcher, args, name + " under .NET", port, log_path, error)) return false;
  child_what_ = name + " under .NET";
  scenario_ = name;
  return true;
}

bool DeviceLink::AttachDotnet(const std::string& launcher, pid_t pid, int port,
                              const std::string& log_path, std::string* error,
                              const std::vector<std::string>& agent_args) {
  Disconnect();
  auto child = std::make_unique<ChildProcess>();
  std::vector<std::string> args = {"--attach", std::to_string(pid), "--port", std::to_string(port),
                                   "--quiet"};
  args.insert(args.end(), agent_args.begin(), agent_args.end());
  const std::string what = "process " + std::to_string(pid);
  if (!child->Start(launcher, args, log_path, error)) {
    phase_ = Phase::kFailed;
    error_ = *error;
    status_ = "Could not attach to " + what + ".";
    return false;
  }
  emulator_pid_ = child->pid();
  emulator_ = std::move(child);
  endpoint_ = "127.0.0.1:" + std::to_string(port);
  token_.clear();
  error_.clear();
  attaching_ = pid;
  child_what_ = "the .NET " + what;
  scenario_.clear();
  phase_ = Phase::kStartingEmulator;
  status_ = "Attaching the agent to " + what + "...";
  launch_deadline_ = std::chrono::steady_clock::now() + kEmulatorStartBudget;
  return true;
}

bool DeviceLink::LaunchChild(const std::string& program, const std::vector<std::string>& args,
                             const std::string& what, int port, const std::string& log_path,
                             std::string* error) {
  Disconnect();
  const std::string endpoint = "127.0.0.1:" + std::to_string(port);
  auto child = std::make_unique<ChildProcess>();
  if (!child->Start(program, args, log_path, error)) {
    phase_ = Phase::kFailed;
    error_ = *error;
    status_ = "Could not start " + what + ".";
    return false;
  }
  emulator_pid_ = child->pid();
  emulator_ = std::move(child);
  endpoint_ = endpoint;
  token_.clear();
  error_.clear();
  phase_ = Phase::kStartingEmulator;
  status_ = "Starting " + what + " and connecting to " + endpoint + "...";
  launch_deadline_ = std::chrono::steady_clock::now() + kEmulatorStartBudget;
  StartClient(kConnectTimeoutMs);
  return true;
}

std::vector<DeviceLink::Event> DeviceLink::Poll() {
  std::vector<Event> ev;
  // xrpm-dotnet --attach ends once the agent listens in the process (or says why not).
  if (attaching_ > 0 && emulator_ && !emulator_->Running()) {
    const pid_t pid = attaching_;
    attaching_ = 0;
    emulator_pid_ = -1;
    const std::string exit_text = emulator_->exit_text();
    const bool ok = exit_text == "exited with code 0";
    std::string tail = TailOfFile(emulator_->log_path(), 600);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    const size_t line = tail.rfind('\n');
    if (line != std::string::npos) tail = tail.substr(line + 1);  // its last line says it
    emulator_.reset();
    if (ok) {
      // "xrpm-agent: listening on ADDR:PORT (in process ...)": the port, when 0 was asked for.
      const size_t at = tail.find("listening on ");
      if (at != std::string::npos) {
        const std::string from = tail.substr(at + 13);
        endpoint_ = from.substr(0, from.find(' '));
      }
      status_ =
          "Attached to process " + std::to_string(pid) + "; connecting to " + endpoint_ + "...";
      ev.push_back(
          {false, "Attached the agent to process " + std::to_string(pid) + " (" + endpoint_ + ")"});
      phase_ = Phase::kConnecting;
      StartClient(kConnectTimeoutMs);
    } else {
      phase_ = Phase::kFailed;
      error_ = "Could not attach to process " + std::to_string(pid) + ": " +
               (tail.empty() ? "xrpm-dotnet " + exit_text : tail);
      status_ = "Not connected.";
      ev.push_back({true, error_});
    }
    return ev;
  }
  if (emulator_ && !emulator_->Running() && emulator_pid_ > 0) {
    emulator_pid_ = -1;
    std::string tail = TailOfFile(emulator_->log_path(), 600);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    const std::string why = "The program (" + child_what_ + ") " + emulator_->exit_text() +
                            (tail.empty() ? std::string(".") : ": " + tail);
    ev.push_back({true, why});
    if (phase_ != Phase::kConnected) {
      phase_ = Phase::kFailed;
      error_ = why;
      status_ = "The emulator stopped.";
      if (client_) {
        client_->Disconnect();
        client_.reset();
      }
    }
  }
  if (!client_) return ev;

  const auto state = client_->state();
  if (state == client::ConnectionState::kConnected && phase_ != Phase::kConnected) {
    phase_ = Phase::kConnected;
    error_.clear();
    const auto dev = client_->device();
    status_ = "Connected to " + Describe(dev) + " at " + endpoint_ + ".";
    ev.push_back({false, status_});
    client_->SubscribeCounters(kCounterIntervalMs);
  } else if (state == client::ConnectionState::kFailed ||
             state == client::ConnectionState::kClosed) {
    const std::string why = client_->last_error();
    if (phase_ == Phase::kStartingEmulator && emulator_running() &&
        std::chrono::steady_clock::now() < launch_deadline_) {
      StartClient(kConnectTimeoutMs);  // the emulator may still be building its heap
      return ev;
    }
    const bool was_connected = phase_ == Phase::kConnected;
    phase_ = Phase::kFailed;
    error_ = (was_connected ? "Lost the connection to " : "Could not connect to ") + endpoint_ +
             (why.empty() ? "." : ": " + why);
    status_ = was_connected ? "Disconnected." : "Not connected.";
    ev.push_back({true, error_});
    if (capturing_) {
      capturing_ = false;
      client::CaptureResult r;
      if (auto done = client_->TakeCaptureResult()) r = *done;
      if (r.error.empty()) r.error = error_;
      r.ok = false;
      r.incomplete = true;
      finished_ = r;
    }
    client_->Disconnect();
    client_.reset();
    return ev;
  }

  if (capturing_) {
    if (auto r = client_->TakeCaptureResult()) {
      capturing_ = false;
      if (r->ok) {
        last_capture_ = r->stats;
        last_pause_text_ = r->snapshot->capture ? GamePausedText(*r->snapshot->capture) : "";
      }
      finished_ = std::move(*r);
    }
  }
  return ev;
}

bool DeviceLink::StartCapture(std::string* error) {
  if (!client_ || phase_ != Phase::kConnected) {
    *error = "Not connected to a device.";
    return false;
  }
  if (capturing_) {
    *error = "A capture is already running.";
    return false;
  }
  if (!client_->StartCapture(error, {.values = capture_values_})) return false;
  capturing_ = true;
  return true;
}

void DeviceLink::CancelCapture() {
  if (client_ && capturing_) client_->CancelCapture();
}

client::CaptureProgress DeviceLink::capture_progress() const {
  return client_ ? client_->capture_progress() : client::CaptureProgress{};
}

std::optional<client::CaptureResult> DeviceLink::TakeCaptureResult() {
  return std::exchange(finished_, std::nullopt);
}

}  // namespace xrpm::app
