#include "raw_peer.h"

#include <chrono>
#include <cstdio>

#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/enet_io.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool Expired(Clock::time_point deadline) {
  return Clock::now() >= deadline;
}

Clock::time_point Deadline(uint32_t ms) {
  return Clock::now() + std::chrono::milliseconds(ms);
}

}  // namespace

RawPeer::~RawPeer() {
  if (peer_) enet_peer_reset(peer_);
  if (host_) enet_host_destroy(host_);
}

std::unique_ptr<RawPeer> RawPeer::Connect(uint16_t port, uint32_t timeout_ms) {
  protocol::InitEnet();
  ENetAddress a;
  enet_address_set_host_ip(&a, "127.0.0.1");
  a.port = port;
  const auto deadline = Deadline(timeout_ms);
  // A connecting ENet peer accepts a DISCONNECT from anyone at the agent's address: the agent
  // may still be retransmitting one to an earlier peer that had this same ephemeral port (a
  // refused peer it lingers on). That kills the attempt; start again from a fresh socket, as
  // the host client does (client_loop.cpp).
  while (!Expired(deadline)) {
    std::unique_ptr<RawPeer> p(new RawPeer);
    p->host_ = enet_host_create(nullptr, 1, protocol::kChannelCount, 0, 0);
    if (!p->host_) return nullptr;
    p->host_->maximumPacketSize = protocol::kEnetMaxPacketBytes;
    p->peer_ = enet_host_connect(p->host_, &a, protocol::kChannelCount, 0);
    ENetEvent ev;
    while (!Expired(deadline)) {
      if (enet_host_service(p->host_, &ev, 5) <= 0) continue;
      if (ev.type == ENET_EVENT_TYPE_CONNECT) return p;
      if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
        p->peer_ = nullptr;  // ENet reset it
        std::fprintf(stderr,
                     "raw peer: a stray DISCONNECT (data %u) ended the connection attempt; "
                     "retrying from a new socket\n",
                     ev.data);
        break;
      }
    }
  }
  return nullptr;
}

std::unique_ptr<RawPeer> RawPeer::Listen() {
  protocol::InitEnet();
  std::unique_ptr<RawPeer> p(new RawPeer);
  ENetAddress a;
  enet_address_set_host_ip(&a, "127.0.0.1");
  a.port = 0;
  p->host_ = enet_host_create(&a, 2, protocol::kChannelCount, 0, 0);
  p->host_->maximumPacketSize = protocol::kEnetMaxPacketBytes;
  return p;
}

uint16_t RawPeer::port() const {
  ENetAddress a;
  enet_socket_get_address(host_->socket, &a);
  return a.port;
}

bool RawPeer::Accept(uint32_t timeout_ms) {
  const auto deadline = Deadline(timeout_ms);
  ENetEvent ev;
  while (!Expired(deadline)) {
    if (enet_host_service(host_, &ev, 5) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT) {
      peer_ = ev.peer;
      return true;
    }
  }
  return false;
}

bool RawPeer::Send(const wire::Envelope& env, uint8_t channel) {
  return SendBytes(env.SerializeAsString(), channel);
}

bool RawPeer::SendBytes(const std::string& bytes, uint8_t channel, bool reliable) {
  if (!peer_) return false;
  ENetPacket* packet =
      enet_packet_create(bytes.data(), bytes.size(), reliable ? ENET_PACKET_FLAG_RELIABLE : 0);
  if (enet_peer_send(peer_, channel, packet) != 0) {
    enet_packet_destroy(packet);
    return false;
  }
  enet_host_flush(host_);
  return true;
}

bool RawPeer::Receive(wire::Envelope* out, uint32_t timeout_ms, uint8_t* channel) {
  const auto deadline = Deadline(timeout_ms);
  ENetEvent ev;
  while (peer_ && !Expired(deadline)) {
    if (enet_host_service(host_, &ev, 5) <= 0) continue;
    if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
      received_bytes_.append(reinterpret_cast<const char*>(ev.packet->data), ev.packet->dataLength);
      const bool ok = out->ParseFromArray(ev.packet->data, static_cast<int>(ev.packet->dataLength));
      if (channel) *channel = ev.channelID;
      enet_packet_destroy(ev.packet);
      if (ok) return true;
    } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
      disconnected_ = true;
      disconnect_data_ = ev.data;
      peer_ = nullptr;
    }
  }
  return false;
}

