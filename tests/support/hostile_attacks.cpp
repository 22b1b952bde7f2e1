#include "hostile_attacks.h"

#include <string>

#include "raw_peer.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

wire::Envelope Hello(uint32_t version) {
  wire::Envelope h;
  h.mutable_hello()->set_protocol_version(version);
  h.mutable_hello()->set_client_name("hostile");
  h.mutable_hello()->set_client_nonce(protocol::AuthNonce());
  return h;
}

}  // namespace

wire::ErrorCode Attack(uint16_t port, int k) {
  auto p = RawPeer::Connect(port);
  if (!p) return wire::ERROR_UNSPECIFIED;
  wire::Envelope m;
  switch (k) {
    case 0:  // an old or future host
      p->Send(Hello(protocol::kProtocolVersion + 7));
      break;
    case 1: {  // guesses the answer
      p->Send(Hello(protocol::kProtocolVersion));
      if (!p->ReceiveBody(wire::Envelope::kAuthChallenge, &m)) return wire::ERROR_UNSPECIFIED;
      wire::Envelope a;
      a.mutable_auth_response()->set_answer(std::string(protocol::kAuthAnswerBytes, '\x42'));
      p->Send(a);
      break;
    }
    case 2:  // garbage
    {
      static const char kJunk[] = "\x12\x34\xff\xff\xff\xff\xff junk";
      p->SendBytes(std::string(kJunk, sizeof kJunk - 1));
      break;
    }
    case 3:  // oversized
      p->SendBytes(std::string(protocol::kMaxHostMessageBytes + 1, 'x'));
      break;
    case 4:  // commands without a handshake
      m.mutable_capture_request()->set_request_id(1);
      p->Send(m);
      break;
    case 5:  // a flood of malformed packets, back to back
      for (int i = 0; i < 300; ++i) p->SendBytes(std::string(1 + i % 64, static_cast<char>(0xff)));
      break;
  }
  wire::Envelope reply;
  if (!p->ReceiveBody(wire::Envelope::kError, &reply)) return wire::ERROR_UNSPECIFIED;
  uint32_t data = 0;
  if (!p->WaitDisconnect(20000, &data) || data != static_cast<uint32_t>(reply.error().code()))
    return wire::ERROR_UNSPECIFIED;
  return reply.error().code();
}

}  // namespace xrpm::testing
