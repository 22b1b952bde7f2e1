// Per-site statistics, site labels and the age histogram on small hand-made snapshots with
// allocation origins.
#include <gtest/gtest.h>

#include <cmath>

#include "heap_builder.h"
#include "xrpm/analysis/age_histogram.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/site_stats.h"

namespace xrpm::analysis {
namespace {

using testing::HeapBuilder;

// Methods: 0 Bubble.OnSpawn, 1 BubbleField.Spawn, 2 Game1.Update, 3 Game1.LoadContent.
// Sites: 0 = OnSpawn <- Spawn <- Update, 1 = LoadContent, 2 = depth 0 (no managed frame).
// Capture frame 100.
Snapshot SiteHeap() {
  HeapBuilder b;
  b.Obj(0x10, "Game", 40, {0x20, 0x30, 0x40});  // site 1, frame 0
  b.Obj(0x20, "Bubble", 32);                    // site 0, frame 90
  b.Obj(0x30, "Bubble", 32);                    // site 0, frame 99
  b.Obj(0x40, "Bubble", 32);                    // site 0, frame 100 (age 0)
  b.Obj(0x50, "Texture", 1000);                 // site 1, frame 1
  b.Obj(0x60, "String", 20);                    // unknown
  b.Obj(0x70, "Bubble", 32);                    // site 2, frame 50
  b.Root(0x10, RootKind::kStatic);
  Snapshot s = b.Build();
  AllocationOrigins o;
  o.capture_frame = 100;
  o.methods = {"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn", "Game1.Update",
               "Game1.LoadContent"};
  o.sites = {{{0, 1, 2}}, {{3}}, {{}}};
  s.origins = o;
  const std::pair<uint32_t, uint32_t> origin[] = {{0, 1}, {90, 0},           {99, 0}, {100, 0},
                                                  {1, 1}, {0, kUnknownSite}, {50, 2}};
  for (auto [frame, site] : origin) s.AddObjectOrigin(frame, site);
  return s;
}

TEST(SiteStats, RowsPerSiteLargestFirstWithUnknownApart) {
  const Snapshot s = SiteHeap();
  const std::vector<SiteRow> rows = SiteStats(s);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].site, 1u);  // Game + Texture: 1040 B
  EXPECT_EQ(rows[0].count, 2u);
  EXPECT_EQ(rows[0].bytes, 1040u);
  EXPECT_EQ(rows[1].site, 0u);  // three bubbles
  EXPECT_EQ(rows[1].count, 3u);
  EXPECT_EQ(rows[1].bytes, 96u);
  EXPECT_EQ(rows[2].site, 2u);
  EXPECT_EQ(rows[2].bytes, 32u);
  EXPECT_EQ(rows[3].site, kUnknownSite);
  EXPECT_EQ(rows[3].count, 1u);
  EXPECT_EQ(rows[3].bytes, 20u);
  // Complete origins: the estimate is the recorded figure.
  EXPECT_DOUBLE_EQ(rows[1].est_bytes, 96.0);
  EXPECT_DOUBLE_EQ(rows[1].est_count, 3.0);
}

TEST(SiteStats, OfOneTypeGroupAndOfAList) {
  const Snapshot s = SiteHeap();
  const GraphIndex g = GraphIndex::Build(s);
  std::vector<SiteRow> rows = SiteStatsOfGroup(g, g.FindGroup("Bubble"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].site, 0u);
  EXPECT_EQ(rows[0].count, 3u);
  EXPECT_EQ(rows[1].site, 2u);
  EXPECT_EQ(rows[1].count, 1u);
  EXPECT_TRUE(SiteStatsOfGroup(g, 999).empty());

  const uint32_t list[] = {4, 5};  // Texture, String
  rows = SiteStatsOf(s, list);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].site, 1u);
  EXPECT_EQ(rows[0].bytes, 1000u);
  EXPECT_EQ(rows[1].site, kUnknownSite);
}

