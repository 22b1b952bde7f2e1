// The emulator's `leak` scenario end to end through the analysis engine: dumps of the same
// deterministic game after more and more frames (ids differ between dumps, like a device's),
// diffed by type; the leaking type must come out as a growth suspect held by the static event
// it was never unsubscribed from. And three captures of one run through the leak filter: it
// names the leaking types and the leaking site, nothing the game frees every frame.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "subprocess.h"
#include "xrpm/analysis/diff.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/leak_filter.h"
#include "xrpm/analysis/site_stats.h"
#include "xrpm/analysis/suspects.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/formats/snapshot_io.h"

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
  EXPECT_EQ(steps.front(), "System.EventHandler<Bubbles.PoppedEventArgs>");
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

// ---- the three-capture leak filter on one run of the game ----

// One run of `scenario`, captured at each of the given frame boundaries (the world stopped, a
// full collection, a walk: what a device capture does), with the allocation origins the
// emulator records. The game runs on this thread, so each capture is at exactly that frame
// however loaded the machine is.
std::vector<Snapshot> CapturesOfOneRun(const std::string& scenario,
                                       std::initializer_list<uint64_t> frames) {
  emulator::RuntimeConfig c;
  c.heap_reserve_bytes = 512u << 20;
  emulator::Runtime rt(c);
  std::unique_ptr<emulator::Scenario> s = emulator::MakeScenario({.name = scenario, .seed = 1});
  emulator::GameLoop loop(rt, *s, emulator::LoopConfig{0, 0});
  loop.Setup();
  std::vector<Snapshot> out;
  for (const uint64_t f : frames) {
    loop.RunHereUntil(f);
    EXPECT_EQ(loop.frames(), f) << loop.error();
    out.push_back(emulator::DumpToSnapshot(rt));
  }
  return out;
}

bool HasMethod(const Snapshot& s, uint32_t site, const std::string& method) {
  for (const std::string& m : SiteMethods(s, site))
    if (m == method) return true;
  return false;
}

// `xrpm leaks A B C --json --top 0` on the three captures saved as .xrpm (stderr dropped).
nlohmann::json LeaksCli(const std::vector<Snapshot>& caps) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xrpm_emu_leaks_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string args;
  for (size_t i = 0; i < caps.size(); ++i) {
    const std::string path = (dir / ("cap" + std::to_string(i) + ".xrpm")).string();
    formats::SaveSnapshot(caps[i], path);
    args += " " + path;
  }
  const std::string cmd =
      std::string(XRPM_CLI_BIN) + " leaks --json --top 0" + args + " 2>/dev/null";
  const xrpm::testing::RunResult run = xrpm::testing::RunShell(cmd);
  EXPECT_EQ(run.exit_code, 0) << cmd;
  const std::string& out = run.out;
  std::filesystem::remove_all(dir);
  return nlohmann::json::parse(out, nullptr, false);
}

// Captures at frames 300, 900 and 1800: a bubble lives at most ~14 s (840 frames) before it
// escapes the screen, so nothing spawned between A and B is still alive in C unless it leaked.
TEST(EmulatorLeak, LeakFilterNamesTheLeakingTypesAndSiteAndNothingFreedEveryFrame) {
  const std::vector<Snapshot> caps = CapturesOfOneRun("leak", {300, 900, 1800});
  for (const Snapshot& s : caps) ASSERT_TRUE(s.has_origins());
  const GraphIndex g = GraphIndex::Build(caps[2]);
  const RootPathForest forest = RootPathForest::Build(g);
  const LeakReport r = FindLeaks(caps[0], caps[1], g, forest);
  EXPECT_EQ(r.window_first, 300u);
  EXPECT_EQ(r.window_end, 900u);
  EXPECT_FALSE(r.sampled);
  ASSERT_FALSE(r.groups.empty());

  std::string listing;
  for (const LeakGroup& lg : r.groups)
    listing += std::string(lg.type) + " @ " + SiteLabel(caps[2], lg.site, 0, " <- ") + " x" +
               std::to_string(lg.count) + "\n";
  const LeakGroup* bubbles = nullptr;
  const LeakGroup* handlers = nullptr;
  uint64_t spawned_bytes = 0;
  for (const LeakGroup& lg : r.groups) {
    const std::vector<std::string> site = SiteMethods(caps[2], lg.site);
    if (lg.type == "Bubbles.Bubble" && !site.empty() && site[0] == "Bubbles.BubbleField.Spawn")
      bubbles = &lg;
    if (lg.type.starts_with("System.EventHandler") && !site.empty() &&
        site[0] == "Bubbles.Bubble.OnSpawn")
      handlers = &lg;
    if (HasMethod(caps[2], lg.site, "Bubbles.BubbleField.Spawn")) spawned_bytes += lg.bytes;
    // Nothing the game allocates and drops every frame or every pop.
    for (const char* transient : {"Bubbles.Particle", "Bubbles.PoppedEventArgs",
                                  "Microsoft.Xna.Framework.Graphics.VertexPositionColor[]"})
      EXPECT_NE(lg.type, transient) << listing;
  }
  ASSERT_TRUE(bubbles) << listing;
  ASSERT_TRUE(handlers) << listing;
  EXPECT_GT(bubbles->count, 10u) << listing;              // a spawn every ~40 frames
  EXPECT_EQ(handlers->count, bubbles->count) << listing;  // one handler per leaked bubble
  EXPECT_GT(spawned_bytes * 10, r.bytes * 9) << listing;  // the leak is nearly all of it
  // What holds them: the static event's invocation list.
  ASSERT_FALSE(bubbles->paths.paths.empty());
  const MergedPath& top = bubbles->paths.paths[0];
  EXPECT_EQ(top.root_kind, RootKind::kStatic);
  ASSERT_NE(top.root_container, kNoIndex);
  EXPECT_EQ(caps[2].types[top.root_container].name, "Bubbles.GameEvents");
  EXPECT_EQ(top.count, bubbles->count);

  // The same through the CLI, from the captures saved as .xrpm.
  const nlohmann::json j = LeaksCli(caps);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["groups"].size(), r.groups.size());
  bool bubble_row = false, handler_row = false;
  for (const nlohmann::json& x : j["groups"]) {
    EXPECT_NE(x["type"], "Bubbles.Particle");
    bubble_row |= x["type"] == "Bubbles.Bubble" && x["site"][0] == "Bubbles.BubbleField.Spawn" &&
                  x["count"] == bubbles->count &&
                  x["path"].get<std::string>().starts_with("static Bubbles.GameEvents");
    handler_row |= x["site"][0] == "Bubbles.Bubble.OnSpawn" && x["count"] == handlers->count;
  }
  EXPECT_TRUE(bubble_row) << j.dump(1);
  EXPECT_TRUE(handler_row) << j.dump(1);

  // The fixed game: the same window leaves nothing allocated by BubbleField.Spawn alive.
  const std::vector<Snapshot> fixed = CapturesOfOneRun("bubbles", {300, 900, 1800});
  const GraphIndex fg = GraphIndex::Build(fixed[2]);
  const RootPathForest ff = RootPathForest::Build(fg);
  for (const LeakGroup& lg : FindLeaks(fixed[0], fixed[1], fg, ff).groups)
    EXPECT_FALSE(HasMethod(fixed[2], lg.site, "Bubbles.BubbleField.Spawn"))
        << lg.type << " @ " << SiteLabel(fixed[2], lg.site, 0, " <- ");
}

}  // namespace
}  // namespace xrpm::analysis
