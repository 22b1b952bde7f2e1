// ctest-labels: threaded
// The device agent and the host client over 127.0.0.1, against FakeRuntime: handshake, device
// info, counters, captures equal to the heap, consecutive captures, cancel, and the refusals
// (version, token, second host, malformed, oversized, command before hello).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "capture_sink.h"
#include "fake_runtime.h"
#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/client/host_client.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using client::CaptureResult;
using client::CaptureStats;
using client::ClientOptions;
using client::ConnectionState;
using client::HostClient;

ClientOptions Opts(const std::string& endpoint, std::string token = "") {
  ClientOptions o;
  o.endpoint = endpoint;
  o.token = std::move(token);
  o.connect_timeout_ms = 20000;
  return o;
}

// A FakeRuntime served by an agent on a free port, and a host client for it (not connected).
struct Served {
  explicit Served(size_t objects, size_t big_refs = 0, agent::AgentOptions opt = {})
      : rt(objects, big_refs),
        agent(StartAgent(rt, log, std::move(opt))),
        client(Opts(agent ? Endpoint(*agent) : "127.0.0.1:1")) {}
  FakeRuntime rt;
  LogSink log;  // before `agent`, which logs into it
  std::unique_ptr<agent::Agent> agent;
  HostClient client;
};

TEST(AgentClient, HandshakeReportsDevice) {
  FakeRuntime rt(100);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  HostClient c(Opts(Endpoint(*agent)));
  EXPECT_EQ(c.DeviceClockMs(), 0u);  // no device yet
  const auto connecting = std::chrono::steady_clock::now();
  c.Connect();
  std::string error;
  ASSERT_TRUE(c.WaitConnected(20000, &error)) << error;
  const client::DeviceInfo d = c.device();
  // The device's clock now: its clock at the handshake, plus no more than the time since the
  // host began to connect.
  const uint64_t clock = c.DeviceClockMs();
  const auto since_connecting = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - connecting);
  EXPECT_GT(d.boot_ms, 0u);
  EXPECT_GE(clock, d.boot_ms);
  EXPECT_LE(clock, d.boot_ms + static_cast<uint64_t>(since_connecting.count()));
  EXPECT_EQ(d.app_name, "fake.exe");
  EXPECT_EQ(d.runtime_name, "fake runtime");
  EXPECT_EQ(d.pointer_bytes, 4u);
  EXPECT_TRUE(d.big_endian);
  EXPECT_EQ(d.protocol_version, protocol::kProtocolVersion);
  EXPECT_NE(d.capabilities & wire::CAP_HEAP_CAPTURE, 0u);
  EXPECT_FALSE(log.WaitFor("is in control").empty());
  EXPECT_TRUE(agent->stats().host_connected);
}

TEST(AgentClient, CountersArriveWithNamesAtTheRequestedRate) {
  Served s(100);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(s.client));
  s.client.SubscribeCounters(20);
  ASSERT_TRUE(s.client.WaitCounterSamples(5, 20000));
  const auto d = s.client.counters().descriptors();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].category, "Garbage Collector");
  EXPECT_EQ(d[0].name, "Managed Objects Allocated");
  EXPECT_EQ(s.client.counters().interval_ms(), 20u);
  const auto rows = s.client.counters().Since(0);
  ASSERT_GE(rows.size(), 5u);
  EXPECT_GT(rows.back().values[0].total, rows.front().values[0].total);
  EXPECT_GT(rows.back().seq, rows.front().seq);
  EXPECT_EQ(s.client.counters().Find("Classes Loaded"), 2);
}

