// The `xrpm` binary on .gcdump files: every file verb accepts them, `info` flags sampled dumps
// (text and --json, totals stored and scaled), `convert` writes them out in each writable format.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "file_bytes.h"
#include "gcdump_test_writer.h"
#include "tool_process.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;

using xrpm::testing::RunResult;
using xrpm::testing::RunXrpm;

// `xrpm ARGS 2>&1`.
const std::string kMono = std::string(XRPM_TEST_DATA) + "/gcdump/sample-monovm.gcdump";
const std::string kTest1 = std::string(XRPM_TEST_DATA) + "/gcdump/perfview-test1.gcdump";

class GcDumpCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xrpm_gcdump_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const char* name) { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(GcDumpCli, EveryFileVerbReadsAGcDump) {
  for (const std::string& args :
       {"info " + kMono, "types " + kMono, "report " + kMono, "dominators " + kMono,
        "paths " + kMono + " --type System.String", "diff " + kMono + " " + kMono,
        "info --json " + kTest1, "types --json " + kTest1}) {
    const RunResult r = RunXrpm(args, true);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  }
  const RunResult info = RunXrpm("info " + kMono, true);
  EXPECT_NE(info.out.find("(gcdump, "), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("sampled"), std::string::npos) << info.out;
  const RunResult types = RunXrpm("types " + kMono, true);
  EXPECT_NE(types.out.find("System.RuntimeType"), std::string::npos) << types.out;
}

TEST_F(GcDumpCli, ConvertWritesEveryWritableFormatAndRefusesGcDumpOutput) {
  for (const char* out : {"m.gclog", "m.txt", "m.heapsnapshot"}) {
    const RunResult r = RunXrpm("convert " + kMono + " " + Path(out), true);
    EXPECT_EQ(r.exit_code, 0) << out << "\n" << r.out;
    EXPECT_NE(r.out.find("23,909 objects"), std::string::npos) << r.out;
    EXPECT_GT(fs::file_size(Path(out)), 100000u) << out;
  }
  const RunResult back = RunXrpm("info --json --strict " + Path("m.gclog"), true);
  ASSERT_EQ(back.exit_code, 0) << back.out;
  const auto j = nlohmann::json::parse(back.out);
  EXPECT_EQ(j["totals"]["objects"], 23909);
  EXPECT_EQ(j["totals"]["references"], 13144);
  EXPECT_EQ(j["totals"]["bytes"], 1309128);
  const RunResult refuse = RunXrpm("convert " + kMono + " " + Path("m.gcdump"), true);
  EXPECT_NE(refuse.exit_code, 0);
  EXPECT_NE(refuse.out.find("cannot be written"), std::string::npos) << refuse.out;
  EXPECT_FALSE(fs::exists(Path("m.gcdump")));
}

TEST_F(GcDumpCli, InfoFlagsASampledDumpWithStoredAndScaledTotals) {
  testing::GcDumpTestWriter w;
  const uint32_t root = w.AddType("[.NET Roots]", 0), str = w.AddType("System.String", -1);
  const uint32_t kids[] = {1, 2};
  w.AddNode(root, 0, kids, 0);
  w.AddNode(str, 20, {}, 0x1000);
  w.AddNode(str, 30, {}, 0x1020);
  w.count_multipliers = {1, 1, 10};
  std::ofstream(Path("s.gcdump"), std::ios::binary) << w.Finish();

  const RunResult text = RunXrpm("info " + Path("s.gcdump"), true);
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("(gcdump, 398 B, sampled)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("objects, scaled     20"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(500 bytes)"), std::string::npos) << text.out;
  const RunResult json = RunXrpm("info --json " + Path("s.gcdump"), true);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["sampled"], true);
  EXPECT_EQ(j["totals"]["objects"], 2);
  EXPECT_EQ(j["totals"]["bytes"], 50);
  EXPECT_DOUBLE_EQ(j["totals"]["scaled_objects"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["totals"]["scaled_bytes"].get<double>(), 500);
}

TEST_F(GcDumpCli, ABrokenGcDumpExitsWith1AndNamesTheOffset) {
  std::string b = testing::FileBytes(kTest1);
  b.resize(1000);
  std::ofstream(Path("cut.gcdump"), std::ios::binary) << b;
  const RunResult r = RunXrpm("info " + Path("cut.gcdump"), true);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("cut.gcdump: byte offset "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("count 1994 needs at least"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace xrpm
