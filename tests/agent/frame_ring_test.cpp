// ctest-labels: threaded
// The agent's frame ring and stack interning (FrameRing, FrameTracker), the allocation sampler
// and the host's estimator, without a runtime or a network.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "frame_ring.h"
#include "frame_tracker.h"
#include "xrpm/agent/frame_events.h"
#include "xrpm/agent/gc_tally.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/sampling.h"

namespace xrpm::testing {
namespace {

using agent::FrameRing;
using agent::FrameTracker;
using agent::RingRecord;

RingRecord Rec(uint64_t v) {
  RingRecord r{};
  for (auto& w : r.w) w = v;
  return r;
}

TEST(FrameRing, KeepsTheNewestRecordsAndCountsTheOverwrittenOnes) {
  FrameRing ring(8);
  // Nobody reads while the producer pushes far more than the ring holds: it never waits and
  // keeps its size.
  for (uint64_t i = 0; i < 1000; ++i) ring.Push(Rec(i));
  RingRecord r;
  std::vector<uint64_t> got;
  while (ring.Peek(&r)) {
    for (auto w : r.w) ASSERT_EQ(w, r.w[0]) << "a torn record";
    got.push_back(r.w[0]);
    ring.Pop();
  }
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got.front(), 992u);
  EXPECT_EQ(got.back(), 999u);
  EXPECT_EQ(ring.dropped(), 992u);
  EXPECT_FALSE(ring.Peek(&r));
  ring.Push(Rec(1000));
  ASSERT_TRUE(ring.Peek(&r));
  EXPECT_EQ(r.w[0], 1000u);
}

agent::AllocationSample Sample(uint64_t frame, const std::vector<uint64_t>& keys,
                               const std::vector<const char*>& names, uint64_t type_key,
                               const char* type, uint32_t size) {
  return {frame,       size,        type_key, type, static_cast<uint32_t>(keys.size()),
          keys.data(), names.data()};
}

TEST(FrameTracker, SendsEachDefinitionOnceAndBeforeTheRowsThatUseIt) {
  FrameTracker t(64);
  const std::vector<uint64_t> k1 = {10, 11, 12};
  const std::vector<const char*> n1 = {"Bubbles.BubbleField.Spawn", "Bubbles.Game1.Update",
                                       "Microsoft.Xna.Framework.Game.Tick"};
  const std::vector<uint64_t> k2 = {20, 11, 12};
  const std::vector<const char*> n2 = {"System.String.Concat", "Bubbles.Game1.Update",
                                       "Microsoft.Xna.Framework.Game.Tick"};
  for (int i = 0; i < 3; ++i) {
    t.OnAllocationSample(Sample(0, k1, n1, 7, "Bubbles.Bubble", 48));
    t.OnAllocationSample(Sample(0, k2, n2, 8, "System.String", 30));
  }
  t.OnFrame({0, 1000, 16667, 2000, 4096, 40, 1, 1500, 1000,
             protocol::AppendGcKind(0, 2, protocol::GcReason::kInduced)});

  wire::FrameBatch b;
  ASSERT_TRUE(t.Fill(&b));
  ASSERT_EQ(b.methods_size(), 4) << "Update and Tick are shared by both stacks";
  EXPECT_EQ(b.methods(0).name(), "Bubbles.BubbleField.Spawn");
  ASSERT_EQ(b.stacks_size(), 2);
  EXPECT_EQ(b.stacks(0).methods_size(), 3);
  EXPECT_EQ(b.stacks(0).methods(1), b.stacks(1).methods(1));
  ASSERT_EQ(b.types_size(), 2);
  ASSERT_EQ(b.samples_size(), 6);
  EXPECT_EQ(b.samples(0).stack(), 1u);
  EXPECT_EQ(b.samples(1).stack(), 2u);
  EXPECT_EQ(b.samples(1).type(), 2u);
  EXPECT_EQ(b.samples(1).size(), 30u);
  ASSERT_EQ(b.frames_size(), 1);
  EXPECT_EQ(b.frames(0).gcs(), 1u);
  EXPECT_EQ(b.frames(0).gc_pause_us(), 1500u);
  EXPECT_EQ(b.frames(0).gc_budget_left(), 1000);
  EXPECT_EQ(analysis::GcKindsText(b.frames(0).gc_kinds()), "gen 2 induced");
  EXPECT_EQ(b.dropped_records(), 0u);

  // Nothing new: nothing to send; a known stack again: a row without definitions.
  wire::FrameBatch empty;
  EXPECT_FALSE(t.Fill(&empty));
  t.OnAllocationSample(Sample(1, k1, n1, 7, "Bubbles.Bubble", 48));
  wire::FrameBatch again;
  ASSERT_TRUE(t.Fill(&again));
  EXPECT_EQ(again.methods_size() + again.stacks_size() + again.types_size(), 0);
  EXPECT_EQ(again.samples_size(), 1);
}

TEST(FrameTracker, ASlowHostLosesTheOldestRecordsAndIsToldHowMany) {
  FrameTracker t(16);
  for (uint64_t f = 0; f < 100; ++f) t.OnFrame({f, f, 16667, 1000, 0, 0, 0, 0, -1});
  wire::FrameBatch b;
  ASSERT_TRUE(t.Fill(&b));
  ASSERT_EQ(b.frames_size(), 16);
  EXPECT_EQ(b.frames(0).frame(), 84u);
  EXPECT_EQ(b.dropped_records(), 84u);
}

TEST(FrameTracker, AFullStackTableReportsIdZeroInsteadOfGrowing) {
  FrameTracker t(protocol::kMaxFrameDefs + 16);
  std::vector<std::string> names;
  for (uint32_t i = 0; i <= protocol::kMaxFrameDefs; ++i) names.push_back("M" + std::to_string(i));
  for (uint32_t i = 0; i <= protocol::kMaxFrameDefs; ++i) {
    const std::vector<uint64_t> k = {i};
    const std::vector<const char*> n = {names[i].c_str()};
    t.OnAllocationSample(Sample(0, k, n, 1, "T", 16));
  }
  uint32_t methods = 0, stacks = 0, rows = 0, unknown = 0;
  for (int guard = 0; guard < 100; ++guard) {
    wire::FrameBatch b;
    if (!t.Fill(&b)) break;
    methods += b.methods_size();
    stacks += b.stacks_size();
    rows += b.samples_size();
    for (const auto& s : b.samples()) unknown += s.stack() == 0;
  }
  EXPECT_EQ(methods, protocol::kMaxFrameDefs);
  EXPECT_EQ(stacks, protocol::kMaxFrameDefs);
  EXPECT_EQ(rows, protocol::kMaxFrameDefs + 1);
  EXPECT_EQ(unknown, 1u);
}

TEST(AllocationSampler, SamplesEachSizeWithTheStatedProbability) {
  // p(s) = 1 - exp(-s / N) for small and large objects alike: no size bias.
  for (uint32_t size : {16u, 1024u, 16384u, 65536u}) {
    agent::AllocationSampler s;
    s.Reset(16384, 42 + size);
    const int n = 200000;
    int hits = 0;
    for (int i = 0; i < n; ++i) hits += s.Take(size);
    const double p = protocol::SampleProbability(size, 16384);
    const double sd = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(hits, n * p, 5 * sd + 1) << "size " << size;
  }
  agent::AllocationSampler off;
  off.Reset(0, 1);
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(off.Take(1u << 30));
}

TEST(AllocationProfile, ScalesSamplesAndBuildsBottomUpAndTopDownViews) {
  FrameRecording r;
  r.sample_bytes = 1024;
  r.methods = {"Spawn", "Update", "Tick", "Concat"};
  r.types = {"Bubble", "String"};
  r.stacks = {{1, 2, 3}, {4, 2, 3}};
  for (uint64_t f = 0; f < 4; ++f) r.frames.push_back({f, 0, 16667, 1000, 4096, 4, 0, 0, -1});
  r.samples = {{0, 1, 1, 1024}, {1, 1, 1, 1024}, {2, 2, 2, 1 << 20}, {3, 2, 2, 64}};
  const auto p = analysis::BuildAllocationProfile(r);
  const double w1024 = 1024 / -std::expm1(-1.0);
  const double w64 = 64 / -std::expm1(-64.0 / 1024);
  EXPECT_NEAR(p.total.bytes, 2 * w1024 + (1 << 20) + w64, 1e-3 * (1 << 20));
  EXPECT_EQ(p.total.samples, 4u);
  EXPECT_EQ(p.total.sampled_bytes, 2048u + (1 << 20) + 64u);
  ASSERT_EQ(p.by_type.size(), 2u);
  EXPECT_EQ(p.by_type[0].type, "String");
  ASSERT_EQ(p.by_method[0].method, "Concat");
  // Update is on every stack: its total is everything, its self nothing.
  for (const auto& m : p.by_method)
    if (m.method == "Update") {
      EXPECT_NEAR(m.total.bytes, p.total.bytes, 1e-6 * p.total.bytes);
      EXPECT_EQ(m.self.samples, 0u);
    }
  // Top-down: root -> Tick -> Update -> {Concat, Spawn}.
  ASSERT_EQ(p.tree[0].children.size(), 1u);
  const auto& tick = p.tree[p.tree[0].children[0]];
  EXPECT_EQ(tick.method, "Tick");
  const auto& update = p.tree[tick.children.at(0)];
  ASSERT_EQ(update.children.size(), 2u);
  EXPECT_EQ(p.tree[update.children[0]].method, "Concat");
  EXPECT_EQ(p.tree[update.children[1]].method, "Spawn");
  // A frame range selects its samples only.
  const auto one = analysis::BuildAllocationProfile(r, {0, 1});
  EXPECT_EQ(one.total.samples, 2u);
  EXPECT_EQ(one.frames, 2u);
  EXPECT_EQ(one.by_type.size(), 1u);
}

TEST(FrameSummary, CountsMissedFramesGcShareAndGaps) {
  FrameRecording r;
  using protocol::AppendGcKind;
  using protocol::GcReason;
  r.frames = {
      {0, 0, 16000, 5000, 100, 1, 0, 0, -1},
      {1, 0, 40000, 30000, 100, 1, 3, 25000, -1,
       AppendGcKind(AppendGcKind(AppendGcKind(0, 0, GcReason::kAllocation), 2, GcReason::kInduced),
                    0, GcReason::kAllocation)},
      {3, 0, 20000, 5000, 100, 1, 0, 0, -1}};
  const auto s = analysis::SummarizeFrames(r);
  EXPECT_EQ(s.frames, 3u);
  EXPECT_EQ(s.missing_frames, 1u);
  EXPECT_EQ(s.over_60hz, 2u);
  EXPECT_EQ(s.over_30hz, 1u);
  EXPECT_EQ(s.gcs, 3u);
  ASSERT_EQ(s.gcs_by_kind.size(), 2u) << "by generation and reason, in the order first met";
  EXPECT_EQ(analysis::GcKindText(s.gcs_by_kind[0].kind), "gen 0 allocation");
  EXPECT_EQ(s.gcs_by_kind[0].count, 2u);
  EXPECT_EQ(analysis::GcKindText(s.gcs_by_kind[1].kind), "gen 2 induced");
  EXPECT_EQ(s.gcs_by_kind[1].count, 1u);
  EXPECT_NEAR(s.gc_share, 25.0 / 76.0, 1e-9);
  EXPECT_NEAR(s.max_ms, 40.0, 1e-9);
}

// The collections between two frames, taken whole by the game thread while the collector adds:
// a frame never carries more kinds than collections.
TEST(GcTally, TakesCountPauseAndKindsTogether) {
  agent::GcTally tally;
  tally.Add(100, 0, protocol::GcReason::kAllocation);
  tally.Add(2500, 2, protocol::GcReason::kInduced);
  const agent::GcTally::Taken t = tally.Take();
  EXPECT_EQ(t.gcs, 2u);
  EXPECT_EQ(t.pause_us, 2600u);
  EXPECT_EQ(analysis::GcKindsText(t.kinds), "gen 0 allocation, gen 2 induced");
  EXPECT_EQ(tally.Take().gcs, 0u) << "taken: starts again from nothing";

  std::atomic<bool> done{false};
  std::thread collector([&] {
    for (int i = 0; i < 20000; ++i) tally.Add(1, 1, protocol::GcReason::kOther);
    done = true;
  });
  uint64_t gcs = 0;
  bool consistent = true;
  for (bool last = false; !last;) {
    last = done.load();
    const agent::GcTally::Taken x = tally.Take();
    gcs += x.gcs;
    consistent &= protocol::GcKindsValid(x.kinds, x.gcs) &&
                  protocol::GcKindCount(x.kinds) == std::min<size_t>(x.gcs, protocol::kMaxGcKinds);
  }
  collector.join();
  gcs += tally.Take().gcs;
  EXPECT_EQ(gcs, 20000u);
  EXPECT_TRUE(consistent);
}

}  // namespace
}  // namespace xrpm::testing
