// `xrpm check BUDGET.json INPUT... [--json]` as a game's CI runs it: exit 0 when every rule holds,
// 1 with a table of the broken ones, 2 for a bad budget (file:line and what was expected) or a
// rule with nothing to apply to; the documented JSON keys. Inputs: a NETCF capture and a
// recording saved as .xrpm.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/recording_file.h"

namespace xrpm::testing {
namespace {

const std::string kBubbles = XRPM_TEST_DATA "/netcf/bubbles.gclog";  // 304 Bubbles.Bubble

std::string WriteText(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string p = dir.Path(name);
  std::ofstream(p) << text;
  return p;
}

// 60 frames of 2,000 B, one of 50,000 B, one collection.
std::string WriteRecording(const TempDir& dir) {
  formats::SavedRecording s;
  s.endpoint = "127.0.0.1:4510";
  s.rec.app = "bubbles.exe";
  s.rec.sample_bytes = 1024;
  for (uint64_t f = 1; f <= 60; ++f)
    s.rec.frames.push_back({f, f * 16'667, 16'667, 4'000, f == 30 ? 50'000u : 2'000u, 20,
                            f == 30 ? 1u : 0u, f == 30 ? 3'000u : 0u, -1});
  const std::string p = dir.Path("play.xrpm");
  formats::SaveRecordingFile(s, p);
  return p;
}

TEST(CheckCli, HoldsBreaksAndRefusesBadBudgets) {
  const TempDir dir("xrpm_check_cli");
  const std::string rec = WriteRecording(dir);
  const std::string ok = WriteText(dir, "ok.json", R"({
    "types":  [{"name": "Bubbles.*", "max_count": 2000}, {"name": "System.Int32[]", "max_count": 80}],
    "frames": {"alloc_bytes_max": 50000, "gcs_per_minute": 60}
  })");
  RunResult r = RunProcess({kXrpm, "check", ok, kBubbles, rec});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all 4 checks hold over 2 input(s)"), std::string::npos) << r.out;

  const std::string tight = WriteText(dir, "tight.json", R"({
    "types":  [{"name": "Bubbles.Bubble", "max_count": 300}],
    "frames": {"alloc_bytes_p95": 2000, "alloc_bytes_max": 4096}
  })");
  r = RunProcess({kXrpm, "check", tight, kBubbles, rec});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("2 of 3 checks broken"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("types Bubbles.Bubble max_count"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("frames alloc_bytes_max"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("alloc_bytes_p95"), std::string::npos) << r.out;  // it holds
  r = RunProcess({kXrpm, "check", tight, kBubbles, rec, "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  ASSERT_EQ(j["rules"].size(), 3u);
  const auto& first = j["rules"][0];
  EXPECT_EQ(first.size(), 5u) << first.dump();
  EXPECT_EQ(first["rule"], "types Bubbles.Bubble max_count");
  EXPECT_EQ(first["input"], kBubbles);
  EXPECT_EQ(first["limit"], 300);
  EXPECT_EQ(first["measured"], 304);
  EXPECT_EQ(first["ok"], false);
  EXPECT_EQ(j["rules"][2]["measured"], 50000);

  // A bad budget: the file, the line and what was expected; exit 2.
  const std::string bad = WriteText(dir, "bad.json",
                                    "{\n  \"types\": [\n    {\"name\": \"A\", "
                                    "\"max_count\": \"500\"}\n  ]\n}\n");
  r = RunProcess({kXrpm, "check", bad, kBubbles});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ":3: types[0].max_count: expected a non-negative integer, found "
                             "string \"500\""),
            std::string::npos)
      << r.err;
  // A rule with nothing to apply to, and a missing input: exit 2 and 1.
  r = RunProcess({kXrpm, "check", tight, kBubbles});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("none of the inputs is a recording"), std::string::npos) << r.err;
  EXPECT_EQ(RunProcess({kXrpm, "check", ok, dir.Path("nothing.xrpm")}).exit_code, 1);
}

}  // namespace
}  // namespace xrpm::testing
