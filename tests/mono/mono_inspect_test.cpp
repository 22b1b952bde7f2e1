// `xrpm inspect` on a capture of a real C# program under xrpm-mono: Mistakes.exe
// (tests/mono/programs/Mistakes) plants each mistake a known number of times. The runtime's own
// heap (the BCL's strings, boxes and collections) adds findings of its own, so each planted one
// is checked by its `what` with its exact count, and the near-misses by their absence.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "mono_process.h"
#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

const nlohmann::json* FindingOf(const nlohmann::json& j, const std::string& inspection,
                                const std::string& what) {
  for (const auto& in : j["inspections"])
    if (in["name"] == inspection)
      for (const auto& f : in["findings"])
        if (f["what"] == what) return &f;
  return nullptr;
}

TEST(MonoInspect, FindsTheMistakesPlantedInACSharpGame) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "Mistakes.Program:Tick", "--frame-window-ms", "30000"}, "Mistakes.exe",
              {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Mistakes: ready", 30000).empty()) << run.proc->log().All();
  const TempDir dir("xrpm_mono_inspect");
  const std::string file = dir.Path("mistakes.xrpm");
  RunResult cap =
      RunProcess({XRPM_CLI_BIN, "capture", "--connect", run.endpoint, "-o", file}, 120000);
  ASSERT_EQ(cap.exit_code, 0) << cap.err << run.proc->log().All();
  RunResult r = RunProcess({XRPM_CLI_BIN, "inspect", file, "--json"}, 120000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);

  struct Planted {
    const char* inspection;
    const char* what;
    uint64_t count;
  };
  for (const Planted& p : {Planted{"duplicate-strings", "Grunt #", 5},
                           Planted{"event-handler-leaks",
                                   "static Mistakes.GameEvents.EnemyKilled -> Mistakes.Enemy", 4},
                           Planted{"disposed-but-held", "Mistakes.Texture", 2},
                           Planted{"boxed-values", "Mistakes.Weapon", 3},
                           // live objects of a type with a finalizer (the capture's type flag)
                           Planted{"finalizable", "Mistakes.SoundHandle", 2}}) {
    const nlohmann::json* f = FindingOf(j, p.inspection, p.what);
    ASSERT_NE(f, nullptr) << p.inspection << " / " << p.what << "\n" << r.out.substr(0, 6000);
    EXPECT_EQ((*f)["count"], p.count) << p.what;
  }
  EXPECT_EQ(FindingOf(j, "duplicate-strings", "Boss #"), nullptr);    // held once
  EXPECT_EQ(FindingOf(j, "finalizable", "Mistakes.Enemy"), nullptr);  // no finalizer
  EXPECT_EQ(FindingOf(j, "finalizable", "Mistakes.Texture"), nullptr);
  // Sparse: the spawn queue (1 of 32), not the enemy list (5 of 16), found as Lists by their
  // canonical names (Mono writes List<T>), their arrays counted with them; the nine empty
  // List<int>(4096), not the one holding 2000.
  uint64_t enemy_lists = 0;
  for (const auto& in : j["inspections"])
    if (in["name"] == "sparse-collections")
      for (const auto& f : in["findings"])
        if (f["what"].get<std::string>().find("Mistakes.Enemy") != std::string::npos)
          enemy_lists += f["count"].get<uint64_t>();
  EXPECT_EQ(enemy_lists, 1u) << r.out.substr(0, 6000);
  const nlohmann::json* queue =
      FindingOf(j, "sparse-collections", "System.Collections.Generic.List<Mistakes.Enemy>");
  ASSERT_NE(queue, nullptr) << r.out.substr(0, 6000);
  EXPECT_EQ((*queue)["count"], 1u);
  const nlohmann::json* ints =
      FindingOf(j, "sparse-collections", "System.Collections.Generic.List<System.Int32>");
  ASSERT_NE(ints, nullptr) << r.out.substr(0, 6000);
  EXPECT_EQ((*ints)["count"], 9u);
}

}  // namespace
}  // namespace xrpm::testing
