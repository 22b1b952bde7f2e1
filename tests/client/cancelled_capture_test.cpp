// The host client's handling of a cancelled capture's late messages, driven without sockets (as
// the client_messages fuzz target is): a capture cancelled before its CaptureBegin ends on the
// agent with a CaptureAbort alone, and when that arrives after the next capture was requested
// it belongs to the cancelled request, not to the running capture.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "host_client_impl.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::client {

// Drives HostClient::Impl without sockets (its sends are dropped); a friend of HostClient.
class ClientHarness {
 public:
  ClientHarness() : m_(Options()) {}
  static ClientOptions Options() {
    ClientOptions o;
    o.endpoint = "127.0.0.1:9";
    return o;
  }
  void Handshake() {
    m_.state = ConnectionState::kConnecting;
    m_.connected_at = m_.connect_started = Clock::now();
    wire::Envelope env;
    env.mutable_welcome()->set_protocol_version(protocol::kProtocolVersion);
    env.mutable_welcome()->set_agent_name("test agent");
    m_.Dispatch(env, 16);
  }
  bool connected() const { return m_.state == ConnectionState::kConnected; }
  uint32_t Request() {  // as HostClient::StartCapture does; the request's id
    m_.capture_active = true;
    m_.result.reset();
    m_.commands.push_back(CmdCapture{});
    m_.ExecuteCommands();
    return m_.request_id;
  }
  void Cancel() {
    m_.commands.push_back(CmdCancel{});
    m_.ExecuteCommands();
  }
  void Abort(uint32_t capture_id, uint32_t request_id) {
    wire::Envelope env;
    wire::CaptureAbort* a = env.mutable_capture_abort();
    a->set_capture_id(capture_id);
    a->set_request_id(request_id);
    a->set_reason("cancelled by the host");
    m_.Dispatch(env, 32);
  }
  bool capture_active() const { return m_.capture_active; }
  const std::optional<CaptureResult>& result() const { return m_.result; }

 private:
  HostClient::Impl m_;
};

namespace {

TEST(CancelledCapture, ALateAbortOfTheCancelledRequestLeavesTheNextCaptureRunning) {
  ClientHarness h;
  h.Handshake();
  ASSERT_TRUE(h.connected());
  const uint32_t cancelled_request = h.Request();
  h.Cancel();
  ASSERT_TRUE(h.result().has_value());
  EXPECT_EQ(h.result()->error, "capture cancelled");
  const uint32_t next_request = h.Request();  // before the agent's abort of capture 1 arrived
  ASSERT_NE(next_request, cancelled_request);
  h.Abort(1, cancelled_request);
  EXPECT_TRUE(h.capture_active()) << "the running capture took the cancelled one's abort";
  EXPECT_FALSE(h.result().has_value());
  // The running capture's own abort still ends it.
  h.Abort(2, next_request);
  EXPECT_FALSE(h.capture_active());
  ASSERT_TRUE(h.result().has_value());
  EXPECT_NE(h.result()->error.find("the agent aborted capture 2"), std::string::npos)
      << h.result()->error;
}

}  // namespace
}  // namespace xrpm::client
