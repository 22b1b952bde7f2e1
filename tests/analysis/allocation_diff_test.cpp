// Allocation traffic diff (analysis/allocation_diff.h): sites matched by name
// across recordings whose devices numbered them apart, bytes per frame in A and B with their
// sampling errors, the change and its error, sites only in one recording marked, the order.
#include <gtest/gtest.h>

#include <cmath>

#include "xrpm/analysis/allocation_diff.h"
#include "xrpm/analysis/allocation_profile.h"

namespace xrpm::analysis {
namespace {

constexpr uint32_t kN = 1024;  // sampling interval of both recordings

FrameRecording Rec(uint64_t frames) {
  FrameRecording r;
  r.sample_bytes = kN;
  for (uint64_t f = 1; f <= frames; ++f) r.frames.push_back({f, f * 16'667, 16'667});
  return r;
}

// One sample's estimate and variance, as the profile computes them.
Estimate One(uint32_t size) {
  Estimate e;
  e.Add(size, kN);
  return e;
}

const AllocDiffRow* AllocRow(const AllocationDiff& d, const std::string& site) {
  for (const AllocDiffRow& r : d.rows)
    if (r.site == site) return &r;
  return nullptr;
}

TEST(AllocationDiff, MatchesSitesByNameWithErrorsAndMarksNewAndGoneOnes) {
  // A: 10 frames; Spawn (under Update) 5 x 64 B bubbles, Emit 3 x 2 KiB particles.
  FrameRecording a = Rec(10);
  a.methods = {"Game1.Update", "BubbleField.Spawn", "Particles.Emit"};
  a.types = {"Bubble", "Particle"};
  a.stacks = {{2, 1}, {3, 1}};
  for (int i = 0; i < 5; ++i) a.samples.push_back({1, 1, 1, 64, 0});
  for (int i = 0; i < 3; ++i) a.samples.push_back({2, 2, 2, 2048, 0});
  // B: 20 frames, its tables in another order; Spawn 5 x 64 B, Emit gone, Draw new (4 x 32 B).
  FrameRecording b = Rec(20);
  b.methods = {"Game1.Draw", "BubbleField.Spawn", "Game1.Update"};
  b.types = {"Vertex", "Bubble"};
  b.stacks = {{1}, {2, 3}};
  for (int i = 0; i < 5; ++i) b.samples.push_back({3, 2, 2, 64, 0});
  for (int i = 0; i < 4; ++i) b.samples.push_back({4, 1, 1, 32, 0});

  const AllocationDiff d = DiffAllocations(a, b, AllocSiteKind::kStack);
  EXPECT_EQ(d.a.frames, 10u);
  EXPECT_EQ(d.b.frames, 20u);
  ASSERT_EQ(d.rows.size(), 3u);
  const Estimate bubble = One(64), particle = One(2048), vertex = One(32);

  const AllocDiffRow* spawn = AllocRow(d, "BubbleField.Spawn <- Game1.Update");
  ASSERT_TRUE(spawn);
  EXPECT_EQ(spawn->frames, (std::vector<std::string>{"BubbleField.Spawn", "Game1.Update"}));
  EXPECT_FALSE(spawn->only_a || spawn->only_b);
  EXPECT_NEAR(spawn->a_per_frame, 5 * bubble.bytes / 10, 1e-9);
  EXPECT_NEAR(spawn->b_per_frame, 5 * bubble.bytes / 20, 1e-9);
  EXPECT_NEAR(spawn->change, -5 * bubble.bytes / 20, 1e-9);
  EXPECT_NEAR(spawn->a_error, std::sqrt(5 * bubble.variance) / 10, 1e-9);
  EXPECT_NEAR(spawn->b_error, std::sqrt(5 * bubble.variance) / 20, 1e-9);
  EXPECT_NEAR(spawn->change_error, std::hypot(spawn->a_error, spawn->b_error), 1e-9);
  // A small object's estimate is about N bytes with an error about as large (one sample).
  EXPECT_NEAR(bubble.bytes, kN, 64);
  EXPECT_NEAR(bubble.Error(), kN, 64);

  const AllocDiffRow* emit = AllocRow(d, "Particles.Emit <- Game1.Update");
  ASSERT_TRUE(emit);
  EXPECT_TRUE(emit->only_a);
  EXPECT_EQ(emit->b_per_frame, 0);
  EXPECT_NEAR(emit->change, -3 * particle.bytes / 10, 1e-9);
  const AllocDiffRow* draw = AllocRow(d, "Game1.Draw");
  ASSERT_TRUE(draw);
  EXPECT_TRUE(draw->only_b);
  EXPECT_NEAR(draw->change, 4 * vertex.bytes / 20, 1e-9);
  // Largest |change| first: Emit (-~710 B/frame), then Spawn (-~264), then Draw (+~208).
  EXPECT_EQ(d.rows[0].site, emit->site);
  EXPECT_EQ(d.rows[1].site, spawn->site);
  EXPECT_EQ(d.rows[2].site, draw->site);
  // Totals: every sample, per frame, with its error.
  EXPECT_NEAR(d.a.per_frame, (5 * bubble.bytes + 3 * particle.bytes) / 10, 1e-9);
  EXPECT_NEAR(d.a.error, std::sqrt(5 * bubble.variance + 3 * particle.variance) / 10, 1e-9);

  // By type and by method the same samples group differently; names still match across ids.
  const AllocationDiff by_type = DiffAllocations(a, b, AllocSiteKind::kType);
  ASSERT_TRUE(AllocRow(by_type, "Bubble"));
  EXPECT_FALSE(AllocRow(by_type, "Bubble")->only_a || AllocRow(by_type, "Bubble")->only_b);
  EXPECT_TRUE(AllocRow(by_type, "Particle")->only_a);
  EXPECT_TRUE(AllocRow(by_type, "Vertex")->only_b);
  const AllocationDiff by_method = DiffAllocations(a, b, AllocSiteKind::kMethod);
  EXPECT_TRUE(AllocRow(by_method, "BubbleField.Spawn"));
  EXPECT_FALSE(AllocRow(by_method, "Game1.Update"));  // allocates nothing itself
  const AllocationDiff by_tag = DiffAllocations(a, b, AllocSiteKind::kTag);
  ASSERT_EQ(by_tag.rows.size(), 1u);
  EXPECT_EQ(by_tag.rows[0].site, "<untagged>");
}

TEST(AllocationDiff, ALargeObjectIsAlwaysSampledAndHasNoError) {
  FrameRecording a = Rec(1), b = Rec(1);
  a.types = b.types = {"Level"};
  a.samples = {{1, 0, 1, 1'000'000, 0}};  // ~1000 x the interval: p = 1
  const AllocationDiff d = DiffAllocations(a, b, AllocSiteKind::kType);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_NEAR(d.rows[0].a_per_frame, 1'000'000, 1e-3);
  EXPECT_NEAR(d.rows[0].a_error, 0, 1e-3);
  EXPECT_TRUE(d.rows[0].only_a);
}

}  // namespace
}  // namespace xrpm::analysis
