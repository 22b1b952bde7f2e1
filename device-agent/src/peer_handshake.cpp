// Agent peers: connection, handshake (version, token challenge-response, one controller),
// command dispatch and refusals. Every refusal sends a fatal Error with the reason, then
// disconnects with the ErrorCode as ENet's disconnect data, and is logged on the agent side.
#include "agent_impl.h"
#include "utf8.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace agent {

bool Agent::Impl::SendControl(ENetPeer* peer, const wire::Envelope& env) {
  return protocol::SendEnvelope(peer, protocol::kChannelControl, env, true,
                                protocol::kMaxAgentMessageBytes, nullptr);
}

void Agent::Impl::OnConnect(ENetPeer* peer) {
  auto* s = new Session;
  s->connected_ns = NowNs();
  s->address = protocol::FormatAddress(peer->address);
  peer->data = s;
  protocol::ConfigurePeer(peer, opt.peer_timeout_ms);
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    ++stats.connections;
  }
  if (RefuseIfBusy(peer)) return;
  Log("host " + s->address + " connected");
}

bool Agent::Impl::RefuseIfBusy(ENetPeer* peer) {
  if (!controller || controller == peer) return false;
  Refuse(peer, wire::BUSY,
         "another host (" + static_cast<Session*>(controller->data)->address +
             ") is connected to this agent; only one host at a time");
  return true;
}

void Agent::Impl::Refuse(ENetPeer* peer, wire::ErrorCode code, const std::string& why) {
  auto* s = static_cast<Session*>(peer->data);
  if (!s || s->state == Session::State::kClosing) return;
  Log("refused " + s->address + ": " + protocol::ErrorCodeName(code) + ": " + why);
  SendControl(peer, protocol::MakeError(code, why, true));
  enet_peer_disconnect_later(peer, code);
  MarkClosing(s);
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    ++stats.refused;
  }
  if (peer == controller) DropController(std::string("host refused: ") + why);
}

void Agent::Impl::DropController(const std::string& why) {
  controller = nullptr;
  counter_interval_ms = 0;
  deferred_request = false;
  StopFrames();
  if (job && !job->cancelled()) {
    Log("capture " + std::to_string(job->id) + " cancelled: " + why);
    job->Cancel();
    abort_on_finish = false;  // nobody to tell
  }
  std::lock_guard<std::mutex> lock(stats_mu);
  stats.host_connected = false;
}

void Agent::Impl::OnDisconnect(ENetPeer* peer) {
  auto* s = static_cast<Session*>(peer->data);
  if (peer == controller) DropController("the host disconnected");
  if (s) {
    Log("host " + s->address + " disconnected");
    delete s;
  }
  peer->data = nullptr;
}

void Agent::Impl::OnReceive(ENetPeer* peer, ENetPacket* packet, uint8_t channel) {
  auto* s = static_cast<Session*>(peer->data);
  const size_t len = packet->dataLength;
  wire::Envelope env;
  protocol::ParseStatus st = protocol::ParseStatus::kTooLarge;
  if (s && s->state != Session::State::kClosing)
    st = protocol::ParseEnvelope(packet->data, len, protocol::kMaxHostMessageBytes, &env);
  enet_packet_destroy(packet);
  if (!s || s->state == Session::State::kClosing) return;  // already being cut off
  switch (st) {
    case protocol::ParseStatus::kTooLarge:
      return Refuse(peer, wire::TOO_LARGE,
                    "a message of " + std::to_string(len) + " bytes is over the agent's limit of " +
                        std::to_string(protocol::kMaxHostMessageBytes) + " bytes");
    case protocol::ParseStatus::kMalformed:
      return Refuse(peer, wire::MALFORMED,
                    "a " + std::to_string(len) + "-byte message on channel " +
                        std::to_string(channel) + " is not an xrpm protocol Envelope");
    case protocol::ParseStatus::kEmpty:
      return Refuse(peer, wire::MALFORMED, "an empty or unknown message (newer protocol?)");
    case protocol::ParseStatus::kOk:
      break;
  }
  if (channel != protocol::kChannelControl)
    return Refuse(peer, wire::MALFORMED,
                  std::string("commands go on the control channel; got ") +
                      protocol::BodyName(env) + " on channel " + std::to_string(channel));
  Dispatch(peer, s, env);
}

