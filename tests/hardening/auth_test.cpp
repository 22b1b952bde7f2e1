// ctest-labels: cpu_timing threaded
// Token authentication (protocol 2, protocol/auth.h): the token never crosses the wire, a
// recorded answer cannot be replayed, refusals are clear on both sides, the handshake state
// machine refuses out-of-order messages, and a LAN-facing agent serves only token holders.
// (tests/agent/agent_client_test.cpp already covers right/wrong/missing token through
// HostClient and the start-time refusal of a LAN address without a token.)
#include <gtest/gtest.h>

#include "fake_runtime.h"
#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using client::ConnectionState;
using client::HostClient;

constexpr char kToken[] = "7f3a9c1e5b2d8f60a4c7e19b3d5f7a2c";

client::ClientOptions AuthOpts(const agent::Agent& a, std::string token) {
  client::ClientOptions o;
  o.endpoint = Endpoint(a);
  o.token = std::move(token);
  return o;
}

// An agent on 127.0.0.1 that requires kToken.
std::unique_ptr<agent::Agent> TokenAgent(FakeRuntime& rt, LogSink& log,
                                         agent::AgentOptions opt = {}) {
  opt.token = kToken;
  return StartAgent(rt, log, opt);
}

wire::Envelope HelloWith(const std::string& nonce) {
  wire::Envelope h;
  h.mutable_hello()->set_protocol_version(protocol::kProtocolVersion);
  h.mutable_hello()->set_client_name("auth test");
  h.mutable_hello()->set_client_nonce(nonce);
  return h;
}

wire::Envelope Answer(const std::string& answer) {
  wire::Envelope a;
  a.mutable_auth_response()->set_answer(answer);
  return a;
}

// Expects a fatal Error with `code` whose message contains `text`, then the disconnect.
void ExpectRefused(RawPeer& p, wire::ErrorCode code, const std::string& text) {
  wire::Envelope reply;
  ASSERT_TRUE(p.ReceiveBody(wire::Envelope::kError, &reply));
  EXPECT_EQ(reply.error().code(), code) << reply.error().message();
  EXPECT_TRUE(reply.error().fatal());
  EXPECT_NE(reply.error().message().find(text), std::string::npos) << reply.error().message();
  uint32_t data = 0;
  EXPECT_TRUE(p.WaitDisconnect(20000, &data));
  EXPECT_EQ(data, static_cast<uint32_t>(code));
}

TEST(Auth, AnswerIsAMacOfBothNoncesAndDependsOnEachInput) {
  ASSERT_TRUE(protocol::AuthInit());
  const protocol::AuthKey k = protocol::DeriveAuthKey(kToken);
  const std::string a = protocol::AuthNonce(), c = protocol::AuthNonce();
  ASSERT_EQ(a.size(), protocol::kAuthNonceBytes);
  EXPECT_NE(a, c);
  const std::string ans = protocol::AuthAnswer(k, a, c);
  ASSERT_EQ(ans.size(), protocol::kAuthAnswerBytes);
  EXPECT_TRUE(protocol::AuthVerify(k, a, c, ans));
  EXPECT_FALSE(protocol::AuthVerify(protocol::DeriveAuthKey("other"), a, c, ans));
  EXPECT_FALSE(protocol::AuthVerify(k, c, a, ans)) << "nonces are not interchangeable";
  EXPECT_FALSE(protocol::AuthVerify(k, a, c, ans.substr(1)));
  EXPECT_FALSE(protocol::AuthVerify(k, a, c, ""));
  std::string flipped = ans;
  flipped[31] ^= 1;
  EXPECT_FALSE(protocol::AuthVerify(k, a, c, flipped));
}

