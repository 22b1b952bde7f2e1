// Fuzz target `agent_messages`: the device agent's handling of everything a host can send
// (Agent::Impl::OnConnect / OnReceive / Dispatch: handshake, token challenge-response, counters,
// capture requests, cancel, errors), driven without sockets through a real ENet peer record.
//
// Input: tests/fuzz/message_stream.h. config bit 0: the agent has a token. Actions: 0 = answer
// the pending AuthChallenge correctly (what a host with the token does), 1 = sample counters,
// 2 = check handshake timeouts. Packets on channels 0-2 are host messages.
//
// Checks per operation, beyond no crash/leak/UB: a session is in control exactly when it is the
// agent's controller; with a token, no input takes control without the correct answer (the
// fuzzer cannot forge one); a closing session never reopens; a peer is refused at most once;
// after the disconnect nothing is left in control.
//
// Thread-safety: libFuzzer calls it from one thread; the agent's threads are never started (a
// requested capture stays queued, so cancel and busy paths still run).
#include <arpa/inet.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../../device-agent/src/agent_impl.h"
#include "fuzz_check.h"
#include "message_stream.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::agent {

// A runtime that is never stopped or walked here (the capture thread does not run).
class IdleRuntime : public RuntimePort {
 public:
  RuntimeInfo Info() const override {
    return {"fuzz runtime", "1.0", "fuzz.exe", "fuzz", 4, true, 2, 1};
  }
  uint64_t BootMillis() const override { return 1234; }
  size_t CounterCount() const override { return 2; }
  CounterInfo DescribeCounter(size_t i) const override {
    return {"Fuzz", i ? "Second" : "First", "count"};
  }
  size_t SampleCounters(CounterValue* out, size_t count) const override {
    for (size_t i = 0; i < count; ++i) out[i] = CounterValue{};
    return count;
  }
  bool RunWithWorldStopped(void (*)(void*), void*, uint32_t) override { return false; }
  void InduceFullCollection() override {}
  void WalkHeap(HeapInfoCallback&) override {}
};

class AgentHarness {
 public:
  static void Run(const uint8_t* data, size_t size) {
    static ENetHost* host = [] {
      protocol::InitEnet();
      protocol::AuthInit();
      return enet_host_create(nullptr, 1, protocol::kChannelCount, 0, 0);
    }();
    static const protocol::AuthKey key = protocol::DeriveAuthKey(kToken);
    XRPM_FUZZ_CHECK(host != nullptr, "enet_host_create failed");
    fuzz::MessageStream in(data, size);
    IdleRuntime rt;
    AgentOptions o;
    if (in.config() & 1) o.token = kToken;
    o.log = [](const std::string&) {};
    Agent::Impl impl(rt, o);
    impl.host = host;
    impl.auth_key = key;
    impl.counter_values.resize(rt.CounterCount());

    ENetAddress addr;
    addr.host = htonl(0x7f000001);
    addr.port = 9;
    ENetPeer* peer = enet_host_connect(host, &addr, protocol::kChannelCount, 0);
    XRPM_FUZZ_CHECK(peer != nullptr, "enet_host_connect failed");
    enet_peer_on_connect(peer);  // as ENet does when the handshake completes
    peer->state = ENET_PEER_STATE_CONNECTED;
    impl.OnConnect(peer);

    bool proved = false, closed = false;
    fuzz::StreamOp op;
    while (in.Next(&op)) {
      auto* s = static_cast<Session*>(peer->data);
      if (!op.action) {
        ENetPacket* p = enet_packet_create(op.data, op.size, ENET_PACKET_FLAG_RELIABLE);
        impl.OnReceive(peer, p, op.code);
      } else if (op.code == 0) {
        if (s->state == Session::State::kAwaitAuth) {
          wire::Envelope env;
          env.mutable_auth_response()->set_answer(
              protocol::AuthAnswer(key, s->agent_nonce, s->client_nonce));
          std::string bytes = env.SerializeAsString();
          proved = true;
          impl.OnReceive(peer,
                         enet_packet_create(bytes.data(), bytes.size(), ENET_PACKET_FLAG_RELIABLE),
                         protocol::kChannelControl);
        }
      } else if (op.code == 1) {
        impl.next_sample_ns = 0;
        impl.PumpCounters();
      } else if (op.code == 2) {
        impl.CheckHandshakeTimeouts();
      }
      if (!peer->data) {  // a refused peer's slot reclaimed (only if this input ran > 500 ms)
        XRPM_FUZZ_CHECK(closed && impl.controller != peer, "an open session was dropped");
        break;
      }
      const bool active = s->state == Session::State::kActive;
      XRPM_FUZZ_CHECK(active == (impl.controller == peer), "controller and session disagree");
      XRPM_FUZZ_CHECK(!active || o.token.empty() || proved, "in control without the token");
      XRPM_FUZZ_CHECK(!closed || s->state == Session::State::kClosing, "a closed session reopened");
      closed = s->state == Session::State::kClosing;
      XRPM_FUZZ_CHECK(impl.stats.refused <= 1, "a peer refused twice");
      XRPM_FUZZ_CHECK(impl.stats.host_connected == active, "stats.host_connected is stale");
    }
    static const bool trace = std::getenv("XRPM_FUZZ_TRACE") != nullptr;  // seed debugging
    if (trace && peer->data)
      std::fprintf(stderr, "session ended in state %d, refused %llu, capture %s\n",
                   static_cast<int>(static_cast<Session*>(peer->data)->state),
                   static_cast<unsigned long long>(impl.stats.refused),
                   impl.job ? "requested" : "none");
    if (peer->data) impl.OnDisconnect(peer);
    XRPM_FUZZ_CHECK(impl.controller == nullptr && !impl.stats.host_connected,
                    "still in control after the disconnect");
    XRPM_FUZZ_CHECK(peer->data == nullptr, "session leaked");
    enet_peer_reset(peer);  // frees what the agent queued for the peer
    impl.host = nullptr;
  }

  static constexpr char kToken[] = "fuzz-token-0123456789abcdef";
};

}  // namespace xrpm::agent

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xrpm::agent::AgentHarness::Run(data, size);
  return 0;
}
