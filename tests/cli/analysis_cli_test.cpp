// The analysis verbs end to end: `xrpm report|dominators|paths|diff` on .gclog files written by
// the canonical writer, and `xrpm leaks`, `types --by-site`, `report --by-site` on .xrpm
// captures of a simulated leaking game (leak_game.h), checking their JSON, their text and their
// exit codes (0/1/2).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "game_heap.h"
#include "leak_game.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int rc = -1;
  std::string out;
};

class AnalysisCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xrpm_analysis_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    for (int i = 0; i < 3; ++i) {
      const std::string path = File("dump" + std::to_string(i + 1) + ".gclog");
      formats::SaveSnapshot(
          testing::GameSnapshot(100 + 50 * i, 20 - 5 * i, 10, ObjectId(i + 1) << 28), path);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string File(const std::string& name) const { return (dir_ / name).string(); }

  // Runs xrpm with `args` (stdout captured; stderr dropped, or captured too).
  Result Xrpm(const std::string& args, bool with_stderr = false) const {
    Result r;
    const xrpm::testing::RunResult run = xrpm::testing::RunXrpm(args, with_stderr);
    r.out = run.out;
    r.rc = run.exit_code;
    return r;
  }
  json XrpmJson(const std::string& args) const {
    Result r = Xrpm(args + " --json");
    EXPECT_EQ(r.rc, 0) << args;
    return json::parse(r.out, nullptr, false);
  }

  fs::path dir_;
};

TEST_F(AnalysisCli, ReportFindsTheBigObjectAndItsPath) {
  json j = XrpmJson("report " + File("dump1.gclog"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["totals"]["objects"], 3 + 2 * 100 + 20 + 10);
  EXPECT_EQ(j["totals"]["reachable_objects"], 3 + 2 * 100 + 20 + 10);
  EXPECT_EQ(j["top_types_by_retained"][0]["type"], "Game");
  ASSERT_FALSE(j["suspects"].empty());
  const json& top = j["suspects"][0];
  EXPECT_EQ(top["kind"], "object");
  EXPECT_EQ(top["type"], "Enemy[]");
  EXPECT_EQ(top["most_retained_in"]["type"], "Enemy");
  EXPECT_EQ(top["path"]["root"]["kind"], "static");
  EXPECT_EQ(top["path"]["root"]["container"], "Game");
  EXPECT_EQ(top["path"]["hops"].size(), 3u);

  Result text = Xrpm("report " + File("dump1.gclog"));
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("Leak suspects"), std::string::npos);
  EXPECT_NE(text.out.find("Enemy[]@10000300"), std::string::npos);
  EXPECT_NE(text.out.find("<- root: static Game"), std::string::npos);
}

TEST_F(AnalysisCli, DominatorsShowsTheTreeToTheRequestedDepth) {
  json j = XrpmJson("dominators " + File("dump1.gclog") + " --top 1 --depth 3");
  ASSERT_EQ(j["dominators"].size(), 1u);
  const json& game = j["dominators"][0];
  EXPECT_EQ(game["type"], "Game");
  EXPECT_EQ(game["id"], "10000100");
  ASSERT_EQ(game["children"].size(), 1u);
  EXPECT_EQ(game["children"][0]["type"], "List");
  ASSERT_EQ(game["children"][0]["children"].size(), 1u);
  EXPECT_EQ(game["children"][0]["children"][0]["type"], "Enemy[]");
  EXPECT_FALSE(game["children"][0]["children"][0].contains("children"));  // depth 3 ends here
  EXPECT_EQ(j["top_level_count"], 1 + 20 + 10);

  Result text = Xrpm("dominators " + File("dump1.gclog") + " --top 2");
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("Game@10000100"), std::string::npos);
}

