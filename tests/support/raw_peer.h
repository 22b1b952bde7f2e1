// RawPeer: a bare ENet endpoint that speaks the wire protocol by hand, for fault-injection
// tests: a misbehaving host (wrong version, garbage, oversized messages, vanishing mid-capture)
// against the real agent, or a misbehaving device against the real host client. 127.0.0.1
// only; every wait is bounded by a timeout.
//
// Thread-safety: none; one test thread drives it.
#pragma once

#include <enet/enet.h>

#include <cstdint>
#include <memory>
#include <string>

#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {

class RawPeer {
 public:
  ~RawPeer();
  // A client connected to 127.0.0.1:port (nullptr if no connection within timeout).
  static std::unique_ptr<RawPeer> Connect(uint16_t port, uint32_t timeout_ms = 20000);
  // A server on 127.0.0.1, any free port; call Accept.
  static std::unique_ptr<RawPeer> Listen();
  bool Accept(uint32_t timeout_ms = 20000);
  uint16_t port() const;

  bool Send(const wire::Envelope& env, uint8_t channel = 0);
  bool SendBytes(const std::string& bytes, uint8_t channel = 0, bool reliable = true);
  // Services until a message arrives (true), the other side disconnects or timeout (false).
  bool Receive(wire::Envelope* out, uint32_t timeout_ms = 20000, uint8_t* channel = nullptr);
  // Receives until a message of the given body case arrives, dropping others.
  bool ReceiveBody(wire::Envelope::BodyCase body, wire::Envelope* out, uint32_t timeout_ms = 20000);
  // Services until the other side disconnects; *data = its ENet disconnect data.
  bool WaitDisconnect(uint32_t timeout_ms, uint32_t* data = nullptr);
  // Every packet received so far, byte for byte, including messages ReceiveBody dropped.
  const std::string& received_bytes() const { return received_bytes_; }
  bool disconnected() const { return disconnected_; }
  uint32_t disconnect_data() const { return disconnect_data_; }
  // Sends ENet's disconnect at once (the other side learns immediately) and forgets the peer.
  void DisconnectNow();
  // Forgets the peer without a word (the other side only learns by timeout).
  void Vanish();

 private:
  RawPeer() = default;
  ENetHost* host_ = nullptr;
  ENetPeer* peer_ = nullptr;
  bool disconnected_ = false;
  uint32_t disconnect_data_ = 0;
  std::string received_bytes_;
};

// A device that answers the handshake and starts a capture, then misbehaves (the test decides
// how, after StartCapture returns).
class FakeDevice {
 public:
  FakeDevice() : peer_(RawPeer::Listen()) {}
  uint16_t port() const { return peer_->port(); }
  RawPeer& peer() { return *peer_; }
  // Accepts the host, welcomes it, waits for its capture request, sends the CaptureBegin and
  // `batches` valid batches of a small heap (never the end).
  bool StartCapture(int batches);

 private:
  std::unique_ptr<RawPeer> peer_;
};

// Performs the client handshake; returns the Welcome (false if refused).
bool Handshake(RawPeer& p, wire::Envelope* welcome, uint32_t version = 0,
               const std::string& token = "");
// Handshake, CaptureRequest, and waits for the capture's first HeapBatch.
bool StartRawCapture(RawPeer& p, uint32_t timeout_ms = 20000);

}  // namespace xrpm::testing
