// `xrpm inspect` on a live capture of the emulator's `mistakes` game (mistakes_scenario.h), which
// plants each mistake the inspections find a known number of times next to near-misses: every
// inspection reports exactly the planted finding, with its count, and nothing else; so does the
// emulator's own ground-truth dump of the game (xrpm-emulator --dump FILE.xrpm).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

struct Expected {
  std::string what;
  uint64_t count;
};

// Every inspection of `file` reports exactly the planted findings, with their counts, and
// nothing else (the near-misses of mistakes_scenario.h are not found); none is skipped, and
// none says it guessed: the emulator reports every type's traits.
void ExpectThePlantedMistakes(const std::string& file) {
  RunResult r = RunProcess({kXrpm, "inspect", file, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::map<std::string, std::vector<Expected>> planted = {
      {"duplicate-strings", {{"Grunt", 5}}},  // not "Boss" (held once), not "Reserve k"
      // not the subscriber the enemy list also holds
      {"event-handler-leaks", {{"static Mistakes.GameEvents.EnemyKilled -> Mistakes.Enemy", 4}}},
      // not the texture in use, nor the disposed one dropped
      {"disposed-but-held", {{"Microsoft.Xna.Framework.Graphics.Texture2D", 2}}},
      // not the enemy list at 5 of 16, the reserve at 12 of 20, the List<int> of 2000
      {"sparse-collections",
       {{"System.Collections.Generic.List<System.Int32>", 9},
        {"System.Collections.Generic.List<Mistakes.Enemy>", 1}}},
      // a struct no field declares (the type's trait), and Int32; not the boxes dropped
      {"boxed-values", {{"Mistakes.Hit", 40}, {"System.Int32", 3}}},
      // the two on the finalizer queue and the two the game holds (a type with a finalizer)
      {"finalizable", {{"Mistakes.SoundHandle", 4}}},
  };
  ASSERT_EQ(j["inspections"].size(), planted.size()) << r.out;
  for (const auto& in : j["inspections"]) {
    const std::string name = in["name"];
    SCOPED_TRACE(name);
    EXPECT_TRUE(in["skipped"].is_null());
    EXPECT_TRUE(in["note"].is_null()) << in["note"];
    const std::vector<Expected>& want = planted.at(name);
    ASSERT_EQ(in["findings"].size(), want.size()) << in.dump(1);
    for (size_t i = 0; i < want.size(); ++i) {  // by bytes: the order above
      const auto& f = in["findings"][i];
      EXPECT_EQ(f["what"], want[i].what);
      EXPECT_EQ(f["count"], want[i].count) << want[i].what;
      EXPECT_EQ(f["objects"].size(), want[i].count) << want[i].what;
      EXPECT_GT(f["bytes"].get<uint64_t>(), 0u);
    }
  }
  // The leak's path names the static event and the delegate's target field.
  const auto& leak = j["inspections"][1]["findings"][0];
  EXPECT_NE(leak["path"].get<std::string>().find("_target"), std::string::npos) << leak;
}

TEST(InspectEmulator, FindsExactlyTheMistakesPlantedInTheGame) {
  const TempDir dir("xrpm_inspect_emulator");
  EmulatorProcess emu({"--scenario", "mistakes"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  const std::string file = dir.Path("mistakes.xrpm");
  RunResult cap = RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "-o", file});
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
  ExpectThePlantedMistakes(file);
}

// The emulator's own dump, without a host: the same findings, every inspection run.
TEST(InspectEmulator, ItsGroundTruthDumpFindsTheSameMistakes) {
  const TempDir dir("xrpm_inspect_emulator_dump");
  const std::string file = dir.Path("mistakes.xrpm");
  RunResult dump = RunProcess({XRPM_EMULATOR_BIN, "--port", "0", "--scenario", "mistakes",
                               "--frames", "120", "--dump", file, "--quiet"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  ExpectThePlantedMistakes(file);
}

}  // namespace
}  // namespace xrpm::testing
