// The three-snapshot leak filter on hand-made captures: window semantics, grouping by (type,
// site), the merged path holding each group, unreachable objects apart, and the errors.
#include <gtest/gtest.h>

#include <cmath>

#include "heap_builder.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/leak_filter.h"
#include "xrpm/analysis/paths.h"

namespace xrpm::analysis {
namespace {

using testing::HeapBuilder;

// Sites: 0 = Bubble.OnSpawn <- BubbleField.Spawn, 1 = Game1.LoadContent, 2 = Particle.Emit.
AllocationOrigins Origins(uint64_t capture_frame) {
  AllocationOrigins o;
  o.capture_frame = capture_frame;
  o.methods = {"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn", "Game1.LoadContent",
               "Bubbles.Particle.Emit"};
  o.sites = {{{0, 1}}, {{2}}, {{3}}};
  return o;
}

// A capture with no objects that only says when it was taken.
Snapshot MarkerCapture(uint64_t frame) {
  HeapBuilder b;
  Snapshot s = b.Build();
  s.origins = Origins(frame);
  return s;
}

// C at frame 300; the window is [100, 200).
//   Game (static, frame 0, site 1) -> List (frame 0) -> Bubble x3 (frames 100, 150, 199: leak,
//   site 0), Bubble (frame 200: after B), Texture (frame 120, site 1: leak, a second group).
//   Bubble 0x80 (frame 150, site 0) is unreachable: garbage. Particle 0x90 (frame 299, site 2)
//   is held by a local: allocated this frame. String 0xa0 has no recorded origin.
struct LeakHeap {
  Snapshot a = MarkerCapture(100), b = MarkerCapture(200), c;
  GraphIndex g;
  RootPathForest forest;
  LeakHeap() {
    HeapBuilder h;
    h.Obj(0x10, "Game", 40, {0x20, 0x70});
    h.Obj(0x20, "List", 24, {0x30, 0x40, 0x50, 0x60});
    h.Obj(0x30, "Bubble", 32);
    h.Obj(0x40, "Bubble", 32);
    h.Obj(0x50, "Bubble", 32);
    h.Obj(0x60, "Bubble", 32);
    h.Obj(0x70, "Texture", 500);
    h.Obj(0x80, "Bubble", 32);
    h.Obj(0x90, "Particle", 16);
    h.Obj(0xa0, "String", 20);
    h.Root(0x10, RootKind::kStatic, 0, h.RawTypeId("Game"));
    h.Root(0x90, RootKind::kLocal);
    h.Root(0xa0, RootKind::kLocal);
    c = h.Build();
    c.origins = Origins(300);
    const std::pair<uint32_t, uint32_t> origin[] = {{0, 1},   {0, 1},           {100, 0}, {150, 0},
                                                    {199, 0}, {200, 0},         {120, 1}, {150, 0},
                                                    {299, 2}, {0, kUnknownSite}};
    for (auto [frame, site] : origin) c.AddObjectOrigin(frame, site);
    g = GraphIndex::Build(c);
    forest = RootPathForest::Build(g);
  }
};

TEST(LeakFilter, GroupsTheWindowsSurvivorsByTypeAndSite) {
  LeakHeap h;
  const LeakReport r = FindLeaks(h.a, h.b, h.g, h.forest);
  EXPECT_EQ(r.window_first, 100u);
  EXPECT_EQ(r.window_end, 200u);
  EXPECT_EQ(r.c_frame, 300u);
  EXPECT_FALSE(r.sampled);
  ASSERT_EQ(r.groups.size(), 2u);

  const LeakGroup& tex = r.groups[0];  // 500 B beats 96 B
  EXPECT_EQ(tex.type, "Texture");
  EXPECT_EQ(tex.site, 1u);
  EXPECT_EQ(tex.count, 1u);
  EXPECT_EQ(tex.bytes, 500u);
  ASSERT_EQ(tex.paths.paths.size(), 1u);
  EXPECT_EQ(MergedPathLabel(h.g, tex.paths.paths[0], " -> "), "static Game -> Game -> Texture");

  const LeakGroup& bub = r.groups[1];
  EXPECT_EQ(bub.type, "Bubble");
  EXPECT_EQ(bub.site, 0u);
  EXPECT_EQ(bub.count, 3u);  // frames 100, 150, 199; not 200 (after B), not the garbage one
  EXPECT_EQ(bub.bytes, 96u);
  EXPECT_DOUBLE_EQ(bub.est_bytes, 96.0);
  EXPECT_EQ(bub.objects, (std::vector<uint32_t>{2, 3, 4}));
  ASSERT_EQ(bub.paths.paths.size(), 1u);
  EXPECT_EQ(bub.paths.paths[0].count, 3u);
  EXPECT_EQ(MergedPathLabel(h.g, bub.paths.paths[0], " -> "),
            "static Game -> Game -> List -> Bubble");

  EXPECT_EQ(r.count, 4u);
  EXPECT_EQ(r.bytes, 596u);
  EXPECT_EQ(r.unreachable_count, 1u);
  EXPECT_EQ(r.unreachable_bytes, 32u);
  EXPECT_EQ(r.before_count, 2u);  // Game, List
  EXPECT_EQ(r.after_count, 2u);   // the frame-200 Bubble, the Particle
  EXPECT_EQ(r.unknown_count, 1u);
}

TEST(LeakFilter, WindowBoundsAreAInclusiveBExclusive) {
  LeakHeap h;
  h.a = MarkerCapture(150);
  h.b = MarkerCapture(150);  // an empty window
  EXPECT_TRUE(FindLeaks(h.a, h.b, h.g, h.forest).groups.empty());
  h.b = MarkerCapture(151);  // only frame 150
  LeakReport r = FindLeaks(h.a, h.b, h.g, h.forest);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].count, 1u);
  EXPECT_EQ(r.groups[0].objects, (std::vector<uint32_t>{3}));
  h.a = MarkerCapture(0);
  h.b = MarkerCapture(300);  // everything recorded up to C
  r = FindLeaks(h.a, h.b, h.g, h.forest);
  EXPECT_EQ(r.count, 8u);  // all reachable objects with an origin
  EXPECT_EQ(r.before_count + r.after_count, 0u);
}