TEST(Auth, TokenNeverCrossesTheWire) {
  // The host talks to a hand-driven agent that records every byte it receives.
  auto agent = RawPeer::Listen();
  client::ClientOptions o;
  o.endpoint = "127.0.0.1:" + std::to_string(agent->port());
  o.token = kToken;
  HostClient c(o);
  c.Connect();
  ASSERT_TRUE(agent->Accept());
  wire::Envelope hello, response;
  ASSERT_TRUE(agent->ReceiveBody(wire::Envelope::kHello, &hello));
  const std::string nonce = hello.hello().client_nonce();
  EXPECT_EQ(nonce.size(), protocol::kAuthNonceBytes);
  wire::Envelope challenge;
  const std::string agent_nonce = protocol::AuthNonce();
  challenge.mutable_auth_challenge()->set_agent_nonce(agent_nonce);
  ASSERT_TRUE(agent->Send(challenge));
  ASSERT_TRUE(agent->ReceiveBody(wire::Envelope::kAuthResponse, &response));
  const std::string& wire_bytes = agent->received_bytes();  // every packet, parsed or not
  EXPECT_FALSE(wire_bytes.empty());
  EXPECT_EQ(wire_bytes.find(kToken), std::string::npos);
  EXPECT_EQ(wire_bytes.find(std::string(kToken).substr(0, 8)), std::string::npos);
  EXPECT_EQ(response.auth_response().answer(),
            protocol::AuthAnswer(protocol::DeriveAuthKey(kToken), agent_nonce, nonce));
  c.Disconnect();
}

TEST(Auth, ReplayedAnswerIsRefused) {
  FakeRuntime rt(100);
  LogSink log;
  auto agent = TokenAgent(rt, log);
  ASSERT_TRUE(agent);
  // An eavesdropper records a whole successful handshake...
  const std::string client_nonce = protocol::AuthNonce();
  std::string recorded_answer, first_challenge;
  {
    auto p = RawPeer::Connect(agent->port());
    ASSERT_TRUE(p);
    wire::Envelope m;
    ASSERT_TRUE(p->Send(HelloWith(client_nonce)));
    ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kAuthChallenge, &m));
    first_challenge = m.auth_challenge().agent_nonce();
    recorded_answer =
        protocol::AuthAnswer(protocol::DeriveAuthKey(kToken), first_challenge, client_nonce);
    ASSERT_TRUE(p->Send(Answer(recorded_answer)));
    ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kWelcome, &m));
    p->DisconnectNow();
  }
  ASSERT_FALSE(log.WaitFor("disconnected").empty()) << log.All();
  // ... and replays it byte for byte in a new connection: the agent's nonce has changed.
  auto p = RawPeer::Connect(agent->port());
  ASSERT_TRUE(p);
  wire::Envelope m;
  ASSERT_TRUE(p->Send(HelloWith(client_nonce)));
  ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kAuthChallenge, &m));
  EXPECT_NE(m.auth_challenge().agent_nonce(), first_challenge);
  ASSERT_TRUE(p->Send(Answer(recorded_answer)));
  ExpectRefused(*p, wire::BAD_TOKEN, "does not match");
  EXPECT_FALSE(log.WaitFor("bad token: the token does not match").empty()) << log.All();
  EXPECT_FALSE(agent->stats().host_connected);
}

TEST(Auth, RefusalsSayWhyOnBothSides) {
  FakeRuntime rt(100);
  LogSink log;
  auto agent = TokenAgent(rt, log);
  ASSERT_TRUE(agent);
  struct Case {
    const char* token;
    const char* why;
  };
  for (const Case& k : {Case{"", "requires a token"}, Case{"wrong", "does not match"}}) {
    SCOPED_TRACE(k.token);
    HostClient c(AuthOpts(*agent, k.token));
    c.Connect();
    std::string error;
    EXPECT_FALSE(c.WaitConnected(20000, &error));
    EXPECT_EQ(c.state(), ConnectionState::kFailed);
    EXPECT_NE(error.find("refused the connection: bad token: "), std::string::npos) << error;
    EXPECT_NE(error.find(k.why), std::string::npos) << error;
    const std::string line = log.WaitFor(k.why);
    EXPECT_NE(line.find("refused 127.0.0.1:"), std::string::npos) << log.All();
    EXPECT_NE(line.find("bad token"), std::string::npos) << log.All();
  }
  EXPECT_EQ(agent->stats().refused, 2u);
  HostClient good(AuthOpts(*agent, kToken));
  ASSERT_TRUE(Connected(good));
  EXPECT_FALSE(log.WaitFor("(token verified)").empty()) << log.All();
}