TEST(AgentClient, CaptureEqualsTheHeapRecordForRecord) {
  Served s(30000, 150000);  // one object's 150k references span several batches
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(s.client));
  const CaptureResult r = CaptureOnce(s.client);
  ASSERT_TRUE(r.ok) << r.error;
  const Snapshot expected = s.rt.Expected();
  EXPECT_EQ(FirstDifference(GclogText(*r.snapshot), GclogText(expected)), "");
  EXPECT_EQ(r.stats.objects, 30000u);
  EXPECT_EQ(r.stats.roots, 13u);
  EXPECT_GT(r.stats.batches, 3u);
  EXPECT_GT(r.stats.agent_peak_bytes, 0u);
  EXPECT_EQ(s.rt.collections(), 1) << "a capture induces one full collection";
  EXPECT_FALSE(s.rt.world_stopped());
  EXPECT_EQ(r.snapshot->source, "capture of fake.exe from " + Endpoint(*s.agent));

  // Root origins: frames name their thread; the repeated frame container shares its origin.
  const Snapshot& snap = *r.snapshot;
  ASSERT_EQ(snap.root_origin.size(), 13u);
  EXPECT_EQ(snap.root_origins[snap.root_origin[1]],
            "thread 0x1 / JIT frame (stack 0x10, method 0x6001)");
  EXPECT_EQ(snap.root_origins[snap.root_origin[4]],
            "thread 0x2 / JIT frame (stack 0x20, method 0x6003)");
  EXPECT_EQ(snap.root_origins[snap.root_origin[5]], "statics of Game.Bubble3");
  EXPECT_EQ(snap.root_origins[snap.root_origin[7]], "GC handle table 0x1");
  EXPECT_EQ(snap.root_origin[12], snap.root_origin[1]);
}

// A runtime that reports a large object's references in parts (ObjectReferencesPart, as the
// .NET port does for a million-element array) gives the same capture as one that reports it
// whole: parts of 1,000 of one object's 150k references, across several batches.
TEST(AgentClient, AnObjectReportedInPartsIsCapturedAsAWholeOne) {
  Served s(30000, 150000);
  s.rt.set_reference_parts(1000);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(s.client));
  const CaptureResult r = CaptureOnce(s.client);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(FirstDifference(GclogText(*r.snapshot), GclogText(s.rt.Expected())), "");
  EXPECT_EQ(r.stats.objects, 30000u);
  EXPECT_GT(r.stats.batches, 3u);
}

// A runtime that breaks an object off after its first part (the next object follows) gets
// the capture refused with what it did, and the game runs on.
TEST(AgentClient, AnObjectBrokenOffBetweenItsPartsFailsTheCapture) {
  Served s(3000, 5000);
  s.rt.set_reference_parts(1000, /*broken=*/true);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(s.client));
  const CaptureResult r = CaptureOnce(s.client);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("broken off after 1000 of its 5000 references"), std::string::npos)
      << r.error;
  EXPECT_FALSE(s.rt.world_stopped());
}

// Buffered captures (the default 256 MiB bound) seal small batches until the capture is large:
// the encoder's buffers, three batches' raw columns, scale with the batch, and a small heap
// must not pay for 64 KiB batches (the csharp shell's 66 k objects). Batches are
// sealed by the encoder's size estimate, not by timing, so their count is exact; a streaming
// capture (4 MiB bound) of the same heap always seals at the small size.
TEST(AgentClient, BatchesStaySmallOnASmallHeapAndGrowOnALargeOne) {
  auto capture = [](size_t objects, size_t limit, CaptureStats* st) {
    agent::AgentOptions opt;
    opt.capture_memory_limit = limit;
    Served s(objects, 0, opt);
    ASSERT_TRUE(s.agent);
    ASSERT_TRUE(Connected(s.client));
    const CaptureResult r = CaptureOnce(s.client);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(FirstDifference(GclogText(*r.snapshot), GclogText(s.rt.Expected())), "");
    *st = r.stats;
  };
  const size_t kBuffered = agent::AgentOptions{}.capture_memory_limit, kStreaming = 4u << 20;
  CaptureStats small, small_streamed, large, large_streamed;
  capture(20000, kBuffered, &small);
  capture(20000, kStreaming, &small_streamed);
  // A small buffered capture: the smallest batches (their buffers dominate its peak); streamed,
  // the streaming size.
  EXPECT_GT(small.batches, small_streamed.batches) << "a small buffered capture: 8 KiB batches";
  EXPECT_LE(small.wire_bytes / small.batches, agent::CaptureSink::kSmallBatchBytes);
  EXPECT_LE(small_streamed.wire_bytes / small_streamed.batches,
            agent::CaptureSink::kStreamingBatchBytes);
  EXPECT_GT(small_streamed.wire_bytes / small_streamed.batches,
            agent::CaptureSink::kSmallBatchBytes / 2);
  // 126 KB on the wire: what is held of it, plus three small batches' columns: 243 KB with
  // 8 KiB batches, 387 KB with 16 KiB ones.
  EXPECT_LE(small.agent_peak_bytes, 320u << 10) << small.agent_peak_bytes;
  // 8 KiB batches for the first 128 k objects, then 64 KiB ones: fewer in all than 16 KiB ones
  // once the heap is a few times the threshold.
  capture(400000, kBuffered, &large);
  capture(400000, kStreaming, &large_streamed);
  EXPECT_EQ(large.objects, 400000u);
  EXPECT_LT(large.batches, large_streamed.batches) << "past 128 k objects, larger batches";
}

