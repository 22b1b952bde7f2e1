// ctest-labels: cpu_timing threaded
// Hostile peers against an agent that serves a running game (the emulated runtime, game loop at
// 60 fps, in process): wrong protocol version, wrong token answers, garbage, oversized
// messages, commands before the handshake, floods of malformed packets, and connection floods
// while a legitimate host is in control (by peers that never acknowledge their disconnect). Each is
// cut off with the right error code (sent to the peer and as the ENet disconnect data) and logged;
// the world is never stopped for them, the game keeps running, and the legitimate host captures
// normally afterwards. (The frame rate under attack is a figure in docs/RELIABILITY.md, not a test
// assertion.) A refused peer that stalls still gets its DISCONNECT with the code; one that never
// acknowledges loses its slot within a bound.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "hostile_attacks.h"
#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using emulator::GameLoop;
using emulator::LoopConfig;
using emulator::Runtime;
using emulator::RuntimeConfig;

constexpr char kHostileToken[] = "0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f";

struct Game {
  Runtime rt;
  std::unique_ptr<emulator::Scenario> scenario;
  GameLoop loop;
  Game()
      : rt(Config()),
        scenario(emulator::MakeScenario({"bubbles", 5})),
        loop(rt, *scenario, {60, 0}) {
    loop.Setup();
  }
  static RuntimeConfig Config() {
    RuntimeConfig c;
    c.heap_reserve_bytes = 256u << 20;
    return c;
  }
};

TEST(HostilePeers, AreCutOffAndLoggedWhileTheGameRuns) {
  Game g;
  LogSink log;
  agent::AgentOptions opt;
  opt.token = kHostileToken;
  auto agent = StartAgent(g.rt, log, opt);
  ASSERT_TRUE(agent);
  g.loop.Start();
  // Attack in rounds of every kind until the game has played 30 more frames (half a second at
  // 60 fps): it keeps running under a continuous attack. Bounded by the round count.
  const uint64_t frames0 = g.loop.frames();
  const auto t0 = std::chrono::steady_clock::now();
  int peers = 0;
  for (int round = 0; round < 3000 && (round < 2 || g.loop.frames() < frames0 + 30); ++round)
    for (int k = 0; k < kAttackKinds; ++k, ++peers)
      EXPECT_EQ(Attack(agent->port(), k), kAttackAnswers[k]) << "kind " << k;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t frames = g.loop.frames() - frames0;
  const agent::AgentStats st = agent->stats();
  EXPECT_GE(frames, 30u) << "the game ran during the attack";
  EXPECT_EQ(st.refused, static_cast<uint64_t>(peers)) << "each hostile peer refused exactly once";
  EXPECT_EQ(log.WaitCount("refused 127.0.0.1:", peers), static_cast<size_t>(peers)) << log.All();
  EXPECT_EQ(st.captures_completed + st.captures_aborted, 0u) << "nobody got to stop the world";
  std::printf(
      "[ figures  ] %d hostile peers in %.2f s; game: %llu frames (%.1f fps, paced at 60)\n", peers,
      secs, static_cast<unsigned long long>(frames), frames / secs);

  // A legitimate host takes control; a connection flood meanwhile is refused as BUSY. The
  // flooders never acknowledge their disconnect: more of them than the agent has peer slots,
  // so this passes only because refused peers' slots are reclaimed (kRefusedLingerMs after the
  // DISCONNECT left).
  client::ClientOptions o;
  o.endpoint = Endpoint(*agent);
  o.token = kHostileToken;
  client::HostClient c(o);
  ASSERT_TRUE(Connected(c));
  for (int i = 0; i < 40; ++i) {
    // A DISCONNECT the agent still retransmits to an earlier refused peer that had the same
    // ephemeral port can end a fresh connection before the agent said anything to it (see
    // RawPeer::Connect): such a flooder starts again from a new socket, as a host would. Any
    // other ending (a disconnect after a message, no BUSY) fails the test as before.
    std::unique_ptr<RawPeer> p;
    wire::Envelope reply;
    bool busy = false;
    for (int attempt = 0; attempt < 5 && !busy; ++attempt) {
      p = RawPeer::Connect(agent->port());
      ASSERT_TRUE(p) << "flooder " << i << "\n" << log.All();
      busy = p->ReceiveBody(wire::Envelope::kError, &reply);
      if (!busy && !(p->disconnected() && p->received_bytes().empty())) break;
    }
    ASSERT_TRUE(busy) << "flooder " << i << ": disconnected " << p->disconnected() << " (data "
                      << p->disconnect_data() << ") after " << p->received_bytes().size()
                      << " bytes";
    EXPECT_EQ(reply.error().code(), wire::BUSY);
  }
  EXPECT_GE(log.WaitCount("did not acknowledge the disconnect", 1), 1u);
  const client::CaptureResult r = CaptureOnce(c);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.stats.objects, 50u);
  c.Disconnect();
  g.loop.RequestStop();
  g.loop.Join();
  EXPECT_TRUE(g.loop.error().empty()) << g.loop.error();
}