// --lean keeps no copy of the references (the dominators resolve each one as they go): the
// same tree, to the byte, as with the copy.
TEST_F(AnalysisCli, DominatorsWithoutACopyOfTheReferencesGiveTheSameTree) {
  for (const char* dump : {"dump1.gclog", "dump3.gclog"}) {
    const std::string args = std::string("dominators ") + File(dump) + " --top 5 --depth 4";
    const Result with_copy = Xrpm(args + " --json");
    const Result lean = Xrpm(args + " --json --lean");
    EXPECT_EQ(with_copy.rc, 0);
    EXPECT_EQ(lean.rc, 0);
    EXPECT_EQ(lean.out, with_copy.out) << dump;
  }
}

TEST_F(AnalysisCli, PathsForAnObjectAndForAType) {
  json j = XrpmJson("paths " + File("dump1.gclog") + " --object 0x10010040");
  std::vector<std::string> types;
  for (const json& h : j["path"]["hops"]) types.push_back(h["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{"Enemy", "Enemy[]", "List", "Game"}));
  EXPECT_EQ(j["path"]["root"]["descriptor"], 4);

  j = XrpmJson("paths " + File("dump1.gclog") + " --type Sprite");
  EXPECT_EQ(j["type"], "Sprite");
  ASSERT_EQ(j["merged_paths"]["paths"].size(), 1u);
  const json& p = j["merged_paths"]["paths"][0];
  EXPECT_EQ(p["instances"], 100);
  EXPECT_EQ(p["steps"].size(), 5u);  // Game, List, Enemy[], Enemy, Sprite
  EXPECT_EQ(p["root"]["container"], "Game");

  Result text = Xrpm("paths " + File("dump1.gclog") + " --type sprite");  // case-insensitive
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("static Game -> Game -> List -> Enemy[] -> Enemy -> Sprite"),
            std::string::npos);
}

TEST_F(AnalysisCli, PathsRejectsBadRequests) {
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog") + " --type Nope").rc, 1);
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog") + " --type E").rc, 1);  // ambiguous
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog") + " --object zz").rc, 1);
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog") + " --object 12345").rc, 1);  // no such object
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog")).rc, 2);
  EXPECT_EQ(Xrpm("paths " + File("dump1.gclog") + " --object 1 --type Enemy").rc, 2);
  EXPECT_EQ(Xrpm("paths " + File("missing.gclog") + " --type Enemy").rc, 1);
}

TEST_F(AnalysisCli, DiffRanksGrowthAndNamesTheHolders) {
  json j = XrpmJson("diff " + File("dump1.gclog") + " " + File("dump2.gclog") + " " +
                    File("dump3.gclog"));
  ASSERT_EQ(j["snapshots"].size(), 3u);
  const json& first = j["types"][0];
  EXPECT_EQ(first["type"], "Enemy[]");  // retains everything that grew and grew itself
  bool saw_enemy = false;
  for (const json& t : j["types"]) {
    if (t["type"] != "Enemy") continue;
    saw_enemy = true;
    EXPECT_EQ(t["count_delta"], 100);
    EXPECT_EQ(t["snapshots"][1]["count"], 150);
    EXPECT_TRUE(t["grows_steadily"]);
  }
  EXPECT_TRUE(saw_enemy);
  ASSERT_FALSE(j["growth_suspects"].empty());
  const json& s = j["growth_suspects"][0];
  EXPECT_EQ(s["type"], "Enemy");
  EXPECT_EQ(s["growth"]["count"], 100);
  std::vector<std::string> steps;
  for (const json& st : s["holders"]["paths"][0]["steps"]) steps.push_back(st["type"]);
  EXPECT_EQ(steps, (std::vector<std::string>{"Game", "List", "Enemy[]", "Enemy"}));

  Result text = Xrpm("diff " + File("dump1.gclog") + " " + File("dump3.gclog"));
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("Enemy"), std::string::npos);
  EXPECT_NE(text.out.find("+100"), std::string::npos);
  EXPECT_EQ(Xrpm("diff " + File("dump1.gclog")).rc, 2);
}