void Agent::Impl::Dispatch(ENetPeer* peer, Session* s, const wire::Envelope& env) {
  if (s->state == Session::State::kAwaitHello) {
    if (!env.has_hello())
      return Refuse(peer, wire::NOT_AUTHENTICATED,
                    std::string("expected hello first, got ") + protocol::BodyName(env));
    return OnHello(peer, s, env.hello());
  }
  if (s->state == Session::State::kAwaitAuth) {
    if (!env.has_auth_response())
      return Refuse(peer, wire::NOT_AUTHENTICATED,
                    std::string("expected auth_response, got ") + protocol::BodyName(env));
    return OnAuthResponse(peer, s, env.auth_response());
  }
  switch (env.body_case()) {
    case wire::Envelope::kSubscribeCounters:
      return OnSubscribe(peer, env.subscribe_counters());
    case wire::Envelope::kCaptureRequest:
      return OnCaptureRequest(peer, env.capture_request());
    case wire::Envelope::kCancelCapture:
      return OnCancel(peer, env.cancel_capture());
    case wire::Envelope::kSubscribeFrames:
      return OnSubscribeFrames(peer, env.subscribe_frames());
    case wire::Envelope::kError:
      Log("host " + s->address + " reported: " + SanitizeUtf8(env.error().message().c_str(), 1024));
      if (env.error().fatal()) {
        enet_peer_disconnect_later(peer, 0);
        MarkClosing(s);
        if (peer == controller) DropController("the host reported a fatal error");
      }
      return;
    default:
      return Refuse(peer, wire::MALFORMED,
                    std::string("unexpected ") + protocol::BodyName(env) + " from a host");
  }
}

void Agent::Impl::OnHello(ENetPeer* peer, Session* s, const wire::Hello& h) {
  if (h.protocol_version() != protocol::kProtocolVersion)
    return Refuse(peer, wire::VERSION_MISMATCH,
                  "this agent speaks xrpm protocol " + std::to_string(protocol::kProtocolVersion) +
                      ", the host speaks " + std::to_string(h.protocol_version()));
  if (h.client_name().size() > protocol::kMaxShortString)
    return Refuse(peer, wire::MALFORMED, "hello client name over 256 bytes");
  if (h.client_nonce().size() != protocol::kAuthNonceBytes)
    return Refuse(peer, wire::MALFORMED,
                  "hello client nonce of " + std::to_string(h.client_nonce().size()) +
                      " bytes, expected " + std::to_string(protocol::kAuthNonceBytes));
  if (RefuseIfBusy(peer)) return;
  s->client_name = SanitizeUtf8(h.client_name().c_str(), protocol::kMaxShortString);
  if (opt.token.empty()) return GrantControl(peer, s);
  // Challenge: the host must prove it knows the token (auth.h).
  s->client_nonce = h.client_nonce();
  s->agent_nonce = protocol::AuthNonce();
  s->state = Session::State::kAwaitAuth;
  wire::Envelope env;
  env.mutable_auth_challenge()->set_agent_nonce(s->agent_nonce);
  SendControl(peer, env);
}

void Agent::Impl::OnAuthResponse(ENetPeer* peer, Session* s, const wire::AuthResponse& r) {
  if (r.answer().empty())
    return Refuse(peer, wire::BAD_TOKEN, "this agent requires a token (--token)");
  if (!protocol::AuthVerify(auth_key, s->agent_nonce, s->client_nonce, r.answer()))
    return Refuse(peer, wire::BAD_TOKEN, "the token does not match the agent's");
  if (RefuseIfBusy(peer)) return;  // another host may have won the race while this one answered
  GrantControl(peer, s);
}

