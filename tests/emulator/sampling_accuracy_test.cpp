// ctest-labels: threaded
// Allocation sampling against the truth: the emulator records every allocation exactly
// (AllocationLedger) while the runtime samples for 600 frames (10 s of game time at 60 Hz); the
// estimates must match the truth by total, by type and by site, every site with >= 1 % of the
// bytes must appear, per-frame bytes and GC markers must equal the runtime's own counts, and the
// stacks must be the scenario's named method frames.
//
// The sampling interval: bubbles allocates only ~1 MB in 10 s (one collection), and an unbiased
// sampler's relative error is about sqrt(N / bytes), so the bounds below are checked at
// N = 256 B (~4,000 samples: 1.6 % for the total, 3 sigma inside 5 %; a 1 % site expects ~40
// samples, so missing it has probability e^-40). docs/PERFORMANCE.md gives the error at 16 KiB.
//
// Deterministic: the game is seeded and runs on the test thread (no pacing); the sampler's gaps
// are seeded per subscription, so five subscriptions are five different, repeatable draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "recording_sink.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::testing {
namespace {

using emulator::AllocationLedger;
using emulator::GameLoop;
using emulator::Runtime;

constexpr uint64_t kFrames = 600;  // 10 s at 60 Hz
constexpr uint32_t kSampleBytes = 256;

struct Game {
  explicit Game(const char* scenario) {
    emulator::RuntimeConfig c;
    c.heap_reserve_bytes = 256u << 20;
    rt = std::make_unique<Runtime>(c);
    emulator::ScenarioParams p;
    p.name = scenario;
    sc = emulator::MakeScenario(p);
    GameLoop setup(*rt, *sc, {0, 0});
    setup.Setup();
  }
  // Runs `frames` frames with a fresh sink and ledger.
  void Run(uint64_t frames, RecordingSink* sink, AllocationLedger* ledger) {
    rt->SetFrameEventSink(sink, sink->rec.sample_bytes);
    rt->set_allocation_ledger(ledger);
    for (uint64_t f = 0; f < frames; ++f) {
      emulator::MutatorScope m(rt->world());
      rt->BeginFrame();
      sc->Frame(*rt, done + f, 1.0 / 60);
      rt->EndFrame();
    }
    done += frames;
    rt->set_allocation_ledger(nullptr);
    rt->SetFrameEventSink(nullptr, 0);
  }
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<emulator::Scenario> sc;
  uint64_t done = 0;
};

std::string SiteName(const Runtime& rt, emulator::MethodId m) {
  return m == emulator::kNoMethod ? "" : rt.methods()[m].name;
}

TEST(SamplingAccuracy, EstimatesMatchTheExactLedgerByTotalTypeAndSite) {
  Game g("bubbles");
  for (int run = 0; run < 5; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    RecordingSink sink(kSampleBytes);
    AllocationLedger truth;
    const uint64_t gcs_before = g.rt->gc().collections();
    g.Run(kFrames, &sink, &truth);
    const auto p = analysis::BuildAllocationProfile(sink.rec);

    // Per-frame figures are exact; GC markers equal the runtime's collections.
    ASSERT_EQ(p.frames, kFrames);
    EXPECT_EQ(p.exact_bytes, truth.total().bytes);
    EXPECT_EQ(p.exact_objects, truth.total().objects);
    uint64_t gcs = 0;
    for (const auto& f : sink.rec.frames) {
      gcs += f.gcs;
      if (f.gcs) {
        EXPECT_GT(f.gc_pause_us, 0u) << "frame " << f.frame;
      }
      // NETCF: one generation; bubbles never calls GC.Collect, its budget runs out.
      ASSERT_EQ(protocol::GcKindCount(f.gc_kinds), std::min<size_t>(f.gcs, protocol::kMaxGcKinds))
          << "frame " << f.frame;
      for (size_t k = 0; k < protocol::GcKindCount(f.gc_kinds); ++k)
        EXPECT_EQ(analysis::GcKindText(protocol::GcKindAt(f.gc_kinds, k)), "gen 0 allocation")
            << "frame " << f.frame;
      EXPECT_LE(f.gc_budget_left, int64_t{1} << 20);
    }
    EXPECT_EQ(gcs, g.rt->gc().collections() - gcs_before);
    EXPECT_GT(gcs, 0u) << "bubbles collects every few seconds";

    // Total within 5 %.
    const double total = double(truth.total().bytes);
    EXPECT_NEAR(p.total.bytes, total, 0.05 * total);
    EXPECT_NEAR(p.total.objects, double(truth.total().objects), 0.10 * truth.total().objects);

    // By type: every type with >= 5 % of the bytes within 25 % of its truth.
    std::map<std::string, double> est_type;
    for (const auto& t : p.by_type) est_type[t.type] = t.est.bytes;
    for (const auto& [type, t] : truth.by_type()) {
      const std::string& name = g.rt->types()[type].name;
      if (t.bytes < 0.05 * total) continue;
      EXPECT_NEAR(est_type[name], double(t.bytes), 0.25 * t.bytes) << name;
    }
    // By site (allocating method): every site with >= 1 % of the bytes appears; >= 5 % within
    // 25 %.
    std::map<std::string, double> est_site;
    for (const auto& m : p.by_method) est_site[m.method] = m.self.bytes;
    for (const auto& [site, t] : truth.by_site()) {
      const std::string name = SiteName(*g.rt, site);
      if (t.bytes < 0.01 * total) continue;
      EXPECT_GT(est_site[name], 0) << name << " allocates " << t.bytes << " of " << total;
      if (t.bytes >= 0.05 * total) {
        EXPECT_NEAR(est_site[name], double(t.bytes), 0.25 * t.bytes) << name;
      }
    }
  }
}

bool HasStack(const analysis::AllocationProfile& p, const std::vector<std::string>& inner,
              const std::string& type) {
  for (const auto& s : p.by_stack)
    if (s.type == type && s.frames.size() >= inner.size() &&
        std::equal(inner.begin(), inner.end(), s.frames.begin()))
      return true;
  return false;
}

TEST(SamplingAccuracy, StacksAreTheScenariosNamedMethodFrames) {
  Game g("bubbles");
  RecordingSink sink(1024);  // denser sampling: rare sites too
  g.Run(kFrames, &sink, nullptr);
  const auto p = analysis::BuildAllocationProfile(sink.rec);
  EXPECT_TRUE(HasStack(
      p,
      {"Bubbles.BubbleField.Spawn", "Bubbles.Game1.Update", "Microsoft.Xna.Framework.Game.Tick",
       "Microsoft.Xna.Framework.Game.Run", "Bubbles.Program.Main"},
      "Bubbles.Bubble"));
  // HUD text: Score.ToString() + String.Concat, String.Format with a boxed Int32.
  EXPECT_TRUE(
      HasStack(p, {"System.String.Concat", "Bubbles.ScoreBoard.RebuildText"}, "System.String"));
  EXPECT_TRUE(
      HasStack(p, {"System.String.Format", "Bubbles.ScoreBoard.RebuildText"}, "System.Int32"));
  // Boxing in event arguments and a per-frame vertex array.
  EXPECT_TRUE(HasStack(p, {"Bubbles.Game1.PopBubble"}, "Bubbles.PoppedEventArgs"));
  EXPECT_TRUE(HasStack(p, {"Bubbles.Game1.DrawBubbles", "Bubbles.Game1.Draw"},
                       "Microsoft.Xna.Framework.Graphics.VertexPositionColor[]"));
}

TEST(SamplingAccuracy, TheLeakScenariosLeakingAllocationIsFoundAtItsSite) {
  // The leak keeps every bubble's PoppedEventArgs handler (and so the bubble) alive through the
  // static BubblePopped event; the bubble is allocated in BubbleField.Spawn, its handler in
  // Bubble.OnSpawn, which Spawn calls.
  Game g("leak");
  RecordingSink sink(64);
  AllocationLedger truth;
  g.Run(kFrames, &sink, &truth);
  const auto p = analysis::BuildAllocationProfile(sink.rec);
  const std::vector<std::string> site = {"Bubbles.BubbleField.Spawn", "Bubbles.Game1.Update",
                                         "Microsoft.Xna.Framework.Game.Tick"};
  std::vector<std::string> on_spawn = site;
  on_spawn.insert(on_spawn.begin(), "Bubbles.Bubble.OnSpawn");
  EXPECT_TRUE(HasStack(p, on_spawn, "System.EventHandler`1[Bubbles.PoppedEventArgs]"));
  EXPECT_TRUE(HasStack(p, site, "Bubbles.Bubble"));
  // Every handler the leak keeps comes from there: the truth agrees on the site.
  const emulator::MethodId spawn = g.rt->methods().Intern("Bubbles.BubbleField.Spawn");
  ASSERT_TRUE(truth.by_site().count(spawn));
  EXPECT_GT(truth.by_site().at(spawn).objects, 0u);
}

}  // namespace
}  // namespace xrpm::testing