TEST(SiteStats, WithoutOriginsEverythingIsUnknown) {
  Snapshot s = SiteHeap();
  s.origins.reset();
  s.object_alloc_frame.clear();
  s.object_alloc_site.clear();
  const std::vector<SiteRow> rows = SiteStats(s);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].site, kUnknownSite);
  EXPECT_EQ(rows[0].count, 7u);
  EXPECT_EQ(rows[0].bytes, s.total_bytes());
  EXPECT_EQ(SiteLabel(s, 0), "(unknown)");
  EXPECT_TRUE(SiteMethods(s, 0).empty());
}

TEST(SiteStats, ByTypeAndSiteMergesTypeNames) {
  Snapshot s = SiteHeap();
  const std::vector<TypeSiteRow> rows = TypeSiteStats(s);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].type, "Texture");
  EXPECT_EQ(rows[0].site, 1u);
  EXPECT_EQ(rows[1].type, "Bubble");
  EXPECT_EQ(rows[1].site, 0u);
  EXPECT_EQ(rows[1].count, 3u);
  EXPECT_EQ(rows[2].type, "Game");
  EXPECT_EQ(rows[3].type, "Bubble");
  EXPECT_EQ(rows[3].site, 2u);
  EXPECT_EQ(rows[4].type, "String");
  EXPECT_EQ(rows[4].site, kUnknownSite);

  const uint32_t list[] = {1, 2, 6};
  const std::vector<TypeSiteRow> some = TypeSiteStatsOf(s, list);
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].count, 2u);
  EXPECT_EQ(some[1].site, 2u);
}

TEST(SiteStats, LabelsInnermostFirst) {
  const Snapshot s = SiteHeap();
  EXPECT_EQ(SiteMethods(s, 0),
            (std::vector<std::string>{"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn",
                                      "Game1.Update"}));
  EXPECT_EQ(SiteLabel(s, 0),
            "Bubbles.Bubble.OnSpawn \xE2\x86\x90 Bubbles.BubbleField.Spawn "
            "\xE2\x86\x90 Game1.Update");
  EXPECT_EQ(SiteLabel(s, 0, 2, " <- "),
            "Bubbles.Bubble.OnSpawn <- Bubbles.BubbleField.Spawn <- "
            "\xE2\x80\xA6");
  EXPECT_EQ(SiteLabel(s, 0, 0, " <- "),
            "Bubbles.Bubble.OnSpawn <- Bubbles.BubbleField.Spawn <- Game1.Update");
  EXPECT_EQ(SiteLabel(s, 1), "Game1.LoadContent");
  EXPECT_EQ(SiteLabel(s, 2), "(no managed frame)");
  EXPECT_EQ(SiteLabel(s, kUnknownSite), "(unknown)");
  EXPECT_EQ(SiteLabel(s, 3), "(unknown)");  // out of range
}

TEST(SiteStats, SampledOriginsCarryAnEstimate) {
  Snapshot s = SiteHeap();
  s.origins->sample_bytes = 64;
  const std::vector<SiteRow> rows = SiteStats(s);
  ASSERT_EQ(rows[1].site, 0u);
  EXPECT_EQ(rows[1].count, 3u);  // the recorded objects
  // Each 32-byte object stands for 1 / (1 - exp(-32/64)) objects.
  const double w = 1.0 / (1.0 - std::exp(-0.5));
  EXPECT_NEAR(rows[1].est_count, 3 * w, 1e-9);
  EXPECT_NEAR(rows[1].est_bytes, 96 * w, 1e-9);
  EXPECT_GT(rows[1].est_count, 3.0);
  EXPECT_DOUBLE_EQ(rows.back().est_bytes, 20.0);  // the unknown row is not scaled
}

// Game (site 1, the only root) holds the three bubbles of site 0: site 1 retains everything
// Game retains, site 0 its bubbles; the Texture (site 1), Bubble 0x70 (site 2) and the String
// (unknown) are unreachable.
TEST(SiteStats, RetainedBySiteCountsNestedObjectsOnce) {
  const Snapshot s = SiteHeap();
  const GraphIndex g = GraphIndex::Build(s);
  const DominatorTree dom = DominatorTree::Compute(g);
  const std::vector<uint64_t> r = SiteRetained(g, dom);
  ASSERT_EQ(r.size(), 4u);  // three sites + unknown
  EXPECT_EQ(r[1], 40u + 96u);
  EXPECT_EQ(r[0], 96u);
  EXPECT_EQ(r[2], 0u);
  EXPECT_EQ(r[3], 0u);
}