TEST(Auth, HandshakeRefusesOutOfOrderAndMalformedMessages) {
  FakeRuntime rt(100);
  LogSink log, quick_log;
  // Every case but "no answer" must be refused for what it sent, never for a late answer: a
  // handshake timeout far above any stall of a loaded (TSan) machine. "No answer" has its own
  // agent with a 300 ms timeout.
  agent::AgentOptions opt;
  opt.handshake_timeout_ms = 30000;
  auto agent = TokenAgent(rt, log, opt);
  ASSERT_TRUE(agent);
  opt.handshake_timeout_ms = 300;
  auto quick = TokenAgent(rt, quick_log, opt);
  ASSERT_TRUE(quick);
  wire::Envelope capture;
  capture.mutable_capture_request()->set_request_id(1);
  {
    SCOPED_TRACE("answer before hello");
    auto p = RawPeer::Connect(agent->port());
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->Send(Answer(std::string(32, 'x'))));
    ExpectRefused(*p, wire::NOT_AUTHENTICATED, "expected hello first");
  }
  {
    SCOPED_TRACE("short nonce");
    auto p = RawPeer::Connect(agent->port());
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->Send(HelloWith("abc")));
    ExpectRefused(*p, wire::MALFORMED, "client nonce of 3 bytes");
  }
  // After the challenge: a command, a second Hello, or silence instead of the answer.
  struct AfterChallenge {
    const char* name;
    bool send;  // false: silence, to the 300 ms agent
    wire::Envelope instead;
    wire::ErrorCode code;
    const char* why;
  };
  const AfterChallenge cases[] = {
      {"command", true, capture, wire::NOT_AUTHENTICATED, "expected auth_response"},
      {"second hello", true, HelloWith(protocol::AuthNonce()), wire::NOT_AUTHENTICATED,
       "expected auth_response"},
      {"no answer", false, {}, wire::TIMEOUT, "no auth_response within 300 ms"},
  };
  for (const AfterChallenge& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = RawPeer::Connect(c.send ? agent->port() : quick->port());
    ASSERT_TRUE(p);
    wire::Envelope m;
    ASSERT_TRUE(p->Send(HelloWith(protocol::AuthNonce())));
    ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kAuthChallenge, &m));
    if (c.send) {
      ASSERT_TRUE(p->Send(c.instead));
    }
    ExpectRefused(*p, c.code, c.why);
  }
  {
    SCOPED_TRACE("answer to an agent without a token");
    FakeRuntime rt2(10);
    LogSink log2;
    auto open = StartAgent(rt2, log2);
    auto p = RawPeer::Connect(open->port());
    wire::Envelope m;
    ASSERT_TRUE(Handshake(*p, &m));
    ASSERT_TRUE(p->Send(Answer(std::string(32, 'x'))));
    ExpectRefused(*p, wire::MALFORMED, "unexpected auth_response");
  }
  EXPECT_EQ(agent->stats().refused, 4u);
  EXPECT_EQ(quick->stats().refused, 1u);
  EXPECT_FALSE(agent->stats().host_connected);
}

TEST(Auth, LanFacingAgentServesOnlyTokenHolders) {
  // Bound to every interface (the LAN case) with a token; reached here through 127.0.0.1.
  FakeRuntime rt(1000);
  LogSink log;
  agent::AgentOptions opt;
  opt.address = "0.0.0.0";
  opt.port = 0;
  opt.token = kToken;
  opt.log = log.fn();
  agent::Agent a(rt, opt);
  std::string error;
  ASSERT_TRUE(a.Start(&error)) << error;
  EXPECT_FALSE(log.WaitFor("(token required)").empty()) << log.All();
  client::ClientOptions o;
  o.endpoint = "127.0.0.1:" + std::to_string(a.port());
  {
    HostClient stranger(o);
    stranger.Connect();
    EXPECT_FALSE(stranger.WaitConnected(20000, &error));
    EXPECT_NE(error.find("requires a token"), std::string::npos) << error;
  }
  o.token = kToken;
  HostClient c(o);
  ASSERT_TRUE(Connected(c));
  const client::CaptureResult r = CaptureOnce(c);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(FirstDifference(GclogText(*r.snapshot), GclogText(rt.Expected())), "");
}

TEST(Auth, HostWithATokenStillConnectsToALoopbackAgentWithout) {
  FakeRuntime rt(100);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  HostClient c(AuthOpts(*agent, kToken));
  ASSERT_TRUE(Connected(c));
  HostClient none(AuthOpts(*agent, ""));
  c.Disconnect();
  ASSERT_FALSE(log.WaitFor("disconnected").empty());
  ASSERT_TRUE(Connected(none));
}

}  // namespace
}  // namespace xrpm::testing