TEST(AgentClient, ConsecutiveCapturesAndCancel) {
  Served s(5000);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(s.client));
  const std::string expected = GclogText(s.rt.Expected());
  for (int i = 0; i < 3; ++i) {
    const CaptureResult r = CaptureOnce(s.client);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(FirstDifference(GclogText(*r.snapshot), expected), "");
  }
  // A cancelled capture ends at once on the host; the agent drops it and serves the next one.
  std::string error;
  ASSERT_TRUE(s.client.StartCapture(&error)) << error;
  s.client.CancelCapture();
  CaptureResult cancelled;
  ASSERT_TRUE(s.client.WaitCapture(20000, &cancelled));
  EXPECT_FALSE(cancelled.ok);
  EXPECT_EQ(cancelled.error, "capture cancelled");
  // The agent is busy (CAPTURE_BUSY) until it retired capture 4 and logged its outcome
  // ("stopped", or "done" if the cancel came after the last batch left).
  ASSERT_FALSE(WaitCaptureOutcome(s.log, "4").empty()) << s.log.All();
  const CaptureResult again = CaptureOnce(s.client);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(FirstDifference(GclogText(*again.snapshot), expected), "");
  // The agent counts a capture once its network thread retired it, after the host saw its end.
  ASSERT_FALSE(s.log.WaitFor("capture 5 done", 20000).empty());
  EXPECT_EQ(s.agent->stats().captures_completed + s.agent->stats().captures_aborted, 5u);
}

