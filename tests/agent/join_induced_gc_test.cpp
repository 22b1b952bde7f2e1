// A capture that joins another tool's collection (CaptureRequest.join_induced_gc_ms,
// `xrpm capture --join-induced-gc`) through the real agent and host client over 127.0.0.1: a
// runtime that can join is asked to join (not to collect) with the host's time limit and
// advertises CAP_JOIN_INDUCED_GC; one that cannot is refused by the host client before asking
// and, asked anyway by a raw host, answers BAD_REQUEST, and the session goes on; a time limit
// over the wire's bound is refused.
#include <gtest/gtest.h>

#include <atomic>

#include "fake_runtime.h"
#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {
namespace {

// FakeRuntime that joins: it records the call instead of collecting, then walks as usual.
class JoiningRuntime : public FakeRuntime {
 public:
  JoiningRuntime() : FakeRuntime(200) {}
  bool JoinsInducedCollections() const override { return true; }
  void JoinInducedCollection(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled) override {
    joins.fetch_add(1);
    last_timeout_ms.store(timeout_ms);
    had_cancel_flag.store(cancelled != nullptr);
  }
  std::atomic<int> joins{0};
  std::atomic<uint32_t> last_timeout_ms{0};
  std::atomic<bool> had_cancel_flag{false};
};

// A raw host's capture request with join_induced_gc_ms = ms: the agent's error ("" if none).
std::string RawJoinRefusal(uint16_t port, uint32_t ms) {
  auto raw = RawPeer::Connect(port);
  if (!raw) return "no connection";
  wire::Envelope welcome;
  if (!Handshake(*raw, &welcome)) return "no handshake";
  wire::Envelope req;
  req.mutable_capture_request()->set_request_id(7);
  req.mutable_capture_request()->set_join_induced_gc_ms(ms);
  if (!raw->Send(req)) return "not sent";
  wire::Envelope err;
  if (!raw->ReceiveBody(wire::Envelope::kError, &err)) return "";
  EXPECT_EQ(err.error().code(), wire::BAD_REQUEST);
  EXPECT_FALSE(err.error().fatal());
  raw->DisconnectNow();
  return err.error().message();
}

TEST(JoinInducedGc, AJoiningRuntimeIsAskedToJoinWithTheHostsTimeLimitAndNotToCollect) {
  JoiningRuntime rt;
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  client::HostClient c({Endpoint(*agent)});
  ASSERT_TRUE(Connected(c));
  EXPECT_TRUE(c.device().capabilities & wire::CAP_JOIN_INDUCED_GC);
  client::CaptureOptions o;
  o.join_induced_gc_ms = 4321;
  std::string error;
  ASSERT_TRUE(c.StartCapture(&error, o)) << error;
  client::CaptureResult r;
  ASSERT_TRUE(c.WaitCapture(60000, &r));
  EXPECT_TRUE(r.ok) << r.error << log.All();
  EXPECT_EQ(rt.joins.load(), 1);
  EXPECT_EQ(rt.last_timeout_ms.load(), 4321u);
  EXPECT_TRUE(rt.had_cancel_flag.load());
  EXPECT_EQ(rt.collections(), 0) << "a joined capture induces no collection";
  // A capture without the option collects as before.
  ASSERT_TRUE(c.StartCapture(&error)) << error;
  ASSERT_TRUE(c.WaitCapture(60000, &r));
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(rt.joins.load(), 1);
  EXPECT_EQ(rt.collections(), 1);
  c.Disconnect();
  ASSERT_EQ(log.WaitHostsDisconnected(1), 1u) << log.All();
  // The agent is free once its service thread has retired the job, right after this line (the
  // host sees the capture's end before that thread returns).
  ASSERT_TRUE(log.WaitCaptureRetired(2)) << log.All();

  const std::string over = RawJoinRefusal(agent->port(), protocol::kMaxJoinInducedGcMs + 1);
  EXPECT_NE(over.find("over the limit of 3600000"), std::string::npos) << over;
}

TEST(JoinInducedGc, ARuntimeThatCannotJoinIsRefusedByTheHostAndByTheAgent) {
  FakeRuntime rt(200);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  {
    client::HostClient c({Endpoint(*agent)});
    ASSERT_TRUE(Connected(c));
    EXPECT_FALSE(c.device().capabilities & wire::CAP_JOIN_INDUCED_GC);
    client::CaptureOptions o;
    o.join_induced_gc_ms = 1000;
    std::string error;
    EXPECT_FALSE(c.StartCapture(&error, o));
    EXPECT_NE(error.find("cannot join another tool's collection"), std::string::npos) << error;
    // The session goes on.
    ASSERT_TRUE(c.StartCapture(&error)) << error;
    client::CaptureResult r;
    ASSERT_TRUE(c.WaitCapture(60000, &r));
    EXPECT_TRUE(r.ok) << r.error;
    c.Disconnect();
  }
  ASSERT_EQ(log.WaitHostsDisconnected(1), 1u) << log.All();
  ASSERT_TRUE(log.WaitCaptureRetired(1)) << log.All();  // the job retired
  const std::string refused = RawJoinRefusal(agent->port(), 1000);
  EXPECT_NE(refused.find("this runtime cannot join another tool's collection"), std::string::npos)
      << refused;
  EXPECT_EQ(rt.collections(), 1);
}

}  // namespace
}  // namespace xrpm::testing