TEST(AgeHistogram, Log2BinsAndUnknownApart) {
  const Snapshot s = SiteHeap();
  // Ages: 100 (Game), 10, 1, 0 (bubbles), 99 (Texture), unknown (String), 50 (Bubble).
  const AgeHistogram h = ComputeAgeHistogram(s);
  EXPECT_TRUE(h.has_origins);
  EXPECT_FALSE(h.sampled);
  EXPECT_EQ(h.capture_frame, 100u);
  EXPECT_EQ(h.unknown_count, 1u);
  EXPECT_EQ(h.unknown_bytes, 20u);
  EXPECT_EQ(h.known_count, 6u);
  EXPECT_EQ(h.known_bytes, s.total_bytes() - 20);
  ASSERT_EQ(h.bins.size(), 8u);  // up to [64, 127]
  EXPECT_EQ(h.bins[0].first, 0u);
  EXPECT_EQ(h.bins[0].last, 0u);
  EXPECT_EQ(h.bins[0].count, 1u);  // age 0
  EXPECT_EQ(h.bins[1].first, 1u);
  EXPECT_EQ(h.bins[1].last, 1u);
  EXPECT_EQ(h.bins[1].count, 1u);  // age 1
  EXPECT_EQ(h.bins[4].first, 8u);
  EXPECT_EQ(h.bins[4].last, 15u);
  EXPECT_EQ(h.bins[4].count, 1u);  // age 10
  EXPECT_EQ(h.bins[2].count, 0u);  // gaps kept
  EXPECT_EQ(h.bins[6].count, 1u);  // age 50 in [32, 63]
  EXPECT_EQ(h.bins[7].first, 64u);
  EXPECT_EQ(h.bins[7].last, 127u);
  EXPECT_EQ(h.bins[7].count, 2u);  // ages 99 and 100
  EXPECT_EQ(h.bins[7].bytes, 1040u);
  EXPECT_EQ(AgeLog2Bin(0), 0u);
  EXPECT_EQ(AgeLog2Bin(1), 1u);
  EXPECT_EQ(AgeLog2Bin(3), 2u);
  EXPECT_EQ(AgeLog2Bin(4), 3u);
  EXPECT_EQ(AgeLog2Bin(UINT64_MAX), 64u);
}

TEST(AgeHistogram, FixedBinsClampTheOldest) {
  const Snapshot s = SiteHeap();
  const AgeHistogram h = ComputeAgeHistogram(s, {.bin_frames = 25, .max_bins = 3});
  ASSERT_EQ(h.bins.size(), 3u);
  EXPECT_EQ(h.bins[0].first, 0u);
  EXPECT_EQ(h.bins[0].last, 24u);
  EXPECT_EQ(h.bins[0].count, 3u);  // ages 0, 1, 10
  EXPECT_EQ(h.bins[1].count, 0u);
  EXPECT_EQ(h.bins[2].first, 50u);
  EXPECT_EQ(h.bins[2].last, UINT64_MAX);
  EXPECT_EQ(h.bins[2].count, 3u);  // 50, 99, 100
}

TEST(AgeHistogram, OfAListAndWithoutOrigins) {
  Snapshot s = SiteHeap();
  const uint32_t list[] = {1, 5};
  AgeHistogram h = ComputeAgeHistogramOf(s, list);
  EXPECT_EQ(h.known_count, 1u);
  EXPECT_EQ(h.unknown_count, 1u);
  ASSERT_EQ(h.bins.size(), 5u);
  EXPECT_EQ(h.bins[4].count, 1u);

  s.origins.reset();
  s.object_alloc_frame.clear();
  s.object_alloc_site.clear();
  h = ComputeAgeHistogram(s);
  EXPECT_FALSE(h.has_origins);
  EXPECT_TRUE(h.bins.empty());
  EXPECT_EQ(h.unknown_count, 7u);
  EXPECT_EQ(h.unknown_bytes, s.total_bytes());
}

}  // namespace
}  // namespace xrpm::analysis
