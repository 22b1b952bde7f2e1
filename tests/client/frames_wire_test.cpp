// ctest-labels: cpu_timing threaded
// Frames and allocation samples over 127.0.0.1: the real emulated runtime and its game thread,
// the agent, and the host client (or a raw peer that misbehaves): the series arrives in order
// with its stacks, bad requests are refused with a clear error and the session goes on, and a
// host that stops reading costs the game nothing (the ring stays bounded, records are dropped
// and counted, the game keeps running); the game's markers, capture requests and scope tags
// reach the host.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct Device {
  explicit Device(double fps, uint64_t max_frames = 0) {
    emulator::RuntimeConfig c;
    c.heap_reserve_bytes = 256u << 20;
    rt = std::make_unique<emulator::Runtime>(c);
    emulator::ScenarioParams p;
    sc = emulator::MakeScenario(p);
    loop = std::make_unique<emulator::GameLoop>(*rt, *sc, emulator::LoopConfig{fps, max_frames});
    loop->Setup();
  }
  ~Device() {
    loop.reset();  // stops and joins the game thread before the runtime goes
  }
  std::unique_ptr<emulator::Runtime> rt;
  std::unique_ptr<emulator::Scenario> sc;
  std::unique_ptr<emulator::GameLoop> loop;
};

