// `xrpm inspect` on an .xrpm file of the planted heap (tests/support/inspect_game.h):
// the JSON interface finding by finding, --only, the two-file form and the report's section.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "inspect_game.h"
#include "subprocess.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class InspectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xrpm_inspect_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    file_ = (dir_ / "game.xrpm").string();
    formats::WriteXrpmFile(testing::MakeInspectGame(), file_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  testing::RunResult Xrpm(const std::string& args) const {
    return testing::RunShell(std::string(XRPM_CLI_BIN) + " " + args + " 2>&1");
  }
  fs::path dir_;
  std::string file_;
};

TEST_F(InspectCli, JsonIsTheDocumentedInterface) {
  const testing::RunResult r = Xrpm("inspect " + file_ + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["inspections"].size(), 6u);
  std::map<std::string, json> by;
  for (const json& i : j["inspections"]) {
    EXPECT_TRUE(i["skipped"].is_null()) << i;
    by[i["name"].get<std::string>()] = i;
  }
  const json& dup = by["duplicate-strings"]["findings"];
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_EQ(dup[0]["what"], "Score: ");
  EXPECT_EQ(dup[0]["count"], 3);
  EXPECT_EQ(dup[0]["bytes"], 68);
  EXPECT_EQ(dup[0]["objects"].size(), 3u);
  const json& ev = by["event-handler-leaks"]["findings"];
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["what"], "static Bubbles.GameEvents.Popped -> Bubbles.Bubble");
  EXPECT_EQ(ev[0]["objects"], json::parse(R"(["1700", "1710"])"));
  EXPECT_EQ(by["disposed-but-held"]["findings"][0]["objects"], json::parse(R"(["1800"])"));
  EXPECT_EQ(by["sparse-collections"]["findings"].size(), 2u);
  EXPECT_EQ(by["boxed-values"]["findings"][0]["what"], "System.Int32");
  EXPECT_EQ(by["finalizable"]["findings"][0]["count"], 1);
}

TEST_F(InspectCli, OnlyTwoFilesAndTheReport) {
  testing::RunResult r = Xrpm("inspect " + file_ + " --json --only boxed-values,finalizable");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json::parse(r.out)["inspections"].size(), 2u);
  r = Xrpm("inspect " + file_ + " --only nope");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("unknown inspection 'nope'"), std::string::npos) << r.out;
  r = Xrpm("inspect " + file_ + " " + file_ + " --json");  // nothing grew
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json same = json::parse(r.out);  // kept alive: the loop ranges over a part of it
  for (const json& i : same["inspections"]) EXPECT_TRUE(i["findings"].empty()) << i;
  r = Xrpm("report " + file_);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Inspections"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("event-handler-leaks: 1 finding(s)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace xrpm
