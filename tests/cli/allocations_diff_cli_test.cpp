// `xrpm allocations --diff A.xrpm B.xrpm [--by ...]` on two saved recordings: per site, bytes
// per frame in A and B with their errors, the change, sites in one recording only marked; the
// JSON fields; usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/recording_file.h"

namespace xrpm::testing {
namespace {

// A recording of `frames` frames: `spawn` samples of 64 B under Spawn, `emit` of 2 KiB under Emit.
std::string Save(const TempDir& dir, const std::string& name, uint64_t frames, int spawn,
                 int emit) {
  formats::SavedRecording s;
  s.endpoint = "127.0.0.1:4510";
  s.rec.app = "bubbles.exe";
  s.rec.sample_bytes = 1024;
  s.rec.methods = {"Game1.Update", "BubbleField.Spawn", "Particles.Emit"};
  s.rec.types = {"Bubble", "Particle"};
  s.rec.stacks = {{2, 1}, {3, 1}};
  for (uint64_t f = 1; f <= frames; ++f) s.rec.frames.push_back({f, f * 16'667, 16'667});
  for (int i = 0; i < spawn; ++i) s.rec.samples.push_back({1, 1, 1, 64, 0});
  for (int i = 0; i < emit; ++i) s.rec.samples.push_back({1, 2, 2, 2048, 0});
  const std::string p = dir.Path(name);
  formats::SaveRecordingFile(s, p);
  return p;
}

TEST(AllocationsDiffCli, ComparesTwoRecordingsPerSite) {
  const TempDir dir("xrpm_alloc_diff");
  const std::string a = Save(dir, "a.xrpm", 10, 5, 3), b = Save(dir, "b.xrpm", 10, 10, 0);
  RunResult r = RunProcess({kXrpm, "allocations", "--diff", a, b, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["by"], "type");
  EXPECT_EQ(j["a"]["file"], a);
  EXPECT_EQ(j["b"]["frames"], 10);
  ASSERT_EQ(j["sites"].size(), 2u);
  // Particle: gone in B (3 x ~2.4 KB over 10 frames), the largest change.
  const auto& gone = j["sites"][0];
  EXPECT_EQ(gone["site"], "Particle");
  EXPECT_EQ(gone["only_in"], "a");
  EXPECT_LT(gone["change"].get<double>(), -600);
  EXPECT_GT(gone["change_error"].get<double>(), 0);
  const auto& bubble = j["sites"][1];
  EXPECT_EQ(bubble["site"], "Bubble");
  EXPECT_TRUE(bubble["only_in"].is_null());
  EXPECT_NEAR(bubble["b_bytes_per_frame"].get<double>(),
              2 * bubble["a_bytes_per_frame"].get<double>(), 1e-6);
  for (const char* k : {"a_error", "b_error", "change", "change_error"})
    EXPECT_TRUE(bubble.contains(k)) << k;

  r = RunProcess({kXrpm, "allocations", "--diff", a, b, "--by", "stack"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("A: " + a + " (bubbles.exe, 10 frames, one sample per 1.00 KiB)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Particles.Emit <- Game1.Update"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only in A"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\u00b1"), std::string::npos) << r.out;

  EXPECT_EQ(RunProcess({kXrpm, "allocations", "--diff", a}).exit_code, 2);
  EXPECT_EQ(
      RunProcess({kXrpm, "allocations", "--diff", a, b, "--connect", "127.0.0.1:1"}).exit_code, 2);
  RunResult missing = RunProcess({kXrpm, "allocations", "--diff", a, dir.Path("none.xrpm")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.xrpm"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace xrpm::testing