bool RawPeer::ReceiveBody(wire::Envelope::BodyCase body, wire::Envelope* out, uint32_t timeout_ms) {
  const auto deadline = Deadline(timeout_ms);
  while (!Expired(deadline)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!Receive(out, static_cast<uint32_t>(left.count()) + 1)) return false;
    if (out->body_case() == body) return true;
  }
  return false;
}

bool RawPeer::WaitDisconnect(uint32_t timeout_ms, uint32_t* data) {
  const auto deadline = Deadline(timeout_ms);
  ENetEvent ev;
  while (peer_ && !Expired(deadline)) {
    if (enet_host_service(host_, &ev, 5) <= 0) continue;
    if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
      received_bytes_.append(reinterpret_cast<const char*>(ev.packet->data), ev.packet->dataLength);
      enet_packet_destroy(ev.packet);
    }
    if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
      disconnected_ = true;
      disconnect_data_ = ev.data;
      peer_ = nullptr;
    }
  }
  if (data) *data = disconnect_data_;
  return disconnected_;
}

void RawPeer::DisconnectNow() {
  if (!peer_) return;
  enet_peer_disconnect_now(peer_, 0);
  peer_ = nullptr;
}

void RawPeer::Vanish() {
  if (!peer_) return;
  enet_peer_reset(peer_);
  peer_ = nullptr;
}

bool Handshake(RawPeer& p, wire::Envelope* welcome, uint32_t version, const std::string& token) {
  wire::Envelope hello;
  hello.mutable_hello()->set_protocol_version(version ? version : protocol::kProtocolVersion);
  hello.mutable_hello()->set_client_name("raw test peer");
  const std::string client_nonce = protocol::AuthNonce();
  hello.mutable_hello()->set_client_nonce(client_nonce);
  if (!p.Send(hello)) return false;
  if (!p.Receive(welcome)) return false;
  if (welcome->has_auth_challenge()) {
    wire::Envelope answer;
    answer.mutable_auth_response()->set_answer(
        token.empty()
            ? std::string()
            : protocol::AuthAnswer(protocol::DeriveAuthKey(token),
                                   welcome->auth_challenge().agent_nonce(), client_nonce));
    if (!p.Send(answer) || !p.Receive(welcome)) return false;
  }
  return welcome->has_welcome();
}

bool StartRawCapture(RawPeer& p, uint32_t timeout_ms) {
  wire::Envelope m;
  if (!Handshake(p, &m)) return false;
  wire::Envelope req;
  req.mutable_capture_request()->set_request_id(1);
  return p.Send(req) && p.ReceiveBody(wire::Envelope::kHeapBatch, &m, timeout_ms);
}

bool FakeDevice::StartCapture(int batches) {
  if (!peer_->Accept()) return false;
  wire::Envelope m;
  if (!peer_->ReceiveBody(wire::Envelope::kHello, &m)) return false;
  wire::Envelope w;
  w.mutable_welcome()->set_protocol_version(protocol::kProtocolVersion);
  w.mutable_welcome()->mutable_runtime()->set_app_name("fake-device.exe");
  if (!peer_->Send(w)) return false;
  if (!peer_->ReceiveBody(wire::Envelope::kCaptureRequest, &m)) return false;
  wire::Envelope b;
  b.mutable_capture_begin()->set_capture_id(1);
  b.mutable_capture_begin()->set_request_id(m.capture_request().request_id());
  b.mutable_capture_begin()->set_section_name("fake-device.exe");
  if (!peer_->Send(b, protocol::kChannelHeap)) return false;
  int sent = 0;
  protocol::HeapBatchWriter writer(1, [&](wire::Envelope* env) {
    if (sent++ < batches) peer_->Send(*env, protocol::kChannelHeap);
    return sent < batches;
  });
  for (uint64_t i = 0; i < 100000 && sent < batches; ++i)
    writer.Object(0x1000 + 16 * i, 1, 16, nullptr, 0);
  return sent >= batches;
}

}  // namespace xrpm::testing
