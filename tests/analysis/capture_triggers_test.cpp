// CaptureTriggers as a pure state machine: each rule fires when it should and
// not otherwise, events during a capture wait for it, the capture's own collection does not
// fire --on-gc-pause, and the marker pattern's '*'.
#include "xrpm/analysis/capture_triggers.h"

#include <gtest/gtest.h>

namespace xrpm::analysis {
namespace {

FrameRow TriggerRow(uint64_t frame, uint64_t end_us, uint32_t gcs, uint32_t pause_us) {
  FrameRow r;
  r.frame = frame;
  r.end_us = end_us;
  r.duration_us = 16000;
  r.gcs = gcs;
  r.gc_pause_us = pause_us;
  return r;
}

MarkerRow Marker(const std::string& text, MarkerKind kind = MarkerKind::kMarker) {
  return MarkerRow{kind, text, 1, 0};
}

TEST(CaptureTriggers, EveryFiresAtOnceThenAfterEachPeriodFromTheLastStart) {
  CaptureTriggers t({.every_s = 10, .game_requests = false});
  auto f = t.Due(0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kEvery);
  t.OnCaptureStarted(0.5);
  EXPECT_FALSE(t.Due(1)) << "not while capturing";
  t.OnCaptureEnded(3);
  EXPECT_FALSE(t.Due(10.4));
  EXPECT_NEAR(t.SecondsUntilTimer(10.4), 0.1, 1e-9);
  EXPECT_TRUE(t.Due(10.5));
}

TEST(CaptureTriggers, NothingFiresWithoutARule) {
  CaptureTriggers t({.game_requests = false});
  t.OnGameRequest(Marker("x", MarkerKind::kCaptureRequest));
  t.OnMarker(Marker("x"));
  t.OnFrame(TriggerRow(1, 1000, 3, 900000), 1);
  t.OnInUseAfterGc(1 << 30);
  EXPECT_FALSE(t.Due(1e6));
}

TEST(CaptureTriggers, GrowthOverTheFirstSampleAfterTheLastCapture) {
  CaptureTriggers t({.growth_bytes = 1000, .game_requests = false});
  t.OnInUseAfterGc(5000);  // baseline
  t.OnInUseAfterGc(5999);
  EXPECT_FALSE(t.Due(1));
  t.OnInUseAfterGc(6000);
  auto f = t.Due(1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kGrowth);
  EXPECT_NE(f->detail.find("in use after GC"), std::string::npos) << f->detail;
  t.OnCaptureStarted(1);
  t.OnInUseAfterGc(9000);  // during the capture: ignored
  t.OnCaptureEnded(2);
  EXPECT_FALSE(t.Due(2));
  t.OnInUseAfterGc(4000);  // after the capture's collection: the new baseline
  t.OnInUseAfterGc(4999);
  EXPECT_FALSE(t.Due(3));
  t.OnInUseAfterGc(5000);
  EXPECT_TRUE(t.Due(3));
}

TEST(CaptureTriggers, GcPauseLongerThanTheLimitFires) {
  CaptureTriggers t({.gc_pause_ms = 2, .game_requests = false});
  t.OnFrame(TriggerRow(1, 1'000'000, 1, 2000), 1.0);  // exactly 2 ms: not longer
  t.OnFrame(TriggerRow(2, 1'016'000, 0, 0), 1.016);
  EXPECT_FALSE(t.Due(1.1));
  t.OnFrame(TriggerRow(3, 1'032'000, 1, 2001), 1.032);
  auto f = t.Due(1.1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kGcPause);
  EXPECT_NE(f->detail.find("frame 3"), std::string::npos) << f->detail;
}

TEST(CaptureTriggers, TheCapturesOwnCollectionDoesNotFireGcPause) {
  // Device clock = our clock + 100 s; rows arrive 5 ms after their frame ends.
  CaptureTriggers t({.gc_pause_ms = 0, .game_requests = false});
  auto dev = [](double s) { return static_cast<uint64_t>((s + 100) * 1e6); };
  t.OnFrame(TriggerRow(1, dev(1.0), 0, 0), 1.005);
  t.OnCaptureStarted(2.0);
  t.OnFrame(TriggerRow(2, dev(2.1), 1, 30000),
            2.105);  // the induced collection, during the capture
  t.OnCaptureEnded(2.2);
  t.OnFrame(TriggerRow(3, dev(2.25), 1, 30000), 2.3);  // ended just after: still the capture's
  EXPECT_FALSE(t.Due(2.3));
  t.OnFrame(TriggerRow(4, dev(4.0), 1, 500), 4.005);  // a collection of the game's own
  auto f = t.Due(4.01);
  ASSERT_TRUE(f);
  EXPECT_NE(f->detail.find("frame 4"), std::string::npos) << f->detail;
}

TEST(CaptureTriggers, MarkerByTextOrPatternOnlyMarkersNotRequests) {
  CaptureTriggers t({.marker = "Level * loaded", .game_requests = false});
  t.OnMarker(Marker("Level 7 started"));
  t.OnMarker(Marker("Level 7 loaded", MarkerKind::kCaptureRequest));
  EXPECT_FALSE(t.Due(1));
  t.OnMarker(Marker("Level 7 loaded"));
  auto f = t.Due(1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kMarker);
  EXPECT_EQ(f->label, "Level 7 loaded");
}

TEST(CaptureTriggers, GameRequestsUnlessSwitchedOff) {
  CaptureTriggers on({});
  on.OnGameRequest(Marker("Wave 1 ended", MarkerKind::kCaptureRequest));
  auto f = on.Due(0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kGameRequest);
  EXPECT_EQ(f->label, "Wave 1 ended");
  CaptureTriggers off({.every_s = 100, .game_requests = false});
  off.OnCaptureStarted(0);
  off.OnCaptureEnded(0);
  off.OnGameRequest(Marker("Wave 1 ended", MarkerKind::kCaptureRequest));
  EXPECT_FALSE(off.Due(1));
}

TEST(CaptureTriggers, EventsDuringACaptureFollowItOnceCoalesced) {
  CaptureTriggers t({.marker = "M"});
  t.OnCaptureStarted(0);
  t.OnMarker(Marker("M"));
  t.OnGameRequest(Marker("R", MarkerKind::kCaptureRequest));
  EXPECT_FALSE(t.Due(0.1));
  t.OnCaptureEnded(0.2);
  auto f = t.Due(0.2);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, TriggerKind::kMarker) << "the first reason";
  EXPECT_EQ(t.coalesced(), 1u);
  t.OnCaptureStarted(0.3);
  t.OnCaptureEnded(0.4);
  EXPECT_FALSE(t.Due(0.5)) << "one capture for both";
}

}  // namespace
}  // namespace xrpm::analysis