TEST_F(AnalysisCli, StrictRejectsDanglingReferences) {
  const std::string path = File("dangling.gclog");
  std::ofstream(path) << "a 2 x.exe 1\nt 1 A\no 10 1 8 20\nr 10 1 0\nc x.exe 2\n";
  EXPECT_EQ(Xrpm("report " + path).rc, 0);
  EXPECT_EQ(Xrpm("report --strict " + path).rc, 1);
}

// Three captures of the leaking game at frames 600, 900 and 1200 (a spawn every 10 frames).
class LeaksCli : public AnalysisCli {
 protected:
  void SetUp() override {
    AnalysisCli::SetUp();
    for (const uint64_t f : {600, 900, 1200})
      formats::SaveSnapshot(testing::LeakGameCapture(f),
                            File("leak-" + std::to_string(f) + ".xrpm"));
  }
  std::string Caps(const char* a, const char* b, const char* c) const {
    return File(std::string("leak-") + a + ".xrpm") + " " +
           File(std::string("leak-") + b + ".xrpm") + " " +
           File(std::string("leak-") + c + ".xrpm");
  }
};

TEST_F(LeaksCli, NamesTheLeakingTypesAndSitesAndWhatHoldsThem) {
  const json j = XrpmJson("leaks " + Caps("600", "900", "1200"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["window"]["first_frame"], 600);
  EXPECT_EQ(j["window"]["end_frame"], 900);
  EXPECT_EQ(j["window"]["c_frame"], 1200);
  EXPECT_EQ(j["sampled"], false);
  // Spawns at frames 600, 610, ..., 890: 30 Bubbles and their 30 EventHandlers; nothing else
  // (not the particles the game frees every frame, not what LoadContent keeps).
  const json& g = j["groups"];
  ASSERT_EQ(g.size(), 2u) << g.dump(1);
  EXPECT_EQ(g[0]["type"], "Bubbles.Bubble");
  EXPECT_EQ(g[0]["site"], json({"Bubbles.BubbleField.Spawn", "Game1.Update"}));
  EXPECT_EQ(g[0]["count"], 30);
  EXPECT_EQ(g[0]["bytes"], 30 * 48);
  EXPECT_EQ(g[0]["path"],
            "static Game1 -> Game1 -> System.Collections.Generic.List<> -> System.EventHandler[] "
            "-> System.EventHandler -> Bubbles.Bubble");
  EXPECT_EQ(g[1]["type"], "System.EventHandler");
  EXPECT_EQ(g[1]["site"],
            json({"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn", "Game1.Update"}));
  EXPECT_EQ(g[1]["count"], 30);
  EXPECT_EQ(g[1]["bytes"], 30 * 32);
  for (const json& x : g)
    for (const char* key : {"type", "site", "count", "bytes", "path"})
      EXPECT_TRUE(x.contains(key)) << key;
  EXPECT_EQ(j["count"], 60);
  EXPECT_EQ(j["bytes"], 30 * 48 + 30 * 32);

  const Result text = Xrpm("leaks " + Caps("600", "900", "1200"));
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("Bubbles.Bubble.OnSpawn <- Bubbles.BubbleField.Spawn <- Game1.Update"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("held by static Game1 -> Game1"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("Particle"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("60 objects, 2.34 KiB in 2 group(s)."), std::string::npos) << text.out;
}

TEST_F(LeaksCli, AnEmptyWindowFindsNothingAndTopLimitsTheGroups) {
  json j = XrpmJson("leaks " + Caps("900", "900", "1200"));
  EXPECT_TRUE(j["groups"].empty());
  j = XrpmJson("leaks --top 1 " + Caps("600", "900", "1200"));
  ASSERT_EQ(j["groups"].size(), 1u);
  EXPECT_EQ(j["other_groups"], 1);
  const Result text = Xrpm("leaks " + Caps("900", "900", "1200"));
  EXPECT_NE(text.out.find("no leak in this window"), std::string::npos) << text.out;
}

TEST_F(LeaksCli, RefusesCapturesOutOfOrderOrWithoutOrigins) {
  Result r = Xrpm("leaks " + Caps("900", "600", "1200"), true);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("the captures are not in order"), std::string::npos) << r.out;
  r = Xrpm("leaks " + Caps("600", "1200", "900"), true);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("leak-1200.xrpm was captured at frame 1200, after"), std::string::npos)
      << r.out;
  // A .gclog round trip drops the origins: the leak filter and --by-site say so.
  ASSERT_EQ(Xrpm("convert " + File("leak-900.xrpm") + " " + File("leak-900.gclog"), true).rc, 0);
  r = Xrpm("leaks " + File("leak-600.xrpm") + " " + File("leak-900.gclog") + " " +
               File("leak-1200.xrpm"),
           true);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("leak-900.gclog has no allocation sites and ages"), std::string::npos)
      << r.out;
  for (const char* verb : {"types --by-site ", "report --by-site "}) {
    r = Xrpm(verb + File("leak-900.gclog"), true);
    EXPECT_EQ(r.rc, 1) << verb;
    EXPECT_NE(r.out.find("no allocation sites and ages in this file"), std::string::npos) << r.out;
  }
  EXPECT_EQ(Xrpm("leaks " + File("leak-600.xrpm")).rc, 2);  // usage
}

