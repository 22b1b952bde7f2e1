// HostClient::Impl: shared state (guarded by `mu`) between the public API (host_client.cpp)
// and the network thread (client_loop.cpp). ENet objects are touched by the network thread
// only; the API posts commands into `commands` and the thread executes them.
#pragma once

#include <enet/enet.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

#include "frame_batch_reader.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/client/host_client.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::client {

using Clock = std::chrono::steady_clock;

struct CmdSubscribe {
  uint32_t interval_ms;
};
struct CmdCapture {
  CaptureOptions opts;
};
struct CmdCancel {};
struct CmdFrames {
  uint32_t sample_bytes;  // 0: stop
  uint32_t subscription;  // the new subscription's id (sample_bytes != 0)
};
using Command = std::variant<CmdSubscribe, CmdCapture, CmdCancel, CmdFrames>;

struct HostClient::Impl {
  explicit Impl(ClientOptions o) : opt(std::move(o)), history(opt.counter_history) {}

  // client_loop.cpp (network thread)
  void Run();
  bool Open(std::string* error);
  void Service();
  bool ReopenAfterStrayDisconnect();  // true if it handled the DISCONNECT (see client_loop.cpp)
  void OnReceive(ENetPacket* packet, uint8_t channel);
  void Dispatch(const wire::Envelope& env, size_t bytes);
  void OnChallenge(const wire::AuthChallenge& c);
  void OnWelcome(const wire::Welcome& w);
  void OnDescriptors(const wire::CounterDescriptors& d);
  void OnSample(const wire::CounterSample& s);
  void OnCaptureMessage(const wire::Envelope& env, size_t bytes);
  void OnFrameBatch(const wire::FrameBatch& b, size_t bytes);
  void ExecuteCommands();
  void SendToAgent(const wire::Envelope& env);
  // Cuts the connection for a protocol violation by the agent: tells it, then fails.
  void ProtocolError(wire::ErrorCode code, const std::string& why);
  void Close(ConnectionState final_state, const std::string& why);
  void FinishCapture(CaptureResult r);
  void PublishProgress();

  static constexpr size_t kMaxQueuedCaptureRequests = 64;
  void OnGameCaptureRequest(const wire::GameCaptureRequest& g);

  const ClientOptions opt;
  CounterHistory history;
  std::thread thread;
  std::atomic<bool> stop{false};

  // ---- guarded by mu ----
  mutable std::mutex mu;
  std::condition_variable cv;
  ConnectionState state = ConnectionState::kIdle;
  std::string last_error;
  DeviceInfo device;
  std::chrono::steady_clock::time_point welcome_at;  // when device.boot_ms was the device's clock
  uint64_t generation = 0;
  std::deque<Command> commands;
  CaptureProgress progress;
  bool capture_active = false;  // requested and not finished
  std::optional<CaptureResult> result;
  FramesStatus frames;
  FrameRecording frame_delta;       // arrived, not yet taken
  uint64_t frame_rows_kept = 0;     // of this subscription (ClientOptions::max_frame_rows)
  uint32_t frame_subscription = 0;  // the current subscription's id (SubscribeFrames)
  // The game's RequestCapture calls not yet taken (oldest dropped past the limit).
  std::deque<MarkerRow> capture_requests;
  uint64_t capture_requests_received = 0, capture_requests_dropped = 0;

  // ---- network thread only ----
  ENetHost* host = nullptr;
  ENetPeer* peer = nullptr;
  bool handshaken = false;
  // ENet reported the connection (CONNECT). Before it, a DISCONNECT cannot come from the agent
  // for this connection; it is a stray one (see Service) and the attempt starts again.
  bool enet_connected = false;
  int stray_disconnects = 0;
  std::string client_nonce;  // this connection's Hello nonce (auth.h)
  bool challenged = false;   // an AuthChallenge was answered
  Clock::time_point connect_started, capture_started, connected_at;
  uint32_t next_request_id = 1;
  uint32_t request_id = 0;  // of the running capture
  std::unique_ptr<CaptureAssembler> assembler;
  // The last completed capture's sizes: the next capture's columns are reserved (and their
  // pages faulted in while the game is stopped) at these.
  CaptureSizes last_capture_sizes;
  // The agent's Welcome: its last capture when this connection began, or its runtime's
  // forecast of one (Welcome.last_capture_*, forecast_*).
  wire::Welcome agent_hint;
  uint32_t cancelled_capture = 0;  // late messages of a cancelled capture are ignored
  uint32_t ignored_request = 0;    // the request of the last cancelled capture
  Clock::time_point last_progress;
  FrameBatchReader frame_reader;
};

}  // namespace xrpm::client