// The agent remembers its last completed capture across hosts: the next host's Welcome gives
// its sizes, which a host without a capture of its own prepares its columns for. Before any
// capture the Welcome gives the runtime's forecast instead, when it has one.
TEST(AgentClient, TheNextHostsWelcomeGivesTheLastCapturesSizes) {
  Served s(5000);
  ASSERT_TRUE(s.agent);
  {
    auto p = RawPeer::Connect(s.agent->port());
    ASSERT_TRUE(p);
    wire::Envelope welcome;
    ASSERT_TRUE(Handshake(*p, &welcome));
    EXPECT_EQ(welcome.welcome().last_capture_objects(), 0u);  // none yet
    EXPECT_EQ(welcome.welcome().last_capture_refs(), 0u);
    EXPECT_EQ(welcome.welcome().forecast_objects(), 0u);  // nor a forecast from this runtime
    EXPECT_EQ(client::ExpectedSizes({}, welcome.welcome()).objects, 0u);
    p->DisconnectNow();
    ASSERT_EQ(s.log.WaitHostsDisconnected(1), 1u) << s.log.All();
  }
  s.rt.set_forecast(6000, 17000);
  {
    auto p = RawPeer::Connect(s.agent->port());
    ASSERT_TRUE(p);
    wire::Envelope welcome;
    ASSERT_TRUE(Handshake(*p, &welcome));
    EXPECT_EQ(welcome.welcome().last_capture_objects(), 0u);
    EXPECT_EQ(welcome.welcome().forecast_objects(), 6000u);
    EXPECT_EQ(welcome.welcome().forecast_refs(), 17000u);
    const client::CaptureSizes forecast = client::ExpectedSizes({}, welcome.welcome());
    EXPECT_EQ(forecast.objects, 6000u);
    EXPECT_EQ(forecast.refs, 17000u);
    EXPECT_EQ(welcome.welcome().capabilities() & wire::CAP_FIELDS, 0u);
    EXPECT_FALSE(forecast.slots);  // no slot column from an agent that reports no fields
    EXPECT_EQ(forecast.value_bytes, 0u);
    p->DisconnectNow();
    ASSERT_EQ(s.log.WaitHostsDisconnected(2), 2u) << s.log.All();
  }
  ASSERT_TRUE(Connected(s.client));
  const CaptureResult r = CaptureOnce(s.client);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_FALSE(s.log.WaitFor("capture 1 done", 20000).empty());
  s.client.Disconnect();
  ASSERT_EQ(s.log.WaitHostsDisconnected(3), 3u) << s.log.All();
  auto p = RawPeer::Connect(s.agent->port());
  ASSERT_TRUE(p);
  wire::Envelope welcome;
  ASSERT_TRUE(Handshake(*p, &welcome));
  EXPECT_EQ(welcome.welcome().last_capture_objects(), r.snapshot->object_count());
  EXPECT_EQ(welcome.welcome().last_capture_refs(), r.snapshot->ref_count());
  EXPECT_EQ(welcome.welcome().last_capture_fields(), !r.snapshot->fields.ref_slot.empty());
  EXPECT_EQ(welcome.welcome().forecast_objects(), 0u);  // a capture's own sizes, no forecast
  EXPECT_EQ(client::ExpectedSizes({}, welcome.welcome()).objects, r.snapshot->object_count());

  // What the host prepares from it, with no capture of its own, and with one.
  const client::CaptureSizes hinted = client::ExpectedSizes(
      {}, welcome.welcome().last_capture_objects(), welcome.welcome().last_capture_refs(),
      welcome.welcome().last_capture_fields());
  EXPECT_EQ(hinted.objects, r.snapshot->object_count());
  EXPECT_EQ(hinted.refs, r.snapshot->ref_count());
  EXPECT_EQ(hinted.value_bytes, 0u);
  const client::CaptureSizes own{.objects = 7, .refs = 9, .slots = false, .value_bytes = 5};
  const client::CaptureSizes kept = client::ExpectedSizes(own, 1000, 3000, true);
  EXPECT_EQ(kept.objects, 7u);
  EXPECT_EQ(kept.refs, 9u);
  EXPECT_EQ(kept.value_bytes, 5u);
}

TEST(AgentClient, AWelcomesLastCaptureGoesBeforeItsForecast) {
  wire::Welcome w;
  w.set_capabilities(wire::CAP_HEAP_CAPTURE | wire::CAP_FIELDS);
  w.set_forecast_objects(10);
  w.set_forecast_refs(30);
  client::CaptureSizes e = client::ExpectedSizes({}, w);
  EXPECT_EQ(e.objects, 10u);
  EXPECT_EQ(e.refs, 30u);
  EXPECT_TRUE(e.slots);  // the agent reports fields: a slot per reference
  w.set_last_capture_objects(7);
  w.set_last_capture_refs(8);
  e = client::ExpectedSizes({}, w);
  EXPECT_EQ(e.objects, 7u);
  EXPECT_EQ(e.refs, 8u);
  EXPECT_FALSE(e.slots);            // as that capture was: without slots
  w.set_forecast_refs(UINT64_MAX);  // bounded as any hint
  w.set_last_capture_objects(0);
  EXPECT_EQ(client::ExpectedSizes({}, w).refs, 10 * client::kMaxHintRefsPerObject);
  const client::CaptureSizes own{.objects = 3, .refs = 4, .slots = true, .value_bytes = 5};
  EXPECT_EQ(client::ExpectedSizes(own, w).objects, 3u);  // the host's own capture first
}

TEST(AgentClient, AnAgentsSizesHintIsBounded) {
  // An agent's figures are a hint: references are bounded per object, none without objects.
  const client::CaptureSizes big = client::ExpectedSizes({}, 10, UINT64_MAX, true);
  EXPECT_EQ(big.refs, 10 * client::kMaxHintRefsPerObject);
  const client::CaptureSizes huge = client::ExpectedSizes({}, UINT64_MAX, UINT64_MAX, true);
  EXPECT_EQ(huge.refs, UINT64_MAX);  // no overflow; Prepare bounds the objects, refs follow
  const client::CaptureSizes none = client::ExpectedSizes({}, 0, 500, true);
  EXPECT_EQ(none.objects, 0u);
  EXPECT_FALSE(none.slots);
}

