// FrameBoard (the Timeline and Allocations views' model): the visible window follows the newest
// frames until the user zooms or pans, a selected range drives the allocation profile, and the
// Allocations table filters and sorts.
#include <gtest/gtest.h>

#include "xrpm/app/frame_board.h"

namespace xrpm::app {
namespace {

// A recording of `n` frames: even frames sample a 64-byte Bubble (Spawn <- Update), odd frames
// a 40-byte String (Concat <- Update); a GC every 100th frame. Loaded with FrameBoard::Load.
class FrameBoardTest : public ::testing::Test {
 protected:
  static FrameRecording Recording(uint64_t n) {
    FrameRecording r;
    r.sample_bytes = 1024;
    r.methods = {"Spawn", "Update", "Concat"};
    r.types = {"Bubbles.Bubble", "System.String"};
    r.stacks = {{1, 2}, {3, 2}};
    for (uint64_t f = 0; f < n; ++f) {
      r.frames.push_back({f, f * 16667, 16667, 2000, 2048, 20, f % 100 == 99, 14000, 100000});
      r.samples.push_back({f, uint32_t(1 + f % 2), uint32_t(1 + f % 2), f % 2 ? 40u : 64u});
    }
    return r;
  }
};

TEST_F(FrameBoardTest, WindowZoomPanAndFollow) {
  FrameBoard b;
  b.Load(Recording(2000));
  EXPECT_TRUE(b.following());
  EXPECT_EQ(b.window_count(), FrameBoard::kDefaultWindow);
  EXPECT_EQ(b.window_first(), 2000 - FrameBoard::kDefaultWindow);
  b.Zoom(0.5, 1900);  // zoom in around frame 1900
  EXPECT_EQ(b.window_count(), 300u);
  EXPECT_LE(b.window_first(), 1900u);
  EXPECT_GT(b.window_first() + b.window_count(), 1900u);
  b.Pan(-500);
  EXPECT_FALSE(b.following());
  const size_t at = b.window_first();
  b.Load(Recording(2100));  // more frames arrive: a panned window stays where it is
  EXPECT_EQ(b.window_first(), at);
  b.Follow();
  EXPECT_EQ(b.window_first() + b.window_count(), 2100u);
  b.Pan(-100000);
  EXPECT_EQ(b.window_first(), 0u);
}

TEST_F(FrameBoardTest, SelectionDrivesTheProfileAndTheTable) {
  FrameBoard b;
  b.Load(Recording(200));
  EXPECT_EQ(b.profile().frames, 200u);
  EXPECT_EQ(b.summary().gcs, 2u);
  b.Select(150, 50);  // either order
  ASSERT_TRUE(b.selection());
  EXPECT_EQ(b.selection()->first, 50u);
  EXPECT_EQ(b.profile().frames, 101u);
  EXPECT_EQ(b.profile().total.samples, 101u);
  EXPECT_EQ(b.summary().gcs, 1u);  // frame 99 is inside, 199 outside

  b.group = AllocGroup::kType;
  b.column = AllocColumn::kBytes;
  const auto& rows = b.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "Bubbles.Bubble");  // 51 x 64 B beats 50 x 40 B
  b.filter = "string";
  ASSERT_EQ(b.rows().size(), 1u);
  EXPECT_EQ(b.rows()[0].name, "System.String");
  b.filter.clear();
  b.column = AllocColumn::kName;
  b.descending = false;
  EXPECT_EQ(b.rows()[0].name, "Bubbles.Bubble");
  b.group = AllocGroup::kMethod;
  b.column = AllocColumn::kBytes;
  b.descending = true;
  const auto& m = b.rows();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].name, "Spawn");
  EXPECT_EQ(m.back().name, "Update");  // allocates nothing itself...
  EXPECT_NEAR(m.back().through.bytes, b.profile().total.bytes, 1e-6);  // ...but all through it
  b.ClearSelection();
  EXPECT_EQ(b.profile().frames, 200u);
}

}  // namespace
}  // namespace xrpm::app

namespace xrpm::app {
namespace {

// The game's markers on the Timeline: each on its frame's row; only those of the rows asked for;
// a marker whose frame did not arrive (the device's ring overwrote it) is not placed.
TEST(FrameBoardMarkers, MarkersLandOnTheirFramesRows) {
  FrameRecording r;
  for (uint64_t f = 100; f < 200; ++f)
    if (f != 150) r.frames.push_back(FrameRow{.frame = f, .duration_us = 16000});
  r.markers = {{MarkerKind::kMarker, "before", 90, 0},
               {MarkerKind::kMarker, "Wave 1", 100, 0},
               {MarkerKind::kCaptureRequest, "Wave 1 ended", 120, 0},
               {MarkerKind::kMarker, "lost", 150, 0},
               {MarkerKind::kMarker, "Wave 2", 160, 0},
               {MarkerKind::kMarker, "Wave 2b", 160, 0}};
  FrameBoard b;
  b.Load(r);
  auto all = b.MarkersIn(0, b.recording().frames.size());
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].row, 0u);
  EXPECT_EQ(all[0].marker, 1u);
  EXPECT_EQ(all[1].row, 20u);
  EXPECT_EQ(all[2].row, 59u) << "frame 160 is row 59: frame 150 is missing";
  EXPECT_EQ(all[3].row, 59u);
  EXPECT_EQ(all[3].marker, 5u);
  auto window = b.MarkersIn(10, 20);  // frames 110..129
  ASSERT_EQ(window.size(), 1u);
  EXPECT_EQ(b.recording().markers[window[0].marker].text, "Wave 1 ended");
  EXPECT_TRUE(b.MarkersIn(200, 10).empty());
}

}  // namespace
}  // namespace xrpm::app
