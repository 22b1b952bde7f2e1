// The CLI names the frame rows' allocation figures as the recording says they are: a saved
// recording with exact frame totals (emulator, Mono, .NET's --allocations=exact) says "exact";
// one with estimated totals (.NET's sampled route) says "estimated from samples" and never
// "exact", in `xrpm allocations` (text, JSON, --diff), `xrpm frames` and `xrpm info`. The JSON
// keeps its field names (exact_bytes, ...) and adds "frame_totals".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/recording_file.h"

namespace xrpm::testing {
namespace {

std::string SaveTotalsRecording(const TempDir& dir, const std::string& name, FrameTotals totals) {
  formats::SavedRecording s;
  s.endpoint = "127.0.0.1:4510";
  s.rec.app = "game.dll";
  s.rec.sample_bytes = 102'400;
  s.rec.frame_totals = totals;
  s.rec.methods = {"Game.Update"};
  s.rec.types = {"Garbage"};
  s.rec.stacks = {{1}};
  for (uint64_t f = 1; f <= 4; ++f)
    s.rec.frames.push_back(
        {f, f * 16'667, 16'667, 1'000, f == 2 ? 204'800u : 0u, f == 2 ? 8u : 0u});
  s.rec.samples = {{2, 1, 1, 24'000, 0}};
  const std::string p = dir.Path(name);
  formats::SaveRecordingFile(s, p);
  return p;
}

TEST(FrameTotalsCli, TheLabelFollowsTheRecordingsFrameTotals) {
  const TempDir dir("xrpm_frame_totals_cli");
  const std::string exact = SaveTotalsRecording(dir, "exact.xrpm", FrameTotals::kExact);
  const std::string est = SaveTotalsRecording(dir, "estimated.xrpm", FrameTotals::kEstimated);

  // xrpm allocations: JSON (old fields kept, one added) and text.
  for (const auto& [file, name] : {std::pair{exact, "exact"}, std::pair{est, "estimated"}}) {
    SCOPED_TRACE(file);
    const RunResult r = RunProcess({kXrpm, "allocations", file, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["frame_totals"], name);
    EXPECT_EQ(j["exact_bytes"], 204'800);
    EXPECT_EQ(j["exact_objects"], 8);
    EXPECT_EQ(j["exact_bytes_per_frame"], 51'200.0);
  }
  RunResult t = RunProcess({kXrpm, "allocations", exact});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find(", exact 200 KiB\n"), std::string::npos) << t.out;
  t = RunProcess({kXrpm, "allocations", est});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find(", frame totals 200 KiB, estimated from samples\n"), std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find("exact"), std::string::npos) << t.out;

  // --diff: each side's header says what its own frame totals are.
  t = RunProcess({kXrpm, "allocations", "--diff", exact, est});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const size_t a_line = t.out.find("A: "), b_line = t.out.find("B: ");
  ASSERT_NE(a_line, std::string::npos) << t.out;
  ASSERT_NE(b_line, std::string::npos) << t.out;
  const std::string a_head = t.out.substr(a_line, t.out.find('\n', a_line) - a_line);
  const std::string b_head = t.out.substr(b_line, t.out.find('\n', b_line) - b_line);
  EXPECT_NE(a_head.find("(exact 50.0 KiB)"), std::string::npos) << a_head;
  EXPECT_NE(b_head.find("(frame totals 50.0 KiB, estimated from samples)"), std::string::npos)
      << b_head;
  EXPECT_EQ(b_head.find("exact"), std::string::npos) << b_head;
  t = RunProcess({kXrpm, "allocations", "--diff", exact, est, "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const auto d = nlohmann::json::parse(t.out);
  EXPECT_EQ(d["a"]["frame_totals"], "exact");
  EXPECT_EQ(d["b"]["frame_totals"], "estimated");
  EXPECT_EQ(d["b"]["exact_bytes_per_frame"], 51'200.0);

  // xrpm frames: the JSON says which; the text names an estimate as one.
  t = RunProcess({kXrpm, "frames", est, "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["frame_totals"], "estimated");
  t = RunProcess({kXrpm, "frames", est});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("allocated per frame (estimated from samples)"), std::string::npos) << t.out;
  t = RunProcess({kXrpm, "frames", exact, "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["frame_totals"], "exact");
  t = RunProcess({kXrpm, "frames", exact});
  EXPECT_EQ(t.out.find("estimated"), std::string::npos) << t.out;

  // xrpm info on the files.
  t = RunProcess({kXrpm, "info", est, "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["frame_totals"], "estimated");
  t = RunProcess({kXrpm, "info", exact});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Bytes and objects allocated per frame: exact"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace xrpm::testing