// A transfer that never ends by itself (the fake walk repeats the heap until its sink stops it,
// the agent streams it under a 1 MiB bound): the host's cancel must still reach the agent while
// the batches keep coming, and stop the walk there; the agent then serves the next capture.
TEST(AgentClient, ACancelGoesThroughWhileACaptureStreamsIn) {
  agent::AgentOptions opt;
  opt.capture_memory_limit = size_t{1} << 20;  // streaming: the walk waits for the network
  Served s(20000, 0, std::move(opt));
  ASSERT_TRUE(s.agent);
  s.rt.set_endless(true);
  struct EndWalk {  // whatever happens below, the walk ends before the agent is stopped
    FakeRuntime& rt;
    ~EndWalk() { rt.end_endless(); }
  } end_walk{s.rt};
  ASSERT_TRUE(Connected(s.client));
  std::string error;
  ASSERT_TRUE(s.client.StartCapture(&error)) << error;
  // Bounded poll until the host has decoded objects from beyond the heap's own: the stream is
  // under way, and only the cancel can end it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (s.client.capture_progress().objects < 3 * 20000 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_GE(s.client.capture_progress().objects, 3u * 20000) << s.log.All();
  s.client.CancelCapture();
  CaptureResult r;
  ASSERT_TRUE(s.client.WaitCapture(20000, &r));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "capture cancelled");
  const std::string outcome = WaitCaptureOutcome(s.log, "1");
  ASSERT_NE(outcome.find("capture 1 stopped"), std::string::npos) << outcome << "\n" << s.log.All();
  EXPECT_TRUE(s.rt.stopped_by_sink());
  EXPECT_GE(s.rt.endless_objects(), 2u * 20000);
  s.rt.set_endless(false);
  const CaptureResult again = CaptureOnce(s.client);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(FirstDifference(GclogText(*again.snapshot), GclogText(s.rt.Expected())), "");
}

TEST(AgentClient, WorldThatCannotStopAbortsTheCapture) {
  FakeRuntime rt(100);
  rt.set_fail_stop(true);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  HostClient c(Opts(Endpoint(*agent)));
  ASSERT_TRUE(Connected(c));
  const CaptureResult r = CaptureOnce(c);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.incomplete);
  EXPECT_NE(r.error.find("safe point"), std::string::npos) << r.error;
  EXPECT_EQ(c.state(), ConnectionState::kConnected);
}

TEST(AgentClient, VersionMismatchIsRefusedWithAReason) {
  FakeRuntime rt(100);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  auto p = RawPeer::Connect(agent->port());
  ASSERT_TRUE(p);
  wire::Envelope reply;
  EXPECT_FALSE(Handshake(*p, &reply, 99));
  ASSERT_TRUE(reply.has_error());
  EXPECT_EQ(reply.error().code(), wire::VERSION_MISMATCH);
  EXPECT_TRUE(reply.error().fatal());
  EXPECT_NE(reply.error().message().find("speaks 99"), std::string::npos);
  uint32_t data = 0;
  EXPECT_TRUE(p->WaitDisconnect(20000, &data));
  EXPECT_EQ(data, static_cast<uint32_t>(wire::VERSION_MISMATCH));
  EXPECT_FALSE(log.WaitFor("version mismatch").empty()) << log.All();
  // The agent keeps serving.
  HostClient c(Opts(Endpoint(*agent)));
  ASSERT_TRUE(Connected(c));
}

