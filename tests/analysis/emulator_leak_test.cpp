// The emulator's `leak` scenario end to end through the analysis engine: dumps of the same
// deterministic game after more and more frames (ids differ between dumps, like a device's),
// diffed by type; the leaking type must come out as a growth suspect held by the static event
// it was never unsubscribed from.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "xrpm/core/analysis/diff.h"
#include "xrpm/core/analysis/heap_analysis.h"
#include "xrpm/core/analysis/suspects.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::analysis {
namespace {

// Runs a fresh emulated device `frames` frames and dumps its heap (ground truth, after a GC).
Snapshot DumpAfter(const std::string& scenario, uint64_t frames) {
  emulator::RuntimeConfig c;
  c.heap_reserve_bytes = 512u << 20;
  emulator::Runtime rt(c);
  std::unique_ptr<emulator::Scenario> s = emulator::MakeScenario({.name = scenario, .seed = 1});
  emulator::GameLoop loop(rt, *s, emulator::LoopConfig{0, frames});
  loop.Setup();
  loop.RunHere();
  return emulator::DumpToSnapshot(rt);
}

TEST(EmulatorLeak, DiffNamesTheLeakingTypeAndTheEventThatHoldsIt) {
  std::vector<Snapshot> snaps;
  for (uint64_t frames : {300, 700, 1100}) snaps.push_back(DumpAfter("leak", frames));
  std::vector<HeapSummary> sums;
  for (const Snapshot& s : snaps) sums.push_back(Summarize(HeapAnalysis::Run(s)));
  const HeapDiff diff = DiffSummaries(sums);
  const HeapAnalysis last = HeapAnalysis::Run(snaps.back());
  const std::vector<Suspect> sus = FindGrowthSuspects(diff, last);

  const Suspect* bubble = nullptr;
  for (size_t i = 0; i < sus.size() && i < 3; ++i)  // among the top growers
    if (last.index.group_name(sus[i].group) == "Bubbles.Bubble") bubble = &sus[i];
  ASSERT_TRUE(bubble) << "growth suspects: " << sus.size();
  EXPECT_GT(bubble->count_growth, 30);
  EXPECT_GT(bubble->retained_growth, 0);

  // Most bubbles are held along one path: the static event's invocation list.
  ASSERT_FALSE(bubble->holders.paths.empty());
  const MergedPath& top = bubble->holders.paths[0];
  EXPECT_GT(top.count * 2, bubble->holders.instances);
  EXPECT_EQ(top.root_kind, RootKind::kStatic);
  ASSERT_NE(top.root_container, kNoIndex);
  EXPECT_EQ(snaps.back().types[top.root_container].name, "Bubbles.GameEvents");
  std::vector<std::string> steps;
  for (const MergedStep& st : top.steps) steps.push_back(last.index.group_name(st.group));
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps.front(), "System.EventHandler`1[Bubbles.PoppedEventArgs]");
  EXPECT_NE(std::find(steps.begin(), steps.end(), "System.Object[]"), steps.end());
  EXPECT_EQ(steps.back(), "Bubbles.Bubble");
}

TEST(EmulatorLeak, TheFixedGameDoesNotAccumulateBubbles) {
  std::vector<HeapSummary> sums;
  for (uint64_t frames : {300, 700, 1100}) {
    Snapshot s = DumpAfter("bubbles", frames);
    sums.push_back(Summarize(HeapAnalysis::Run(s)));
  }
  for (const TypeSeries& r : DiffSummaries(sums).rows) {
    if (r.name != "Bubbles.Bubble") continue;
    EXPECT_LT(r.count_delta, 30) << "bubbles come and go";
  }
}

}  // namespace
}  // namespace xrpm::analysis
