// ENet glue shared by the device agent and the host client: one-time library start-up,
// "HOST:PORT" endpoints, host/peer settings (packet caps, MTU, timeouts) and zero-copy sends
// whose bytes are counted until ENet releases them, which for a reliable packet means every
// fragment was acknowledged. That count is what the senders' flow control caps.
//
// Thread-safety: InitEnet and the parsing helpers are thread-safe. Everything taking an
// ENetHost/ENetPeer must run on the one thread that services that host. SendAccounting may be
// read from any thread.
#pragma once

#include <enet/enet.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace protocol {

// Calls enet_initialize once per process. Returns false if ENet could not start.
bool InitEnet();

struct Endpoint {
  std::string host;  // name or dotted IPv4 (ENet 1.3 is IPv4 only)
  uint16_t port = 0;
};

// Parses "HOST:PORT" or "HOST" (then default_port). Port 0 is allowed (ephemeral, for tests).
bool ParseEndpoint(const std::string& text, uint16_t default_port, Endpoint* out,
                   std::string* error);
bool ResolveEndpoint(const Endpoint& ep, ENetAddress* out, std::string* error);
bool IsLoopback(const ENetAddress& a);            // 127.0.0.0/8
std::string FormatAddress(const ENetAddress& a);  // "127.0.0.1:4510"

// Bytes handed to ENet and not yet released by it, and the peak of that figure.
class SendAccounting {
 public:
  size_t unacked() const { return unacked_.load(std::memory_order_acquire); }
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }
  void ResetPeak() { peak_.store(unacked(), std::memory_order_relaxed); }
  void Add(size_t n);
  void Release(size_t n) { unacked_.fetch_sub(n, std::memory_order_acq_rel); }

 private:
  std::atomic<size_t> unacked_{0};
  std::atomic<size_t> peak_{0};
};

// Sends `bytes` as one packet without copying them; ENet owns them until it is done. Returns
// false if ENet refused the packet (the bytes are then freed). `acct` (may be null) counts the
// bytes from now until ENet frees them; `release_on_free` (may be null) is an accounting that
// the caller already charged for these bytes (a send queue) and that is released with them.
bool SendOwned(ENetPeer* peer, uint8_t channel, std::string bytes, bool reliable,
               SendAccounting* acct, SendAccounting* release_on_free = nullptr);
// Serializes and sends; false if over max_bytes or refused.
bool SendEnvelope(ENetPeer* peer, uint8_t channel, const wire::Envelope& env, bool reliable,
                  size_t max_bytes, SendAccounting* acct);

// xrpm's settings for a new host: ENet packet caps (constants.h) and, on loopback, the largest
// MTU ENet allows (4096; fewer datagrams per batch). The LAN keeps ENet's 1400.
void ConfigureHost(ENetHost* host, bool loopback);
// Explicit timeouts: a peer whose reliable data stays unacknowledged for timeout_ms, or that
// answers no ping for that long, is disconnected. Pings every 250 ms.
void ConfigurePeer(ENetPeer* peer, uint32_t timeout_ms);

}  // namespace protocol
}  // namespace xrpm