TEST_F(LeaksCli, ConvertToALossyFormatNamesTheOriginsItDrops) {
  const Result r = Xrpm("convert " + File("leak-900.xrpm") + " " + File("x.gclog"), true);
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("allocation sites and ages of 275 objects"), std::string::npos) << r.out;
  const Result same = Xrpm("convert " + File("leak-900.xrpm") + " " + File("y.xrpm"), true);
  EXPECT_EQ(same.out.find("allocation sites"), std::string::npos) << same.out;
}

TEST_F(LeaksCli, InfoSaysWhetherAFileHasOrigins) {
  json j = XrpmJson("info " + File("leak-1200.xrpm"));
  EXPECT_EQ(j["allocation_origins"]["capture_frame"], 1200);
  EXPECT_EQ(j["allocation_origins"]["objects_with_origin"], 335);
  EXPECT_EQ(j["allocation_origins"]["sites"], 4);
  ASSERT_EQ(Xrpm("convert " + File("leak-1200.xrpm") + " " + File("c.gclog")).rc, 0);
  j = XrpmJson("info " + File("c.gclog"));
  EXPECT_TRUE(j["allocation_origins"].is_null());
  const Result text = Xrpm("info " + File("c.gclog"));
  EXPECT_NE(text.out.find("Allocation origins: none"), std::string::npos) << text.out;
}

TEST_F(LeaksCli, TypesAndReportBySite) {
  json j = XrpmJson("types --by-site " + File("leak-1200.xrpm"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["origins"]["capture_frame"], 1200);
  const json& rows = j["rows"];
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(rows[0]["name"], "Microsoft.Xna.Framework.Graphics.Texture2D");
  EXPECT_EQ(rows[0]["site"], json({"Game1.LoadContent"}));
  EXPECT_EQ(rows[1]["name"], "Bubbles.Bubble");
  EXPECT_EQ(rows[1]["count"], 120);
  EXPECT_EQ(j["objects"], 335);

  j = XrpmJson("report --by-site " + File("leak-1200.xrpm"));
  ASSERT_FALSE(j.is_discarded());
  const json& sites = j["top_sites_by_retained"];
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0]["site"], json({"Game1.LoadContent"}));
  EXPECT_EQ(sites[1]["site"],
            json({"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn", "Game1.Update"}));
  // The handlers retain their bubbles: 120 x 32 + 120 x 48 + the handler array.
  EXPECT_EQ(sites[1]["retained_bytes"], 120 * 32 + 120 * 48 + 16 + 4 * 120);
  const Result text = Xrpm("report --by-site " + File("leak-1200.xrpm"));
  EXPECT_NE(text.out.find("Top 4 allocation sites by retained size (capture frame 1,200)"),
            std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace xrpm
