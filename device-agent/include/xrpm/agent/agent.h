// Agent: the xrpm device agent a runtime embeds. It serves one controlling host over ENet
// (protocol/, docs/PROTOCOL.md): handshake, live counters, heap captures, cancel.
//
// Threads (both owned by the Agent, started by Start, joined by Stop):
//   - the network thread services ENet (never anything slow), samples counters, moves
//     sealed heap batches from the capture queue to ENet under a cap on unacknowledged bytes,
//     and drains the frame ring (frames + allocation samples, FrameTracker) into FrameBatch
//     messages every 100 ms under its own cap; a host that does not keep up loses the oldest
//     records (counted), the game never waits;
//   - the capture thread runs a capture: RuntimePort::RunWithWorldStopped -> induced full GC ->
//     WalkHeap into a compact encoding (protocol/heap_batch.h; a third, short-lived thread
//     encodes sealed batches while the walk goes on) -> the game resumes -> the network thread
//     streams the batches (it holds them while the world is stopped, see PROTOCOL.md).
//
// Memory bound: a capture holds the encoder's column buffers (a few MiB) plus the encoded
// batches not yet acknowledged by the host (~8 B per object), plus, when the runtime reports
// allocation origins, the capture's site and method tables (OriginInterner: at most 16384 of
// each and 1 MiB of names, ~3.6 MiB at the very worst, typically a few KiB); all of it is one
// account. When that total would exceed
// `capture_memory_limit`, the walk waits for the network (the game pause grows instead of
// memory); so the agent never holds more than the limit (or its buffers plus one batch, if the
// limit is smaller than that). Below 8 MiB the agent streams (small batches sent while the walk
// runs); set 1 MiB for a pure streaming mode. A walk that goes on after the game resumed (a
// snapshot walk, heap_walker.h WorldResumed) waits for the network once the encoded batches
// held reach `capture_resumed_limit`, or a 1/32 of the live heap (the runtime's "Managed Bytes
// In Use After GC") if that is lower, but not below 256 KiB, so the agent then holds that plus
// its buffers. Idle, the agent holds a few KiB.
//
// Exposure: binds 127.0.0.1 by default. Any other address requires a token; with a token,
// every host must prove it knows it by a challenge-response (protocol/auth.h: libsodium MAC
// over fresh nonces; the token never crosses the wire). One controlling host at a time; others are
// refused with BUSY and a reason.
//
// No exception crosses this API; errors are returned as text. Thread-safety: Start/Stop from
// one thread; stats() and port() from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace agent {

constexpr uint16_t kDefaultAgentPort = 4510;  // = protocol::kDefaultPort

struct AgentOptions {
  std::string address = "127.0.0.1";  // interface to bind ("0.0.0.0" for every interface)
  uint16_t port = kDefaultAgentPort;  // 0 = any free port (see Agent::port())
  std::string token;                  // required unless `address` is loopback
  size_t capture_memory_limit = size_t{256} << 20;
  // Encoded batches held (queued or unacknowledged) once the game runs again during the walk;
  // 4 MiB: picked by measurement on gendarme's heap (docs/PERFORMANCE.md, snapshot walk). A
  // smaller heap's capture lowers it (see above; CaptureSink::kResumedLimitHeapShare).
  size_t capture_resumed_limit = size_t{4} << 20;
  uint32_t peer_timeout_ms = 5000;       // silent peer -> disconnected
  uint32_t handshake_timeout_ms = 5000;  // connected but no Hello -> disconnected
  // A refused peer is sent an Error, then ENet's DISCONNECT with the code once it acknowledged
  // the Error; a peer that acknowledges neither within this long has its slot reclaimed
  // silently (no longer than a peer that never says hello holds one).
  uint32_t refused_ack_timeout_ms = 5000;
  uint32_t stop_world_timeout_ms = 5000;
  // Frames and allocation samples: records the ring holds (64 B each; the oldest are dropped
  // when the host does not keep up) and FrameBatch bytes allowed inside ENet unacknowledged.
  size_t frame_ring_records = 4096;
  size_t frames_unacked_limit = 256 * 1024;  // = protocol::kMaxFramesUnackedBytes
  // Discovery (--announce): a small UDP multicast beacon (TTL 1) every announce_interval_ms
  // (at least 500) naming the app, runtime, platform, agent version, port and whether a token is
  // required; never the token (protocol/include/xrpm/protocol/beacon.h).
  bool announce = false;
  uint32_t announce_interval_ms = 1000;
  // One line per event worth telling the user (connections, refusals, captures). Called from
  // the agent's threads. Empty: lines go to stderr prefixed "xrpm-agent: ".
  std::function<void(const std::string&)> log;
};

// Parses "ADDR:PORT" or "ADDR" (as --listen takes it) into options->address / port.
bool ParseListenAddress(const std::string& text, AgentOptions* options, std::string* error);

struct AgentStats {
  uint64_t connections = 0;  // peers that connected
  uint64_t refused = 0;      // peers cut off (bad version, token, second host, bad messages)
  uint64_t captures_completed = 0;
  uint64_t captures_aborted = 0;
  bool host_connected = false;  // a host completed the handshake and is connected
  bool capture_running = false;
  // The last capture.
  uint64_t last_pause_us = 0;
  uint64_t last_peak_bytes = 0;
  uint64_t last_wire_bytes = 0;
  bool last_cancelled_during_walk = false;  // the walk itself was stopped early
  uint64_t last_cancel_to_resume_us = 0;    // cancel detected -> game resumed (0: not cancelled)
  // Frames and allocation samples (the current or last subscription).
  bool frames_subscribed = false;
  uint64_t frame_records = 0;          // frame + sample records the runtime pushed
  uint64_t frame_records_dropped = 0;  // overwritten in the ring before the host took them
  uint64_t frame_batches = 0;
  uint64_t frame_wire_bytes = 0;     // serialized FrameBatch bytes sent
  uint64_t frames_unacked_peak = 0;  // frames-channel bytes inside ENet, high-water mark
};

class Agent {
 public:
  Agent(RuntimePort& runtime, AgentOptions options);
  ~Agent();  // Stop()
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Binds and starts the threads. False (with *error) if the address is bad, a non-loopback
  // address has no token, or the port is taken.
  bool Start(std::string* error) noexcept;
  // Cancels a running capture, tells the host, closes the socket, joins the threads.
  void Stop() noexcept;
  // The program is ending (the runtime's shutdown): lets a capture already under way finish
  // streaming to its host, its last bytes out of ENet, for at most max_wait_ms, then Stop().
  // Returns at once when no capture is under way. Called from the runtime's shutdown thread.
  void StopAfterCapture(uint32_t max_wait_ms) noexcept;

  uint16_t port() const noexcept;  // the bound port (after Start)
  AgentStats stats() const noexcept;

 private:
  friend class AgentHarness;  // tests/fuzz/agent_messages_fuzz.cpp drives Impl without sockets
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agent
}  // namespace xrpm
