// DeviceSession: the monitor's session with one device: the connection (DeviceLink: connect,
// launch xrpm-emulator or a C# program under xrpm-mono, disconnect), devices found on the
// network (discovery), the live counters, the live frames recording, heap captures and auto
// capture (the Capture panel's rules, whose captures are saved to files, not opened).
//
// A capture the user asked for (Capture()) is handed out by TakeCapture() after the Poll() that
// received it; AppSession makes it an open document. What happened goes to the SessionLog; the
// endpoint, token, port and launch options are remembered in Settings.
//
// Thread-safety: not thread-safe; UI thread only. DeviceLink's client runs its own threads and
// hands their results over in Poll(); discovery calls `wake` from its thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/app/auto_capture_board.h"
#include "xrpm/app/counter_board.h"
#include "xrpm/app/device_link.h"
#include "xrpm/app/frame_board.h"
#include "xrpm/app/session_log.h"
#include "xrpm/app/settings.h"
#include "xrpm/client/device_discovery.h"

namespace xrpm::app {

class DeviceSession {
 public:
  // `log` and `settings` are the session's and outlive this; emulator and Mono output go to
  // `config_dir`; `wake` (thread-safe) is called when discovery finds a new device.
  DeviceSession(SessionLog& log, Settings& settings, std::string config_dir,
                std::function<void()> wake);
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  // ---- connection ----
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
  // Starts a .NET program with the agent inside CoreCLR (xrpm-dotnet, found like xrpm-mono) on
  // 127.0.0.1:<settings port> and connects. An empty `program` runs the sample game
  // (dotnet/XnaBubbles/XnaBubbles.dll, built beside xrpm-dotnet).
  bool LaunchDotnet(const std::string& program, const std::vector<std::string>& program_args = {});
  // Loads the agent into the running .NET process `pid` (xrpm-dotnet --attach, found like
  // xrpm-mono) on 127.0.0.1:<settings port> and connects (dotnet_processes.h lists candidates).
  bool AttachDotnet(pid_t pid);
  DeviceLink& link() { return link_; }
  const DeviceLink& link() const { return link_; }

  // ---- discovery: devices that announce themselves (agents started with --announce) ----
  // Starts listening for their beacons (idempotent). It only listens: nothing connects until
  // the user picks a device. False where no socket could listen (reason: discovery_error()).
  bool StartDiscovery();
  std::vector<client::DiscoveredDevice> DiscoveredDevices() const;
  const std::string& discovery_error() const { return discovery_error_; }
  // Connects to a listed device at its beacon's source address (the user's click); `token`
  // for a device that requires one.
  void ConnectDiscovered(const client::DiscoveredDevice& d, const std::string& token);

  // ---- captures ----
  // Captures the connected device's heap; the snapshot comes out of TakeCapture() once received.
  bool Capture();
  void CancelCapture() { link_.CancelCapture(); }
  // A heap captured by Capture() and received since the last call, once, with the captured
  // application's name ("" unknown). Failed captures are only logged.
  struct Captured {
    std::shared_ptr<const Snapshot> snapshot;
    std::string app;
  };
  std::optional<Captured> TakeCapture();

  // ---- counters ----
  CounterBoard& counters() { return counters_; }
  const CounterBoard& counters() const { return counters_; }
  // Writes the connected device's kept counter history as CSV (errors go to the log).
  bool ExportCounters(const std::string& path);

  // ---- frames (Timeline, Allocations) ----
  // Starts or stops the subscription to frames and allocation samples; the rows land in
  // live_frames() (a new subscription starts a new recording, and on_frames_started is called).
  bool StartFrames(uint32_t sample_bytes);
  void StopFrames();
  FrameBoard& live_frames() { return frames_; }
  const FrameBoard& live_frames() const { return frames_; }
  uint32_t frame_sample_bytes() const { return frame_sample_bytes_; }
  void set_frame_sample_bytes(uint32_t n) { frame_sample_bytes_ = n; }
  // Called when StartFrames starts a new live recording (AppSession: the Timeline shows it).
  std::function<void()> on_frames_started;

  // ---- auto capture (the Capture panel; auto_capture_board.h) ----
  // Starts the rules in its fields on the connected device (and the frames subscription when
  // they need it; frames already being recorded are kept); captures it takes are saved under
  // its output template, not opened. False, with the reason in the log and last_error(), when
  // the fields do not parse.
  bool StartAutoCapture();
  void StopAutoCapture();
  AutoCaptureBoard& auto_capture() { return auto_capture_; }
  const AutoCaptureBoard& auto_capture() const { return auto_capture_; }

  // Applies the device's events: log lines, counters, frames, auto capture's rules and the
  // capture results. True when counters or frames arrived.
  bool Poll();

 private:
  void PollEvents();
  // Before a launch or attach: the settings folder made, the counters of the last device
  // dropped; returns the path of the child's output file `log_name` in that folder.
  std::string PrepareChild(const std::string& log_name);
  // xrpm-dotnet's path, or "" after logging where it was looked for.
  std::string DotnetLauncher();
  // What the runtime launchers get from the settings (--allocations).
  std::vector<std::string> AgentArgs() const;

  SessionLog& log_;
  Settings& settings_;
  std::string config_dir_;
  std::function<void()> wake_;
  DeviceLink link_;
  std::unique_ptr<client::DeviceDiscovery> discovery_;
  std::string discovery_error_;
  CounterBoard counters_;
  FrameBoard frames_;  // the live recording
  uint32_t frame_sample_bytes_ = 16 * 1024;
  std::string frames_error_;         // the last refusal logged
  uint32_t frames_asked_bytes_ = 0;  // the interval StartFrames asked for
  bool frames_start_logged_ = true;  // the device's FramesStarted was logged
  AutoCaptureBoard auto_capture_;
  std::optional<Captured> captured_;  // TakeCapture
};

}  // namespace xrpm::app
