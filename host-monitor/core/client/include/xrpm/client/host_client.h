// HostClient: the host side of the xrpm protocol (docs/PROTOCOL.md), GUI-free. It connects to
// a device agent, keeps the live counter history, and runs heap captures into verified
// Snapshots.
//
// Threads: the client owns one network thread (started by Connect, joined by Disconnect or the
// destructor) that services ENet and decodes capture batches as they arrive; nothing here ever
// blocks the caller except the explicit Wait* calls. All public methods are thread-safe; a GUI
// calls them from its frame loop, a CLI from main. Results are handed out as values or
// shared_ptr<const Snapshot> (immutable, shareable across threads); generation() increases on
// every visible change so a GUI can redraw only when something happened.
//
// Failure handling: a refused handshake (version, token, busy) or a protocol violation ends the
// connection with last_error() saying why. A connection lost during a capture ends that capture
// with CaptureResult::incomplete and no snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "xrpm/client/counter_history.h"
#include "xrpm/model/frame_recording.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::client {

struct ClientOptions {
  std::string endpoint;  // "HOST:PORT" (port defaults to 4510)
  std::string token;     // proven by challenge-response when the agent asks; never sent
  std::string client_name = "xrpm 0.1.0";
  uint32_t connect_timeout_ms = 5000;  // connect + handshake
  uint32_t peer_timeout_ms = 5000;     // a silent agent is declared gone after this
  size_t counter_history = 3000;       // samples kept (5 minutes at 10 Hz)
  uint64_t max_capture_objects = 1'000'000'000;
  // Frame and sample rows kept per frames subscription (about 40 B each); more are counted in
  // FrameRecording::host_dropped_rows.
  uint64_t max_frame_rows = 8'000'000;
};

// What a capture asks for beyond the heap's shape. The host always asks for type
// layouts, reference slots and root labels; values (field values, string text, array lengths)
// unless `values` is off (`xrpm capture --no-values`, the monitor's "Values" checkbox). An
// agent without the capability sends what it can.
struct CaptureOptions {
  bool values = true;
  uint32_t string_cap = 0;  // UTF-16 units of text per string; 0: the agent's default (1024)
  // Not 0: the agent induces no collection; it records the next full collection induced in the
  // process within this many ms (another tool's, e.g. `dotnet-gcdump collect`; `xrpm capture
  // --join-induced-gc`). StartCapture refuses it unless the agent has CAP_JOIN_INDUCED_GC.
  uint32_t join_induced_gc_ms = 0;
};
// `xrpm capture --join-induced-gc` without a duration.
inline constexpr uint32_t kDefaultJoinInducedGcMs = 60 * 1000;

// The state of the frames subscription (SubscribeFrames).
struct FramesStatus {
  bool requested = false;  // SubscribeFrames sent and not stopped
  bool started = false;    // the agent answered FramesStarted
  uint32_t sample_bytes = 0;
  uint32_t ring_records = 0;
  // FramesStarted.frame_totals_estimated: what the frame rows' allocations are (also kept in the
  // recording TakeFrames hands out).
  FrameTotals frame_totals = FrameTotals::kExact;
  uint64_t frames_received = 0;  // frame rows of this subscription
  std::string error;             // the agent's refusal ("BAD_REQUEST: ..."), or ""
};

enum class ConnectionState { kIdle, kConnecting, kConnected, kClosed, kFailed };

using DeviceInfo = xrpm::DeviceInfo;  // capture_info.h: also kept in each captured Snapshot

enum class CapturePhase { kNone, kRequested, kReceiving, kDone, kFailed };

struct CaptureProgress {
  CapturePhase phase = CapturePhase::kNone;
  uint32_t capture_id = 0;
  uint64_t objects = 0, refs = 0, roots = 0;
  uint64_t heap_bytes = 0;           // sum of received object sizes
  uint64_t expected_heap_bytes = 0;  // 0: unknown
  uint64_t wire_bytes = 0;
  double elapsed_s = 0;  // since the request
};

