// DeviceLink: the monitor's connection to one device agent, GUI-free: connect / disconnect
// through the capture client (client::HostClient, which owns the network thread), launch a
// local xrpm-emulator and connect to it (retrying while it starts), captures, and the state in
// plain words for the Connection panel ("Connected to bubbles.exe (NETCF 3.5 on Emulator)",
// "Could not connect to 10.0.0.5:4510: no answer within 5 s").
//
// Poll() (UI thread, every frame) turns client and emulator changes into log lines and finished
// captures; nothing here blocks.
//
// Thread-safety: UI thread only; the HostClient inside is thread-safe on its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/app/child_process.h"
#include "xrpm/client/host_client.h"

namespace xrpm::app {

class DeviceLink {
 public:
  enum class Phase { kDisconnected, kStartingEmulator, kConnecting, kConnected, kFailed };
  struct Event {
    bool error = false;
    std::string text;
  };

  DeviceLink() = default;
  ~DeviceLink();  // disconnects and stops a launched emulator

  void Connect(const std::string& endpoint, const std::string& token);
  void Disconnect();  // also stops the emulator this link launched
  // Starts `program --scenario S --port PORT [extra_args...]` (the agent on 127.0.0.1:PORT;
  // output to `log_path`) and connects to it.
  bool LaunchEmulator(const std::string& program, const std::string& scenario, int port,
                      const std::string& log_path, std::string* error,
                      const std::vector<std::string>& extra_args = {});
  // Starts `launcher --port PORT --quiet [--mono-option=OPT...] -- game [game_args...]`
  // (xrpm-mono: a C# program under Mono with the agent inside) and connects to it, as
  // LaunchEmulator does. `agent_args` go to the launcher before `--` ({"--allocations"}).
  bool LaunchMono(const std::string& launcher, const std::string& game, int port,
                  const std::string& log_path, std::string* error,
                  const std::vector<std::string>& game_args = {},
                  const std::vector<std::string>& mono_options = {},
                  const std::vector<std::string>& agent_args = {});

  // Starts `launcher --port PORT --quiet -- program [program_args...]` (xrpm-dotnet: a .NET
  // program, PROGRAM.dll, with the agent inside CoreCLR) and connects to it, as LaunchEmulator
  // does (the program is stopped by Disconnect). `agent_args` go before `--`.
  bool LaunchDotnet(const std::string& launcher, const std::string& program, int port,
                    const std::string& log_path, std::string* error,
                    const std::vector<std::string>& program_args = {},
                    const std::vector<std::string>& agent_args = {});

  // Runs `launcher --attach PID --port PORT --quiet` (xrpm-dotnet: loads the agent into the
  // running .NET process PID) and, once it exited 0 (the agent listens), connects to it; when it
  // fails, its one-line message is the error. The process is never stopped by this link
  // (Disconnect leaves it running). `agent_args` follow ({"--allocations"}).
  bool AttachDotnet(const std::string& launcher, pid_t pid, int port, const std::string& log_path,
                    std::string* error, const std::vector<std::string>& agent_args = {});

  // Applies changes; returns what happened, for the log.
  std::vector<Event> Poll();

  Phase phase() const { return phase_; }
  const char* PhaseName() const;
  const std::string& status_text() const { return status_; }  // plain words
  const std::string& error() const { return error_; }
  const std::string& endpoint() const { return endpoint_; }
  bool emulator_running() const { return emulator_ && emulator_pid_ > 0; }
  const std::string& emulator_scenario() const { return scenario_; }

  // The client while connecting or connected (device info, counters), else null.
  client::HostClient* client() { return client_.get(); }
  const client::HostClient* client() const { return client_.get(); }

  bool StartCapture(std::string* error);
  // Whether captures ask for values (the Connection panel's checkbox). Default on.
  bool capture_values() const { return capture_values_; }
  void set_capture_values(bool on) { capture_values_ = on; }
  void CancelCapture();
  bool capturing() const { return capturing_; }
  client::CaptureProgress capture_progress() const;
  // A finished capture (ok or not), once.
  std::optional<client::CaptureResult> TakeCaptureResult();
  // The last finished capture's statistics (the game's pause, rates).
  const std::optional<client::CaptureStats>& last_capture() const { return last_capture_; }
  // Its pause in words ("The game paused 45.2 ms (GC 11.0 ms, walk 34.2 ms)."; capture_status.h).
  const std::string& last_pause_text() const { return last_pause_text_; }

 private:
  void StartClient(uint32_t connect_timeout_ms);

  Phase phase_ = Phase::kDisconnected;
  bool LaunchChild(const std::string& program, const std::vector<std::string>& args,
                   const std::string& what, int port, const std::string& log_path,
                   std::string* error);

  std::string endpoint_, token_, status_, error_, scenario_;
  std::string child_what_ = "the emulator";  // "the emulator", "XnaBubbles.exe under Mono"
  std::unique_ptr<client::HostClient> client_;
  std::unique_ptr<ChildProcess> emulator_;
  pid_t emulator_pid_ = -1;
  std::chrono::steady_clock::time_point launch_deadline_;
  pid_t attaching_ = 0;  // the .NET process the launcher is attaching to (AttachDotnet)
  bool capturing_ = false;
  std::optional<client::CaptureResult> finished_;
  bool capture_values_ = true;
  std::optional<client::CaptureStats> last_capture_;
  std::string last_pause_text_;
};

}  // namespace xrpm::app
