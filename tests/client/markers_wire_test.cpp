// ctest-labels: cpu_timing threaded
// Markers, capture requests and scope tags over 127.0.0.1 (issue 24): the emulated bubbles game
// marks its waves, asks for a capture when one ends and tags its allocations ("Spawn",
// "Particles") through the runtime; the agent carries them on the frames channel, sends the
// capture request to the host at once, and a capture remembers the last marker before it.
#include <gtest/gtest.h>

#include <memory>

#include "test_util.h"
#include "xrpm/client/allocation_profile.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {
namespace {

struct Device {
  explicit Device(double fps) {
    emulator::RuntimeConfig c;
    c.heap_reserve_bytes = 256u << 20;
    rt = std::make_unique<emulator::Runtime>(c);
    emulator::ScenarioParams p;
    sc = emulator::MakeScenario(p);
    loop = std::make_unique<emulator::GameLoop>(*rt, *sc, emulator::LoopConfig{fps, 0});
    loop->Setup();
  }
  ~Device() { loop.reset(); }
  std::unique_ptr<emulator::Runtime> rt;
  std::unique_ptr<emulator::Scenario> sc;
  std::unique_ptr<emulator::GameLoop> loop;
};

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
  client::MarkerRow req;
  ASSERT_TRUE(c.WaitGameCaptureRequest(30000, &req)) << log.All();
  EXPECT_EQ(req.kind, client::MarkerKind::kCaptureRequest);
  EXPECT_EQ(req.text.rfind("Wave ", 0), 0u) << req.text;
  EXPECT_NE(req.text.find(" ended"), std::string::npos) << req.text;
  EXPECT_EQ(req.frame % 120, 119u);
  EXPECT_GE(c.game_capture_requests(), 1u);

  client::FrameRecording r;
  c.TakeFrames(&r);
  bool wave = false, ended = false;
  for (const auto& m : r.markers) {
    if (m.kind == client::MarkerKind::kMarker) {
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
  const auto p = client::BuildAllocationProfile(r);
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
      in_particles |= n.find("Particle") != std::string::npos || n.find("Smoke") != std::string::npos;
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
