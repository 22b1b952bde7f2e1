// The `xrpm` binary itself: exit codes (0 ok / 1 bad input / 2 usage), --help, --json, and
// the info/types/convert verbs on real files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tool_process.h"

namespace {

using xrpm::testing::RunResult;
using xrpm::testing::RunXrpm;

// `xrpm ARGS`, stderr to /dev/null unless `with_stderr`.
const std::string kSample = XRPM_TEST_DATA "/netcf/bubbles.gclog";
const std::string kSpec = XRPM_TEST_DATA "/netcf/spec-format-sample.gclog";

std::string Temp(const std::string& n) {
  return ::testing::TempDir() + "/xrpm_" + std::to_string(getpid()) + "_" + n;
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Cli, HelpListsTheVerbsAndEveryVerbHasHelp) {
  RunResult r = RunXrpm("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* v : {"info", "types", "convert"}) {
    EXPECT_NE(r.out.find(v), std::string::npos) << v;
    RunResult h = RunXrpm(std::string(v) + " --help");
    EXPECT_EQ(h.exit_code, 0) << v;
    EXPECT_NE(h.out.find("--strict"), std::string::npos) << v;
    EXPECT_NE(h.out.find("--json"), std::string::npos) << v;
  }
}

TEST(Cli, UsageErrorsExitWith2) {
  EXPECT_EQ(RunXrpm("").exit_code, 2);
  EXPECT_EQ(RunXrpm("info").exit_code, 2);
  EXPECT_EQ(RunXrpm("info " + kSample + " --bogus").exit_code, 2);
  EXPECT_EQ(RunXrpm("types " + kSample + " --sort size").exit_code, 2);
  EXPECT_EQ(RunXrpm("types " + kSample + " --top many").exit_code, 2);
  EXPECT_EQ(RunXrpm("convert " + kSample).exit_code, 2);
  EXPECT_EQ(RunXrpm("convert " + kSample + " x --to nosuch").exit_code, 2);
  EXPECT_EQ(RunXrpm("info --from nosuch " + kSample).exit_code, 2);
  EXPECT_EQ(RunXrpm("nosuchverb").exit_code, 2);
}

TEST(Cli, BadInputExitsWith1AndSaysWhy) {
  RunResult r = RunXrpm("info /nonexistent/x.gclog", true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("/nonexistent/x.gclog"), std::string::npos);
  EXPECT_NE(r.out.find("open-failed"), std::string::npos);

  r = RunXrpm("info --strict " + kSpec, true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("spec-format-sample.gclog:8:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[unknown-type]"), std::string::npos);

  const std::string junk = Temp("junk.gclog");
  { std::ofstream(junk) << "this is not\nthe heap dump\n"; }
  r = RunXrpm("info " + junk, true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("junk.gclog:1:"), std::string::npos);
  EXPECT_NE(r.out.find("no-records"), std::string::npos);
  std::remove(junk.c_str());
}

// Regression: `info --strict` on an empty or blank file exited 0 with
// "Diagnostics: none". Now: exit 1 and no-records under --strict; a warning when lenient.
TEST(Cli, EmptyInputIsNoRecords) {
  for (const char* text : {"", "  \n\n\t\n"}) {
    const std::string empty = Temp("empty.gclog");
    { std::ofstream(empty) << text; }
    RunResult r = RunXrpm("info --strict " + empty, true);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("[no-records]"), std::string::npos) << r.out;
    r = RunXrpm("info " + empty, true);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("[no-records]"), std::string::npos) << r.out;  // the warning, on stderr
    EXPECT_NE(r.out.find("Diagnostics: 1 (no-records 1"), std::string::npos) << r.out;
    r = RunXrpm("info --json " + empty);
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("no-records"), std::string::npos) << r.out;
    std::remove(empty.c_str());
  }
}

TEST(Cli, InfoHumanOutput) {
  RunResult r = RunXrpm("info " + kSample);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Bubbles.exe"), std::string::npos);
  EXPECT_NE(r.out.find("2,000"), std::string::npos);
  EXPECT_NE(r.out.find("Diagnostics: none"), std::string::npos);
}

TEST(Cli, InfoLenientPrintsDiagnosticsOnStderrAndSucceeds) {
  RunResult r = RunXrpm("info --max-diagnostics 2 " + kSpec, true);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("spec-format-sample.gclog:8: "), std::string::npos);
  EXPECT_NE(r.out.find("9 more problem(s) not shown (11 in all"), std::string::npos) << r.out;
}

TEST(Cli, InfoJson) {
  RunResult r = RunXrpm("info --json " + kSpec);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "netcf");
  EXPECT_EQ(j["totals"]["objects"], 6);
  EXPECT_EQ(j["totals"]["references"], 8);
  EXPECT_EQ(j["totals"]["bytes"], 580);
  EXPECT_EQ(j["sections"][0]["name"], "bubblecs.exe");
  EXPECT_EQ(j["sections"][0]["start_ms"], 0x763f9d2);
  EXPECT_EQ(j["roots_by_kind"]["gc-specific"], 3);
  EXPECT_EQ(j["diagnostics"]["total"], 11);
  EXPECT_EQ(j["diagnostics"]["by_code"]["dangling-ref"], 8);
  EXPECT_EQ(j["diagnostics"]["items"][0]["line"], 8);
}

TEST(Cli, TypesSortedAndLimited) {
  RunResult r = RunXrpm("types --json --sort count --top 3 " + kSample);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["objects"], 2000);
  EXPECT_GE(j["rows"][0]["count"], j["rows"][1]["count"]);
  EXPECT_GE(j["rows"][1]["count"], j["rows"][2]["count"]);
  EXPECT_EQ(j["rows"][0]["name"], "System.String");

  r = RunXrpm("types --sort bytes " + kSample);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("System.String"), std::string::npos);
  EXPECT_NE(r.out.find("KiB"), std::string::npos);
  EXPECT_EQ(RunXrpm("types --section 5 " + kSample).exit_code, 1);
}

TEST(Cli, ConvertCanonicalisesAtomically) {
  const std::string out = Temp("converted.gclog");
  RunResult r = RunXrpm("convert --json " + kSpec + " " + out);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["to"], "netcf");
  EXPECT_EQ(j["objects"], 6);
  const std::string text = Slurp(out);
  EXPECT_EQ(text.substr(0, 26), "a 2 bubblecs.exe 763f9d2\nt");
  // Converting the canonical output again is byte-identical.
  const std::string out2 = Temp("converted2.gclog");
  ASSERT_EQ(RunXrpm("convert " + out + " " + out2).exit_code, 0);
  EXPECT_EQ(Slurp(out2), text);
  // A failed conversion leaves no output behind.
  std::remove(out2.c_str());
  EXPECT_EQ(RunXrpm("convert /nonexistent.gclog " + out2).exit_code, 1);
  EXPECT_FALSE(std::ifstream(out2).good());
  std::remove(out.c_str());
}

}  // namespace