TEST(LeakFilter, MaxGroupsKeepsTheLargest) {
  LeakHeap h;
  const LeakReport r = FindLeaks(h.a, h.b, h.g, h.forest, {.max_paths = 1, .max_groups = 1});
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].type, "Texture");
  EXPECT_EQ(r.other_groups, 1u);
  EXPECT_EQ(r.count, 4u);  // totals cover every group
}

TEST(LeakFilter, SampledCapturesSaySoAndEstimate) {
  LeakHeap h;
  h.c.origins->sample_bytes = 64;
  const LeakReport r = FindLeaks(h.a, h.b, h.g, h.forest);
  EXPECT_TRUE(r.sampled);
  EXPECT_EQ(r.sample_bytes, 64u);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[1].count, 3u);
  EXPECT_NEAR(r.groups[1].est_count, 3.0 / (1.0 - std::exp(-0.5)), 1e-9);
}

TEST(LeakFilter, RefusesCapturesWithoutOrigins) {
  LeakHeap h;
  h.b.origins.reset();
  try {
    FindLeaks(h.a, h.b, h.g, h.forest, {}, {"a.xrpm", "b.gclog", "c.xrpm"});
    FAIL() << "no error";
  } catch (const LeakFilterError& e) {
    EXPECT_NE(std::string(e.what()).find("b.gclog has no allocation sites and ages"),
              std::string::npos)
        << e.what();
  }
}

TEST(LeakFilter, RefusesCapturesOutOfOrder) {
  LeakHeap h;
  EXPECT_NE(CheckLeakCaptures(h.b, h.a, h.c)
                .find("not in order: A was captured at frame 200, "
                      "after B (frame 100)"),
            std::string::npos);
  h.b = MarkerCapture(400);  // after C
  const std::string why = CheckLeakCaptures(h.a, h.b, h.c);
  EXPECT_NE(why.find("B was captured at frame 400, after C (frame 300)"), std::string::npos) << why;
  EXPECT_THROW(FindLeaks(h.a, h.b, h.g, h.forest), LeakFilterError);
}

TEST(LeakFilter, RefusesCapturesOfDifferentRuns) {
  LeakHeap h;
  EXPECT_EQ(CheckLeakCaptures(h.a, h.b, h.c), "");
  h.a.capture.emplace().device.app_name = "bubbles.exe";
  h.b.capture.emplace().device.app_name = "leak.exe";
  EXPECT_NE(CheckLeakCaptures(h.a, h.b, h.c)
                .find("not from one run of the game: their app "
                      "differs ('bubbles.exe' vs 'leak.exe')"),
            std::string::npos);
  h.b.capture->device.app_name = "bubbles.exe";
  EXPECT_EQ(CheckLeakCaptures(h.a, h.b, h.c), "");
  h.b.capture->device.runtime_name = "Mono 6.12";
  EXPECT_NE(CheckLeakCaptures(h.a, h.b, h.c).find("their runtime differs ('' vs 'Mono 6.12')"),
            std::string::npos);
  h.b.capture->device.runtime_name = "";
  h.b.capture->device.endpoint = "localhost:4510";  // another spelling of the same device
  EXPECT_EQ(CheckLeakCaptures(h.a, h.b, h.c), "");
  h.a.sections[0].start_ms = 9000;  // a later clock, but an earlier frame: another run
  h.b.sections[0].start_ms = 1000;
  EXPECT_NE(CheckLeakCaptures(h.a, h.b, h.c).find("the device clock went backwards"),
            std::string::npos);
}

TEST(PathMerger, SharesItsMemoAcrossSetsAndMatchesTheTypeMerge) {
  LeakHeap h;
  PathMerger m(h.g, h.forest);
  const uint32_t bubbles = h.g.FindGroup("Bubble");
  const MergedPaths all = MergeShortestPaths(h.g, h.forest, nullptr, bubbles);
  const std::span<const uint32_t> inst = h.g.Instances(bubbles);
  const MergedPaths same = m.Merge(std::vector<uint32_t>(inst.begin(), inst.end()), nullptr);
  ASSERT_EQ(same.paths.size(), all.paths.size());
  EXPECT_EQ(same.instances, 5u);
  EXPECT_EQ(same.unreachable, 1u);
  EXPECT_EQ(same.paths[0].count, all.paths[0].count);
  EXPECT_EQ(MergedPathLabel(h.g, same.paths[0], ">"), MergedPathLabel(h.g, all.paths[0], ">"));
  const uint32_t one[] = {6};  // the Texture, through the same memo
  const MergedPaths tex = m.Merge(one, nullptr);
  ASSERT_EQ(tex.paths.size(), 1u);
  EXPECT_EQ(MergedPathLabel(h.g, tex.paths[0], ">"), "static Game>Game>Texture");
}

}  // namespace
}  // namespace xrpm::analysis