TEST(AgentClient, TokenIsRequiredAndChecked) {
  FakeRuntime rt(100);
  LogSink log;
  agent::AgentOptions opt;
  opt.token = "s3cret";
  auto agent = StartAgent(rt, log, opt);
  ASSERT_TRUE(agent);
  for (const std::string bad : {"", "wrong"}) {
    HostClient c(Opts(Endpoint(*agent), bad));
    c.Connect();
    std::string error;
    EXPECT_FALSE(c.WaitConnected(20000, &error));
    EXPECT_NE(error.find("bad token"), std::string::npos) << error;
    EXPECT_EQ(c.state(), ConnectionState::kFailed);
  }
  EXPECT_FALSE(log.WaitFor("bad token").empty());
  HostClient good(Opts(Endpoint(*agent), "s3cret"));
  good.Connect();
  std::string error;
  EXPECT_TRUE(good.WaitConnected(20000, &error)) << error;
}

TEST(AgentClient, NonLoopbackAddressNeedsAToken) {
  FakeRuntime rt(10);
  agent::AgentOptions opt;
  opt.address = "0.0.0.0";
  opt.port = 0;
  agent::Agent a(rt, opt);
  std::string error;
  EXPECT_FALSE(a.Start(&error));
  EXPECT_NE(error.find("requires a token"), std::string::npos) << error;

  agent::AgentOptions parsed;
  EXPECT_TRUE(agent::ParseListenAddress("0.0.0.0:4600", &parsed, &error));
  EXPECT_EQ(parsed.address, "0.0.0.0");
  EXPECT_EQ(parsed.port, 4600);
  EXPECT_FALSE(agent::ParseListenAddress("host:99999", &parsed, &error));
  EXPECT_NE(error.find("bad port"), std::string::npos) << error;
}

TEST(AgentClient, SecondHostIsRefusedFirstKeepsWorking) {
  FakeRuntime rt(1000);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  HostClient a(Opts(Endpoint(*agent)));
  ASSERT_TRUE(Connected(a));
  HostClient b(Opts(Endpoint(*agent)));
  b.Connect();
  std::string error;
  EXPECT_FALSE(b.WaitConnected(20000, &error));
  EXPECT_NE(error.find("busy"), std::string::npos) << error;
  EXPECT_NE(error.find("another host"), std::string::npos) << error;
  const CaptureResult r = CaptureOnce(a);
  EXPECT_TRUE(r.ok) << r.error;
  // Once the first host leaves, another may take control.
  a.Disconnect();
  EXPECT_FALSE(log.WaitFor("disconnected").empty());
  HostClient c(Opts(Endpoint(*agent)));
  ASSERT_TRUE(Connected(c));
}

struct BadInput {
  const char* name;
  bool hello_first;
  std::string bytes;
  wire::ErrorCode code;
};

// A runtime that knows what its walk will report says so in CaptureBegin, and the host prepares
// for it; a wrong hint costs nothing but the reservation (bounded), never the capture.
TEST(AgentClient, CaptureBeginGivesTheWalksSizesWhenTheRuntimeKnowsThem) {
  Served s(5000);
  ASSERT_TRUE(s.agent);
  auto begin_of_a_capture = [&](wire::CaptureBegin* begin) {
    auto p = RawPeer::Connect(s.agent->port());
    ASSERT_TRUE(p);
    wire::Envelope welcome, request, reply;
    ASSERT_TRUE(Handshake(*p, &welcome));
    request.mutable_capture_request()->set_request_id(1);
    ASSERT_TRUE(p->Send(request));
    ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kCaptureBegin, &reply));
    *begin = reply.capture_begin();
    p->DisconnectNow();
  };
  // Each raw host leaves mid-capture: the next one waits until the agent saw it go and retired
  // its capture (a capture still closing would refuse the next request as busy).
  wire::CaptureBegin begin;
  begin_of_a_capture(&begin);
  EXPECT_EQ(begin.expected_objects(), 0u);  // this runtime does not know
  EXPECT_EQ(begin.expected_refs(), 0u);
  ASSERT_EQ(s.log.WaitHostsDisconnected(1), 1u) << s.log.All();
  ASSERT_TRUE(s.log.WaitCaptureRetired(1)) << s.log.All();

  const Snapshot truth = s.rt.Expected();
  s.rt.set_walk_sizes(truth.object_count(), truth.ref_count());
  begin_of_a_capture(&begin);
  EXPECT_EQ(begin.expected_objects(), truth.object_count());
  EXPECT_EQ(begin.expected_refs(), truth.ref_count());
  ASSERT_EQ(s.log.WaitHostsDisconnected(2), 2u) << s.log.All();
  ASSERT_TRUE(s.log.WaitCaptureRetired(2)) << s.log.All();

  // A host with no forecast of its own takes them; true or wildly wrong, the capture is the
  // heap's.
  // (The bound: references at 64 per object, everything at half of MemAvailable.)
  const std::pair<uint64_t, uint64_t> hints[] = {{truth.object_count(), truth.ref_count()},
                                                 {20 * truth.object_count(), uint64_t{1} << 50},
                                                 {1, uint64_t{1} << 60}};
  for (const auto& [objects, refs] : hints) {
    s.rt.set_walk_sizes(objects, refs);
    HostClient c(Opts(Endpoint(*s.agent)));
    ASSERT_TRUE(Connected(c));
    const CaptureResult r = CaptureOnce(c);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.snapshot->object_count(), truth.object_count());
    EXPECT_EQ(r.snapshot->refs, truth.refs);
  }
}

