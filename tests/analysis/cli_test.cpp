// The analysis verbs end to end: `xrpm report|dominators|paths|diff` on .gclog files written by
// the canonical writer, checking their JSON, their text and their exit codes (0/1/2).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "game_heap.h"
#include "xrpm/core/snapshot_io.h"

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
      SaveSnapshot(testing::GameSnapshot(100 + 50 * i, 20 - 5 * i, 10, ObjectId(i + 1) << 28),
                   path);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string File(const std::string& name) const { return (dir_ / name).string(); }

  // Runs xrpm with `args` (stdout captured, stderr dropped).
  Result Xrpm(const std::string& args) const {
    const std::string cmd =
        std::string(XRPM_BINARY_DIR) + "/host-monitor/xrpm " + args + " 2>/dev/null";
    Result r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

}  // namespace
}  // namespace xrpm
