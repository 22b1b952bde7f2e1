// The monitor's words for a capture's cost (capture_status.h): the status line logged
// when a capture lands and the Connection panel's pause line, for a paused walk and a snapshot
// walk; and a snapshot walk saved as .xrpm and opened again still says so.
#include "xrpm/app/capture_status.h"

#include <gtest/gtest.h>

#include <chrono>

#include "temp_dir.h"
#include "test_heaps.h"
#include "xrpm/app/app_session.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

Snapshot Captured(uint64_t walk_after_pause_us) {
  Snapshot s = testing::OneObjectCapture();
  s.capture->pause_us = 239'000;
  s.capture->gc_us = 227'000;
  s.capture->walk_us = 12'000;
  s.capture->walk_after_pause_us = walk_after_pause_us;
  s.capture->elapsed_us = 1'800'000;
  return s;
}

TEST(CaptureStatus, TheLineLoggedWhenACaptureLandsSaysWhatThePauseHeld) {
  EXPECT_EQ(CaptureLandedText(Captured(0)),
            "Captured 1 object (12 B) in 1.8 s; the game paused 239.0 ms (GC 227.0 ms, walk "
            "12.0 ms)");
  EXPECT_EQ(CaptureLandedText(Captured(1'400'000)),
            "Captured 1 object (12 B) in 1.8 s; the game paused 239.0 ms (GC 227.0 ms, snapshot "
            "12.0 ms; then walked in 1.4 s while the game ran)");
  Snapshot no_metadata = Captured(0);
  no_metadata.capture.reset();
  EXPECT_EQ(CaptureLandedText(no_metadata), "Captured 1 object (12 B)");
}

TEST(CaptureStatus, TheConnectionPanelsPauseLine) {
  EXPECT_EQ(GamePausedText(*Captured(0).capture),
            "The game paused 239.0 ms (GC 227.0 ms, walk 12.0 ms).");
  EXPECT_EQ(GamePausedText(*Captured(1'400'000).capture),
            "The game paused 239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in 1.4 s while "
            "the game ran).");
}

TEST(CaptureStatus, TheUnattendedSummaryLinesPause) {
  const Snapshot paused = Captured(0), snapshot = Captured(1'400'000);
  EXPECT_EQ(CapturePauseText(&paused, 1), "239.0 ms (GC 227.0 ms, walk 12.0 ms)");
  EXPECT_EQ(CapturePauseText(&snapshot, 1),
            "239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in 1.4 s while the game ran)");
  Snapshot no_metadata = Captured(0);
  no_metadata.capture.reset();
  EXPECT_EQ(CapturePauseText(&no_metadata, 45'200), "45.2 ms");
  EXPECT_EQ(CapturePauseText(nullptr, 1'500'000), "1.5 s");
}

TEST(CaptureStatus, ASnapshotWalkSavedAndOpenedAgainStillSaysSo) {
  const testing::TempDir dir("xrpm_capture_status");
  formats::WriteXrpmFile(Captured(1'400'000), dir.Path("c.xrpm"));
  AppSession s(AppSession::Options{dir.Path("config"), true, {}});
  const uint32_t id = s.documents().OpenFile(dir.Path("c.xrpm"));
  ASSERT_TRUE(s.WaitIdle(60s));
  const SnapshotDoc* d = s.documents().doc(id);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->state, DocState::kReady) << d->problem;
  ASSERT_TRUE(d->snapshot->capture.has_value());
  EXPECT_EQ(GamePausedText(*d->snapshot->capture),
            "The game paused 239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in 1.4 s while "
            "the game ran).");
}

}  // namespace
}  // namespace xrpm::app
