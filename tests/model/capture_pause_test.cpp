// DescribeCapturePause: a paused walk and a snapshot walk in the words every place
// that shows a capture's pause uses, and the figures' units either side of a second.
#include "xrpm/model/capture_pause.h"

#include <gtest/gtest.h>

namespace xrpm {
namespace {

CaptureInfo Pause(uint64_t pause, uint64_t gc, uint64_t walk, uint64_t after) {
  CaptureInfo c;
  c.pause_us = pause;
  c.gc_us = gc;
  c.walk_us = walk;
  c.walk_after_pause_us = after;
  return c;
}

TEST(CapturePause, APausedWalkNamesTheWalk) {
  const CaptureInfo c = Pause(45'230, 11'000, 34'230, 0);
  EXPECT_FALSE(c.snapshot_walk());
  EXPECT_EQ(DescribeCapturePause(c), "45.2 ms (GC 11.0 ms, walk 34.2 ms)");
}

TEST(CapturePause, ASnapshotWalkNamesTheSnapshotAndTheWalkAfterThePause) {
  const CaptureInfo c = Pause(239'000, 227'000, 12'000, 1'400'000);
  EXPECT_TRUE(c.snapshot_walk());
  EXPECT_EQ(DescribeCapturePause(c),
            "239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in 1.4 s while the game ran)");
  // The agent reports at least 1 µs after a snapshot walk: still a snapshot walk.
  EXPECT_EQ(DescribeCapturePause(Pause(300, 200, 100, 1)),
            "0.3 ms (GC 0.2 ms, snapshot 0.1 ms; then walked in 0.0 ms while the game ran)");
}

TEST(CapturePause, FiguresAreMillisecondsBelowASecondAndSecondsFromOne) {
  EXPECT_EQ(FormatPauseTime(0), "0.0 ms");
  EXPECT_EQ(FormatPauseTime(999'949), "999.9 ms");
  EXPECT_EQ(FormatPauseTime(1'000'000), "1.0 s");
  EXPECT_EQ(FormatPauseTime(12'340'000), "12.3 s");
}

}  // namespace
}  // namespace xrpm