struct CaptureStats {
  uint32_t capture_id = 0;
  uint64_t objects = 0, refs = 0, roots = 0, types = 0, heap_bytes = 0;
  uint32_t batches = 0;
  uint64_t wire_bytes = 0;  // serialized messages received (CaptureBegin + batches)
  uint64_t pause_us = 0;    // the game was stopped (GC + walk + encode), agent-measured
  uint64_t gc_us = 0, walk_us = 0, stop_wait_us = 0, stall_us = 0;
  uint64_t agent_peak_bytes = 0;
  double elapsed_s = 0;  // request sent -> snapshot verified
  // Allocation origins the agent could not send (CaptureEnd.origins_dropped; 0 without origins).
  uint64_t origins_dropped = 0;
  // A snapshot walk: the walk after the game resumed (CaptureEnd.walk_after_pause_us; then
  // walk_us is the snapshot's share of the pause). 0: the walk was in the pause.
  uint64_t walk_after_pause_us = 0;
};

struct CaptureResult {
  bool ok = false;
  bool incomplete = false;  // the connection ended mid-capture
  std::string error;
  std::shared_ptr<const Snapshot> snapshot;  // when ok
  CaptureStats stats;
};

// The model's capture metadata (Snapshot::capture) for a capture from `device` with `stats`,
// stamped with the host's wall clock now.
CaptureInfo MakeCaptureInfo(const DeviceInfo& device, const CaptureStats& stats);

class HostClient {
 public:
  explicit HostClient(ClientOptions options);
  ~HostClient();
  HostClient(const HostClient&) = delete;
  HostClient& operator=(const HostClient&) = delete;

  // Starts the network thread and the connection; returns at once.
  void Connect();
  // Waits until connected (true) or failed/closed (false, *error says why), or timeout.
  bool WaitConnected(uint32_t timeout_ms, std::string* error);
  // Closes the connection (an unfinished capture ends incomplete) and joins the thread.
  void Disconnect();

  ConnectionState state() const;
  std::string last_error() const;
  DeviceInfo device() const;
  // The device's boot-relative clock now, in ms (how long its runtime has been up): its clock
  // at the handshake plus the host's time since; 0 before the first handshake.
  uint64_t DeviceClockMs() const;
  uint64_t generation() const;

  // Counters: interval 0 unsubscribes. Samples land in counters().
  void SubscribeCounters(uint32_t interval_ms);
  const CounterHistory& counters() const;
  // Waits until at least `count` samples were received in total, or timeout.
  bool WaitCounterSamples(uint64_t count, uint32_t timeout_ms);

  // Frames and allocation samples: starts (or restarts, with a fresh recording) the per-frame
  // series with one allocation sampled per `sample_bytes` allocated; 0 stops it. The agent
  // refuses an interval out of range (frames_status().error says why).
  void SubscribeFrames(uint32_t sample_bytes);
  FramesStatus frames_status() const;
  // Moves what arrived since the last call into *into (FrameRecording::Append). One consumer.
  void TakeFrames(FrameRecording* into);
  // Waits until `count` frame rows of the current subscription arrived (true), or the agent
  // refused it, the connection ended, or the timeout passed (false).
  bool WaitFrames(uint64_t count, uint32_t timeout_ms);

  // The game's own capture requests (Xrpm.Profiler.RequestCapture; CAP_MARKERS), which arrive
  // whether or not frames are subscribed: the oldest not yet taken (true), or false when none
  // arrived within timeout_ms (0: do not wait) or the connection ended. At most 64 wait; older
  // ones are dropped. The host decides whether to capture (StartCapture).
  bool WaitGameCaptureRequest(uint32_t timeout_ms, MarkerRow* out);
  uint64_t game_capture_requests() const;  // received on this client in total

  // Starts a capture. False (with *error) when not connected or one is running.
  bool StartCapture(std::string* error, const CaptureOptions& opts = {});
  void CancelCapture();
  CaptureProgress capture_progress() const;
  // Waits for the running capture to end; false on timeout.
  bool WaitCapture(uint32_t timeout_ms, CaptureResult* out);
  // Non-blocking: the finished capture's result, once.
  std::optional<CaptureResult> TakeCaptureResult();

 private:
  // Drives Impl without sockets: tests/fuzz/client_messages_fuzz.cpp and
  // tests/client/cancelled_capture_test.cpp.
  friend class ClientHarness;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xrpm::client