// An agent (peer timeout 60 s, out of the way) and a raw peer that has just sent it garbage
// and been refused; the peer has not serviced its socket since (acknowledged nothing).
struct Refused {
  Game g;
  LogSink log;
  std::unique_ptr<agent::Agent> agent;
  std::unique_ptr<RawPeer> peer;
  std::chrono::steady_clock::time_point sent;
  explicit Refused(uint32_t refused_ack_timeout_ms) {
    agent::AgentOptions opt;
    opt.peer_timeout_ms = 60000;
    opt.refused_ack_timeout_ms = refused_ack_timeout_ms;
    agent = StartAgent(g.rt, log, opt);
    if (agent) peer = RawPeer::Connect(agent->port());
    sent = std::chrono::steady_clock::now();
    if (peer && peer->SendBytes("\x12\x34\xff junk")) log.WaitFor("refused 127.0.0.1");
  }
};

// The agent sends the DISCONNECT (with the code) only once the peer acknowledged the Error. A
// peer whose network thread stalls past the agent's old refusal linger (500 ms from the
// refusal, which reset such peers silently) still gets the code: the linger now counts from
// the DISCONNECT leaving. The refused-ack bound is raised so only that is under test.
TEST(RefusedPeers, AStalledPeerStillGetsTheDisconnectWithTheCode) {
  Refused r(60000);
  ASSERT_TRUE(r.peer);
  ASSERT_FALSE(r.log.WaitFor("refused 127.0.0.1", 0).empty()) << r.log.All();
  // The injected fault: the peer reads (so acknowledges) nothing for three times the old linger.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  wire::Envelope reply;
  ASSERT_TRUE(r.peer->ReceiveBody(wire::Envelope::kError, &reply));
  EXPECT_EQ(reply.error().code(), wire::MALFORMED);
  uint32_t data = 0;
  EXPECT_TRUE(r.peer->WaitDisconnect(20000, &data)) << r.log.All();
  EXPECT_EQ(data, static_cast<uint32_t>(wire::MALFORMED));
  // Once the peer has its DISCONNECT, the agent's slot ends by the peer's acknowledgement or,
  // if that is slow, by the linger; never by the refused-ack bound.
  EXPECT_EQ(r.log.All().find("did not acknowledge the error"), std::string::npos) << r.log.All();
}

// A refused peer that never acknowledges its Error (never services its socket) is reset once
// refused_ack_timeout_ms has passed, not only by the (here much longer) peer timeout.
TEST(RefusedPeers, APeerThatNeverAcknowledgesTheErrorLosesItsSlot) {
  Refused r(1000);
  ASSERT_TRUE(r.peer);
  EXPECT_FALSE(r.log.WaitFor("did not acknowledge the error within 1000 ms", 30000).empty())
      << r.log.All();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - r.sent).count();
  EXPECT_GE(secs, 1.0) << "reset before its refused-ack bound";
  EXPECT_EQ(r.log.All().find("disconnected"), std::string::npos) << "ENet's timeout, not the bound";
}

}  // namespace
}  // namespace xrpm::testing