// Waits (bounded) until pred() holds, checking every few ms.
template <class P>
bool WaitUntil(P pred, uint32_t timeout_ms) {
  const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!pred()) {
    if (Clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(FramesWire, StreamsConsecutiveFramesWithInternedStacks) {
  Device d(60);
  LogSink log;
  auto agent = StartAgent(*d.rt, log);
  ASSERT_TRUE(agent);
  d.loop->Start();
  client::HostClient c({Endpoint(*agent)});
  ASSERT_TRUE(Connected(c));
  EXPECT_TRUE(c.device().capabilities & wire::CAP_FRAMES);
  c.SubscribeFrames(1024);  // bubbles allocates ~2 KB a frame: a sample every frame or so
  ASSERT_TRUE(c.WaitFrames(60, 20000)) << c.frames_status().error << log.All();
  const client::FramesStatus st = c.frames_status();
  EXPECT_TRUE(st.started);
  EXPECT_EQ(st.sample_bytes, 1024u);
  EXPECT_EQ(st.frame_totals, FrameTotals::kExact) << "the emulator counts every allocation";
  FrameRecording r;
  c.TakeFrames(&r);
  ASSERT_GE(r.frames.size(), 60u);
  EXPECT_EQ(r.frame_totals, FrameTotals::kExact);
  for (size_t i = 1; i < r.frames.size(); ++i)
    ASSERT_EQ(r.frames[i].frame, r.frames[i - 1].frame + 1) << "no gap, no reordering";
  EXPECT_EQ(r.dropped_records, 0u);
  EXPECT_GT(r.samples.size(), 0u);
  for (const auto& s : r.samples) {
    ASSERT_GE(s.stack, 1u);
    ASSERT_LE(s.stack, r.stacks.size());
    ASSERT_GE(s.type, 1u);
  }
  const auto p = analysis::BuildAllocationProfile(r);
  EXPECT_GT(p.total.bytes, 0);
  bool update = false;
  for (const auto& m : p.by_method) update |= m.method == "Bubbles.Game1.Update";
  EXPECT_TRUE(update);

  // More arrives and is appended to the same recording.
  const uint64_t had = r.frames.size();
  ASSERT_TRUE(c.WaitFrames(had + 30, 20000));
  c.TakeFrames(&r);
  EXPECT_GE(r.frames.size(), had + 30);
  // A resubscription starts a fresh recording (new stack table, frames from now).
  c.SubscribeFrames(4096);
  ASSERT_TRUE(c.WaitFrames(10, 20000));
  c.TakeFrames(&r);
  EXPECT_EQ(r.sample_bytes, 4096u);
  EXPECT_LT(r.frames.size(), had + 30);
  d.loop->RequestStop();
  d.loop->Join();
}

TEST(FramesWire, RefusesZeroAndHugeSampleIntervalsWithAClearError) {
  Device d(60);
  LogSink log;
  auto agent = StartAgent(*d.rt, log);
  ASSERT_TRUE(agent);
  d.loop->Start();

  // Zero, as a raw host sends it.
  auto raw = RawPeer::Connect(agent->port());
  ASSERT_TRUE(raw);
  wire::Envelope welcome;
  ASSERT_TRUE(Handshake(*raw, &welcome));
  wire::Envelope req;
  req.mutable_subscribe_frames()->set_enable(true);
  req.mutable_subscribe_frames()->set_sample_bytes(0);
  ASSERT_TRUE(raw->Send(req));
  wire::Envelope err;
  ASSERT_TRUE(raw->ReceiveBody(wire::Envelope::kError, &err));
  EXPECT_EQ(err.error().code(), wire::BAD_REQUEST);
  EXPECT_FALSE(err.error().fatal());
  EXPECT_EQ(err.error().refused_body(), uint32_t{wire::Envelope::kSubscribeFrames});
  EXPECT_NE(err.error().message().find("sample interval of 0 bytes is out of range"),
            std::string::npos)
      << err.error().message();
  raw->DisconnectNow();
  ASSERT_TRUE(WaitUntil([&] { return !agent->stats().host_connected; }, 20000));

  // Huge, through the host client: refused, said why, and the session goes on.
  client::HostClient c({Endpoint(*agent)});
  ASSERT_TRUE(Connected(c));
  c.SubscribeFrames(1u << 31);
  EXPECT_FALSE(c.WaitFrames(1, 10000));
  const std::string e = c.frames_status().error;
  EXPECT_NE(e.find("bad request"), std::string::npos) << e;
  EXPECT_NE(e.find("2147483648 bytes is out of range: expected 64..67108864"), std::string::npos)
      << e;
  EXPECT_EQ(c.state(), client::ConnectionState::kConnected);
  c.SubscribeFrames(protocol::kDefaultSampleBytes);
  EXPECT_TRUE(c.WaitFrames(5, 20000)) << c.frames_status().error;
  d.loop->RequestStop();
  d.loop->Join();
}

TEST(FramesWire, AHostThatStopsReadingCostsTheGameNothing) {
  Device d(60);
  LogSink log;
  agent::AgentOptions opt;
  opt.peer_timeout_ms = 60000;   // the stalled host must stay connected for the test
  opt.frame_ring_records = 256;  // small bounds, reached within a second
  opt.frames_unacked_limit = 16 * 1024;
  auto agent = StartAgent(*d.rt, log, opt);
  ASSERT_TRUE(agent);
  d.loop->Start();
  auto raw = RawPeer::Connect(agent->port());
  ASSERT_TRUE(raw);
  wire::Envelope welcome;
  ASSERT_TRUE(Handshake(*raw, &welcome));
  wire::Envelope req;
  req.mutable_subscribe_frames()->set_enable(true);
  req.mutable_subscribe_frames()->set_sample_bytes(protocol::kMinSampleBytes);  // the most data
  req.mutable_subscribe_frames()->set_subscription(1);
  ASSERT_TRUE(raw->Send(req));
  wire::Envelope started;
  ASSERT_TRUE(raw->ReceiveBody(wire::Envelope::kFramesStarted, &started));
  const uint32_t ring = started.frames_started().ring_records();

  // The host stops servicing its socket: nothing is acknowledged from now on.
  ASSERT_TRUE(WaitUntil([&] { return agent->stats().frame_records_dropped > 4 * ring; }, 30000))
      << log.All();
  // The game is not held up by the silent host: it plays 60 more frames with the ring full and
  // the host still silent (a game blocked behind the host would not). Its frame rate over the
  // wall clock is not asserted: on a loaded machine that measures the machine, not the agent.
  const uint64_t at_drop = d.loop->frames();
  const uint64_t dropped_at_drop = agent->stats().frame_records_dropped;
  ASSERT_TRUE(WaitUntil([&] { return d.loop->frames() >= at_drop + 60; }, 30000))
      << "the game stalled behind a silent host";
  // Their records went into the full ring, which dropped (and counted) as many older ones.
  EXPECT_TRUE(WaitUntil(
      [&] { return agent->stats().frame_records_dropped >= dropped_at_drop + 60; }, 30000));
  const agent::AgentStats s = agent->stats();
  EXPECT_TRUE(s.frames_subscribed);
  // Bounded: ENet holds at most the frames cap plus one batch; the ring is fixed.
  EXPECT_LE(s.frames_unacked_peak, opt.frames_unacked_limit + protocol::kMaxAgentMessageBytes);
  EXPECT_GT(s.frame_records, s.frame_records_dropped);

  // Reading again: the next batches arrive and say how much was lost.
  wire::Envelope b;
  uint64_t dropped = 0;
  for (int i = 0; i < 1000 && dropped == 0; ++i) {
    ASSERT_TRUE(raw->ReceiveBody(wire::Envelope::kFrameBatch, &b, 10000));
    dropped = b.frame_batch().dropped_records();
  }
  EXPECT_GT(dropped, 0u);
  d.loop->RequestStop();
  d.loop->Join();
}

// Markers, capture requests and scope tags: bubbles marks its waves, asks for a
// capture when one ends and tags its allocations ("Spawn", "Particles") through the runtime; the
// agent carries them on the frames channel, sends the capture request to the host at once, and
// a capture remembers the last marker before it.
TEST(MarkersWire, WavesMarkersCaptureRequestsAndScopeTagsReachTheHost) {
  Device d(240);  // a wave is 120 frames: two waves in about a second
  LogSink log;
  auto agent = StartAgent(*d.rt, log);
  ASSERT_TRUE(agent);
  d.loop->Start();
  client::HostClient c({Endpoint(*agent)});
  ASSERT_TRUE(Connected(c));
  EXPECT_TRUE(c.device().capabilities & wire::CAP_MARKERS);
  c.SubscribeFrames(256);
  ASSERT_TRUE(c.WaitFrames(260, 60000)) << c.frames_status().error << log.All();

  // The game's capture request arrives on its own (frames or not).
  MarkerRow req;
  ASSERT_TRUE(c.WaitGameCaptureRequest(30000, &req)) << log.All();
  EXPECT_EQ(req.kind, MarkerKind::kCaptureRequest);
  EXPECT_EQ(req.text.rfind("Wave ", 0), 0u) << req.text;
  EXPECT_NE(req.text.find(" ended"), std::string::npos) << req.text;
  EXPECT_EQ(req.frame % 120, 119u);
  EXPECT_GE(c.game_capture_requests(), 1u);

  FrameRecording r;
  c.TakeFrames(&r);
  bool wave = false, ended = false;
  for (const auto& m : r.markers) {
    if (m.kind == MarkerKind::kMarker) {
      EXPECT_EQ(m.frame % 120, 0u) << m.text;
      EXPECT_EQ(m.text, "Wave " + std::to_string(m.frame / 120 + 1));
      wave = true;
    } else {
      EXPECT_EQ(m.text, "Wave " + std::to_string(m.frame / 120 + 1) + " ended");
      ended = true;
    }
  }
  EXPECT_TRUE(wave);
  EXPECT_TRUE(ended);
  EXPECT_EQ(r.dropped_markers, 0u);
  // The marker's time lies within its frame's span on the device clock.
  for (const auto& m : r.markers)
    for (const auto& f : r.frames)
      if (f.frame == m.frame) {
        EXPECT_LE(m.time_us, f.end_us);
        EXPECT_GE(m.time_us + 1000, f.end_us - f.duration_us);
      }

  // Scope tags: spawning and particles are tagged, the rest is not.
  const auto p = analysis::BuildAllocationProfile(r);
  bool spawn = false, particles = false, untagged = false;
  for (const auto& t : p.by_tag) {
    spawn |= t.tag == "Spawn";
    particles |= t.tag == "Particles";
    untagged |= t.tag == "<untagged>";
  }
  EXPECT_TRUE(particles);
  EXPECT_TRUE(untagged);
  (void)spawn;  // a spawn happens every 0.25 s of game time only; not asserted
  for (const auto& s : r.samples) {
    if (r.TagName(s.tag) != "Particles") continue;
    bool in_particles = false;
    for (uint32_t m : r.Stack(s.stack)) {
      const std::string& n = r.MethodName(m);
      in_particles |=
          n.find("Particle") != std::string::npos || n.find("Smoke") != std::string::npos;
    }
    EXPECT_TRUE(in_particles) << "a Particles-tagged sample from outside the particle code";
  }

  // A capture carries the last marker before it.
  std::string error;
  ASSERT_TRUE(c.StartCapture(&error)) << error;
  client::CaptureResult res;
  ASSERT_TRUE(c.WaitCapture(60000, &res));
  ASSERT_TRUE(res.ok) << res.error;
  ASSERT_TRUE(res.snapshot->capture);
  EXPECT_EQ(res.snapshot->capture->last_marker.rfind("Wave ", 0), 0u)
      << res.snapshot->capture->last_marker;
  EXPECT_GE(res.snapshot->capture->marker_age_us, 0);
  EXPECT_LT(res.snapshot->capture->marker_age_us, 60'000'000);
  d.loop->RequestStop();
  d.loop->Join();
}

}  // namespace
}  // namespace xrpm::testing
