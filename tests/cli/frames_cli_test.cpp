// ctest-labels: threaded
// `xrpm frames` and `xrpm allocations` as a user runs them: real processes (xrpm-emulator with
// its agent, the xrpm CLI) over 127.0.0.1: the documented JSON fields, the CSV file, and a
// clear error (exit 1) when the agent refuses the sampling interval; a recording saved with -o
// reads back (a FILE in place of --connect) with the same text and JSON as the live run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;

TEST(FramesCli, FramesJsonAndCsv) {
  const TempDir dir("xrpm_frames_cli");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  const std::string csv = dir.Path("frames.csv");
  // --count ends the recording by frames, not by the clock (a loaded machine only makes it
  // take longer); --duration is then the bound on a broken run.
  RunResult r = RunProcess({kXrpm, "frames", "--connect", emu.endpoint, "--count", "31",
                            "--duration", "30", "--csv", csv, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["app"], "bubbles.exe");
  ASSERT_EQ(j["frames"].size(), 31u);
  EXPECT_EQ(j["summary"]["frames"], 31);
  for (const char* k : {"frame", "ms", "alloc_bytes", "alloc_objects", "gcs", "gc_ms"})
    EXPECT_TRUE(j["frames"][0].contains(k)) << k;
  EXPECT_GT(j["frames"][0]["alloc_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(j["summary"]["mean_ms"].get<double>(), 5.0);
  std::ifstream in(csv);
  std::string header;
  ASSERT_TRUE(std::getline(in, header));
  EXPECT_EQ(header.rfind("frame,ms,work_ms,alloc_bytes,alloc_objects,gcs,gc_ms", 0), 0u) << header;
  size_t lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, j["frames"].size());

  RunResult text = RunProcess({kXrpm, "frames", "--connect", emu.endpoint, "--count", "10"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(": 10 frames over "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("frames over 16.7 ms"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("time in GC"), std::string::npos) << text.out;
  RunResult zero = RunProcess({kXrpm, "frames", "--connect", emu.endpoint, "--count", "0"});
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
}

TEST(FramesCli, AllocationsJsonNamesTheLeakingSite) {
  EmulatorProcess emu({"--scenario", "leak"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  RunResult r =
      RunProcess({kXrpm, "allocations", "--connect", emu.endpoint, "--count", "180", "--duration",
                  "60", "--by", "method", "--sample-bytes", "64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"estimated_bytes", "sampled_bytes", "samples", "stacks"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["sample_bytes"], 64);
  EXPECT_EQ(j["frames"], 180);
  EXPECT_GT(j["samples"].get<uint64_t>(), 10u);
  ASSERT_GT(j["stacks"].size(), 0u);
  for (const char* k : {"frames", "type", "bytes", "count"})
    EXPECT_TRUE(j["stacks"][0].contains(k)) << k;
  // The leaking bubbles are allocated by BubbleField.Spawn, under Game1.Update.
  bool found = false;
  for (const auto& s : j["stacks"]) {
    const auto& f = s["frames"];
    if (f.size() >= 2 && f[0] == "Bubbles.BubbleField.Spawn" && f[1] == "Bubbles.Game1.Update")
      found = true;
  }
  EXPECT_TRUE(found) << r.out.substr(0, 4000);
  ASSERT_TRUE(j.contains("methods"));

  RunResult tree = RunProcess({kXrpm, "allocations", "--connect", emu.endpoint, "--count", "60",
                               "--duration", "30", "--by", "stack", "--sample-bytes", "256"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_NE(tree.out.find("Bubbles.Game1.Update"), std::string::npos) << tree.out;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
}

TEST(FramesCli, ARefusedSampleIntervalIsAClearError) {
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  // The refusal ends the run at once; the duration only bounds a run that never hears it.
  RunResult r = RunProcess({kXrpm, "allocations", "--connect", emu.endpoint, "--duration", "30",
                            "--sample-bytes", "4000000000"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("the agent refused: bad request: sample interval of 4000000000 bytes"),
            std::string::npos)
      << r.err;
  RunResult usage = RunProcess({kXrpm, "allocations", "--connect", emu.endpoint, "--by", "x"});
  EXPECT_EQ(usage.exit_code, 2) << usage.err;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
}

TEST(FramesCli, ASavedRecordingReadsBackWithTheSameOutput) {
  const TempDir dir("xrpm_frames_saved");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  const std::string rec = dir.Path("rec.xrpm");
  // Enough frames for a wave's markers and tagged samples (bubbles marks a wave every 2 s).
  RunResult live =
      RunProcess({kXrpm, "allocations", "--connect", emu.endpoint, "--count", "150", "--duration",
                  "60", "--sample-bytes", "256", "--by", "tag", "-o", rec, "--json"});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
  RunResult again = RunProcess({kXrpm, "allocations", rec, "--by", "tag", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, live.out);
  const auto j = nlohmann::json::parse(again.out);
  EXPECT_EQ(j["frames"], 150);
  EXPECT_GT(j["samples"].get<uint64_t>(), 0u);
  EXPECT_GT(j["tags"].size(), 1u) << again.out.substr(0, 2000);  // tagged and untagged

  // Every view of the file works as on a live run; text and JSON are stable across reads.
  for (const char* by : {"type", "method", "stack"}) {
    RunResult a = RunProcess({kXrpm, "allocations", rec, "--by", by});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_NE(a.out.find("bubbles.exe on " + emu.endpoint + ": 150 frames"), std::string::npos)
        << a.out;
  }
  RunResult frames = RunProcess({kXrpm, "frames", rec, "--json"});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  const auto f = nlohmann::json::parse(frames.out);
  EXPECT_EQ(f["frames"].size(), 150u);
  EXPECT_EQ(f["endpoint"], emu.endpoint);
  EXPECT_EQ(f["summary"]["alloc_bytes"], j["exact_bytes"]);
  RunResult info = RunProcess({kXrpm, "info", rec, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto i = nlohmann::json::parse(info.out);
  EXPECT_EQ(i["format"], "xrpm-recording");
  EXPECT_EQ(i["frames"], 150);
  EXPECT_EQ(i["samples"], j["samples"]);
  EXPECT_TRUE(info.err.empty()) << info.err;  // no "skipped part" notices for a recording
  RunResult ten = RunProcess({kXrpm, "frames", rec, "--count", "10", "-o", dir.Path("ten.xrpm")});
  ASSERT_EQ(ten.exit_code, 0) << ten.err;
  EXPECT_NE(ten.out.find(": 10 frames over "), std::string::npos) << ten.out;
  RunResult ten_again = RunProcess({kXrpm, "frames", dir.Path("ten.xrpm")});
  EXPECT_EQ(ten_again.out, ten.out);

  // Usage: a source is needed, and only one; a file takes no live options.
  EXPECT_EQ(RunProcess({kXrpm, "frames"}).exit_code, 2);
  EXPECT_EQ(RunProcess({kXrpm, "frames", rec, "--connect", emu.endpoint}).exit_code, 2);
  EXPECT_EQ(RunProcess({kXrpm, "allocations", rec, "--sample-bytes", "64"}).exit_code, 2);
  // Bad files: refused like any .xrpm, and a heap snapshot is not a recording.
  std::string bytes;
  {
    std::ifstream in(rec, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    std::ofstream cut(dir.Path("cut.xrpm"), std::ios::binary);
    cut.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  RunResult cut = RunProcess({kXrpm, "frames", dir.Path("cut.xrpm")});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("[truncated]"), std::string::npos) << cut.err;
  const std::string snap = dir.Path("snap.xrpm");
  ASSERT_EQ(RunProcess({kXrpm, "convert", XRPM_TEST_DATA "/netcf/bubbles.gclog", snap}).exit_code,
            0);
  RunResult not_rec = RunProcess({kXrpm, "allocations", snap});
  EXPECT_EQ(not_rec.exit_code, 1);
  EXPECT_NE(not_rec.err.find("[no-recording]"), std::string::npos) << not_rec.err;
}

}  // namespace
}  // namespace xrpm::testing