TEST(AgentClient, MalformedOversizedAndPrematureMessagesAreRefused) {
  FakeRuntime rt(1000);
  LogSink log;
  auto agent = StartAgent(rt, log);
  ASSERT_TRUE(agent);
  wire::Envelope capture;
  capture.mutable_capture_request()->set_request_id(1);
  const BadInput cases[] = {
      {"garbage", false, std::string("\xff\xff\xff\xff garbage", 13), wire::MALFORMED},
      {"garbage after hello", true, std::string("\x0a\xff\xff\xff\xff\x0f", 6), wire::MALFORMED},
      {"oversized", true, std::string(protocol::kMaxHostMessageBytes + 1, '\0'), wire::TOO_LARGE},
      {"command before hello", false, capture.SerializeAsString(), wire::NOT_AUTHENTICATED},
      {"empty", true, std::string(), wire::MALFORMED},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = RawPeer::Connect(agent->port());
    ASSERT_TRUE(p);
    wire::Envelope reply;
    if (c.hello_first) {
      ASSERT_TRUE(Handshake(*p, &reply));
    }
    ASSERT_TRUE(p->SendBytes(c.bytes));
    ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kError, &reply));
    EXPECT_EQ(reply.error().code(), c.code) << reply.error().message();
    EXPECT_TRUE(reply.error().fatal());
    uint32_t data = 0;
    EXPECT_TRUE(p->WaitDisconnect(20000, &data));
    EXPECT_EQ(data, static_cast<uint32_t>(c.code));
  }
  EXPECT_FALSE(log.WaitFor("too large").empty()) << log.All();
  // The agent (and its runtime) keep going.
  HostClient ok(Opts(Endpoint(*agent)));
  ASSERT_TRUE(Connected(ok));
  EXPECT_TRUE(CaptureOnce(ok).ok);
}

TEST(AgentClient, SecondCaptureRequestWhileRunningIsBusyNotFatal) {
  FakeRuntime rt(200000);
  LogSink log;
  agent::AgentOptions opt;
  opt.capture_memory_limit = 1 << 20;  // the walk waits for this peer, which reads slowly
  auto agent = StartAgent(rt, log, opt);
  ASSERT_TRUE(agent);
  auto p = RawPeer::Connect(agent->port());
  ASSERT_TRUE(p);
  wire::Envelope reply;
  ASSERT_TRUE(Handshake(*p, &reply));
  wire::Envelope req;
  req.mutable_capture_request()->set_request_id(1);
  ASSERT_TRUE(p->Send(req));
  ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kCaptureBegin, &reply));
  req.mutable_capture_request()->set_request_id(2);
  ASSERT_TRUE(p->Send(req));
  ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kError, &reply, 10000));
  EXPECT_EQ(reply.error().code(), wire::CAPTURE_BUSY);
  EXPECT_FALSE(reply.error().fatal());
  ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kCaptureEnd, &reply, 20000));
  EXPECT_EQ(reply.capture_end().object_count(), 200000u);
  EXPECT_FALSE(p->disconnected());
}

}  // namespace
}  // namespace xrpm::testing