void Agent::Impl::GrantControl(ENetPeer* peer, Session* s) {
  controller = peer;
  s->state = Session::State::kActive;
  s->agent_nonce.clear();
  {
    std::lock_guard<std::mutex> lock(stats_mu);
    stats.host_connected = true;
  }
  const RuntimeInfo info = runtime.Info();
  wire::Envelope env;
  wire::Welcome* w = env.mutable_welcome();
  w->set_protocol_version(protocol::kProtocolVersion);
  w->set_agent_name(protocol::kAgentName);
  wire::RuntimeInfo* ri = w->mutable_runtime();
  ri->set_runtime_name(SanitizeUtf8(info.runtime_name, protocol::kMaxShortString));
  ri->set_runtime_version(SanitizeUtf8(info.runtime_version, protocol::kMaxShortString));
  ri->set_app_name(SanitizeUtf8(info.app_name, protocol::kMaxShortString));
  ri->set_platform(SanitizeUtf8(info.platform, protocol::kMaxShortString));
  ri->set_pointer_bytes(info.pointer_bytes);
  ri->set_big_endian(info.big_endian);
  ri->set_dump_version(info.dump_version);
  ri->set_app_domain_count(info.app_domain_count);
  ri->set_boot_ms(runtime.BootMillis());
  w->set_capabilities(wire::CAP_COUNTERS | wire::CAP_HEAP_CAPTURE | wire::CAP_CANCEL |
                      (runtime.SupportsFrameEvents() ? wire::CAP_FRAMES : 0) |
                      (runtime.ReportsFields() ? wire::CAP_FIELDS : 0) |
                      (runtime.ReportsFields() && runtime.ReportsValues() ? wire::CAP_VALUES : 0) |
                      (markers_on ? wire::CAP_MARKERS : 0) |
                      (runtime.JoinsInducedCollections() ? wire::CAP_JOIN_INDUCED_GC : 0));
  w->set_min_counter_interval_ms(protocol::kMinCounterIntervalMs);
  w->set_max_message_bytes(protocol::kMaxAgentMessageBytes);
  w->set_max_host_message_bytes(protocol::kMaxHostMessageBytes);
  w->set_last_capture_objects(last_capture_objects);
  w->set_last_capture_refs(last_capture_refs);
  w->set_last_capture_fields(last_capture_fields);
  uint64_t forecast_objects = 0, forecast_refs = 0;
  if (last_capture_objects == 0 &&
      runtime.ForecastCaptureSizes(&forecast_objects, &forecast_refs)) {
    w->set_forecast_objects(forecast_objects);
    w->set_forecast_refs(forecast_refs);
  }
  SendControl(peer, env);
  Log("host " + s->address + " (" + s->client_name + ") is in control" +
      (opt.token.empty() ? "" : " (token verified)") +
      (w->forecast_objects()
           ? "; no capture yet, forecast at " + std::to_string(w->forecast_objects()) + " objects"
           : ""));
}

void Agent::Impl::MarkClosing(Session* s) {
  s->state = Session::State::kClosing;
  s->closing_ns = NowNs();
}

void Agent::Impl::CheckHandshakeTimeouts() {
  const int64_t now = NowNs();
  for (size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* peer = &host->peers[i];
    auto* s = static_cast<Session*>(peer->data);
    if (s && s->state == Session::State::kClosing) {
      // ENet sends the DISCONNECT once the peer acknowledged everything before it (the Error):
      // the peer leaves DISCONNECT_LATER then. Until that, the peer has the refused-ack bound;
      // after it, kRefusedLingerMs to acknowledge the DISCONNECT itself. A peer that does not
      // acknowledge (gone, stalled or hostile) would otherwise hold its slot until the peer
      // timeout; a slow one still gets the DISCONNECT with the code before its slot goes.
      if (!s->disconnect_sent_ns && peer->state != ENET_PEER_STATE_DISCONNECT_LATER)
        s->disconnect_sent_ns = now;
      const bool sent = s->disconnect_sent_ns != 0;
      const uint32_t limit_ms = sent ? kRefusedLingerMs : opt.refused_ack_timeout_ms;
      if (now - (sent ? s->disconnect_sent_ns : s->closing_ns) > int64_t{limit_ms} * 1000000) {
        Log("host " + s->address + " dropped (did not acknowledge the " +
            (sent ? "disconnect" : "error") + " within " + std::to_string(limit_ms) + " ms)");
        delete s;
        peer->data = nullptr;
        enet_peer_reset(peer);
      }
      continue;
    }
    if (s && (s->state == Session::State::kAwaitHello || s->state == Session::State::kAwaitAuth) &&
        now - s->connected_ns > int64_t{opt.handshake_timeout_ms} * 1000000)
      Refuse(
          peer, wire::TIMEOUT,
          std::string(s->state == Session::State::kAwaitHello ? "no hello" : "no auth_response") +
              " within " + std::to_string(opt.handshake_timeout_ms) + " ms");
  }
}

}  // namespace agent
}  // namespace xrpm
