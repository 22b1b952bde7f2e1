// Agent::Impl: the agent's state, split across agent.cpp (lifecycle, threads, main loop),
// peer_handshake.cpp (peers, handshake, commands) and agent_stream.cpp (capture streaming and
// counters).
//
// Thread-safety: everything below "network thread only" is touched by the network thread alone
// (after Start and before Stop joins it). The worker hand-off is guarded by worker_mu; stats by
// stats_mu.
#pragma once

#include <enet/enet.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "beacon_sender.h"
#include "capture_job.h"
#include "frame_tracker.h"
#include "marker_queue.h"
#include "xrpm/agent/agent.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/enet_io.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace agent {

// ENet peer slots: the controller plus hosts being refused (each told why).
constexpr size_t kMaxAgentPeers = 32;
// A refused peer gets this long to acknowledge its DISCONNECT, counted from when the agent sent
// it, before its slot is reclaimed. The DISCONNECT (carrying the ErrorCode) leaves only after
// the peer acknowledged the Error message before it (enet_peer_disconnect_later); that wait is
// bounded separately by AgentOptions::refused_ack_timeout_ms. Resetting earlier would cut off a
// slow but honest peer before it learned the code.
constexpr uint32_t kRefusedLingerMs = 1000;

struct Session {
  // kAwaitAuth: the Hello was accepted, the AuthChallenge sent, the answer not yet received.
  enum class State { kAwaitHello, kAwaitAuth, kActive, kClosing };
  State state = State::kAwaitHello;
  int64_t connected_ns = 0;
  int64_t closing_ns = 0;  // when the agent started cutting it off (kClosing)
  // kClosing: when the agent first saw ENet sending the DISCONNECT (0 while ENet still waits
  // for the peer to acknowledge the Error before it).
  int64_t disconnect_sent_ns = 0;
  std::string address;  // "127.0.0.1:53211"
  std::string client_name;
  std::string client_nonce, agent_nonce;  // of this connection's challenge (auth.h)
};

struct Agent::Impl {
  Impl(RuntimePort& r, AgentOptions o) : runtime(r), opt(std::move(o)) {}

  // agent.cpp
  bool Start(std::string* error);
  void Stop();
  void NetLoop();
  void WorkerLoop();
  void Shutdown();  // network thread, on exit
  void Log(const std::string& line);
  bool StartAnnouncing(std::string* error);  // opt.announce: opens `beacon`

  // peer_handshake.cpp
  void OnConnect(ENetPeer* peer);
  void OnReceive(ENetPeer* peer, ENetPacket* packet, uint8_t channel);
  void OnDisconnect(ENetPeer* peer);
  void Dispatch(ENetPeer* peer, Session* s, const wire::Envelope& env);
  void OnHello(ENetPeer* peer, Session* s, const wire::Hello& h);
  void OnAuthResponse(ENetPeer* peer, Session* s, const wire::AuthResponse& r);
  void GrantControl(ENetPeer* peer, Session* s);  // the host is in control: Welcome
  void Refuse(ENetPeer* peer, wire::ErrorCode code, const std::string& why);
  // Refuses `peer` with BUSY when another host is in control; returns true if it did.
  bool RefuseIfBusy(ENetPeer* peer);
  void DropController(const std::string& why);
  // Refuses peers silent past the handshake timeout, and drops refused peers that never
  // acknowledge their Error (refused_ack_timeout_ms) or their DISCONNECT (kRefusedLingerMs
  // after it was sent), so a flood of them cannot hold the peer slots.
  void CheckHandshakeTimeouts();
  void MarkClosing(Session* s);  // kClosing from now
  bool SendControl(ENetPeer* peer, const wire::Envelope& env);

  // agent_stream.cpp
  void OnCaptureRequest(ENetPeer* peer, const wire::CaptureRequest& r);
  void StartJob(const wire::CaptureRequest& r);
  void OnCancel(ENetPeer* peer, const wire::CancelCapture& c);
  void OnSubscribe(ENetPeer* peer, const wire::SubscribeCounters& s);
  void PumpCapture();
  void FinishJob();
  void PumpCounters();
  void RetireFreedJobs();

  // agent_frames.cpp
  void OnSubscribeFrames(ENetPeer* peer, const wire::SubscribeFrames& s);
  void StopFrames();  // the runtime stops calling the tracker before this returns
  void PumpFrames();

  // agent_markers.cpp
  void StartMarkers();  // installs `markers` as the runtime's GameEventSink (Start)
  void StopMarkers();   // removes it (Stop, after the network thread ended)
  // Network thread: drains the marker queue (last marker, capture requests to the host,
  // markers for the next FrameBatch).
  void PumpMarkers();
  // Moves up to kMaxBatchMarkers pending markers into *b; true if it added any.
  bool FillMarkers(wire::FrameBatch* b);

  RuntimePort& runtime;
  const AgentOptions opt;
  protocol::AuthKey auth_key{};  // derived from opt.token (unused when it is empty)
  ENetHost* host = nullptr;
  std::atomic<uint16_t> port{0};
  std::thread net_thread, worker_thread;
  std::atomic<bool> stopping{false};
  // A capture is running or its bytes are still inside ENet (the network thread's view, updated
  // every turn of its loop): StopAfterCapture waits for it to clear.
  std::atomic<bool> capture_in_flight{false};

  // Worker hand-off.
  std::mutex worker_mu;
  std::condition_variable worker_cv;
  std::shared_ptr<CaptureJob> worker_job;
  bool worker_exit = false;

  // ---- network thread only ----
  ENetPeer* controller = nullptr;
  std::shared_ptr<CaptureJob> job;  // the running capture
  bool abort_on_finish = false;     // tell the host the capture was cancelled
  // A request that arrived while `job` was sending its final message (see
  // CaptureJob::finishing); started as soon as that job is finished.
  bool deferred_request = false;
  wire::CaptureRequest deferred_request_msg;
  std::vector<std::shared_ptr<CaptureJob>> retired;  // finished; bytes still inside ENet
  uint32_t next_capture_id = 1;
  protocol::SendAccounting flight;  // heap-channel bytes inside ENet (flow control)
  uint32_t counter_interval_ms = 0;
  int64_t next_sample_ns = 0;
  uint64_t sample_seq = 1;  // CounterSample.seq starts at 1
  std::vector<CounterValue> counter_values;
  std::unique_ptr<FrameTracker> frames;  // allocated by the first frames subscription
  bool frames_on = false;
  uint32_t frames_sample_bytes = 0;
  uint32_t frames_subscription = 0;
  uint64_t frame_batch_seq = 0;
  int64_t next_frames_ns = 0;
  protocol::SendAccounting frames_flight;  // frames-channel bytes inside ENet
  // Markers (CAP_MARKERS): the queue exists while the runtime has it installed.
  std::unique_ptr<MarkerQueue> markers;
  bool markers_on = false;
  bool has_last_marker = false;
  QueuedMarker last_marker;
  std::deque<QueuedMarker> pending_markers;  // for the next FrameBatch (bounded)
  uint64_t pending_markers_dropped = 0;      // pending_markers was full
  BeaconSender beacon;  // discovery (opt.announce); sends from the network thread
  // The last completed capture's sizes, whichever host asked for it (Welcome.last_capture_*).
  uint64_t last_capture_objects = 0, last_capture_refs = 0;
  bool last_capture_fields = false;

  mutable std::mutex stats_mu;
  AgentStats stats;
};

}  // namespace agent
}  // namespace xrpm
