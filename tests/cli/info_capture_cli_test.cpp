// `xrpm info` on .xrpm files that keep a capture's metadata: the game pause in the
// words `xrpm capture` uses, for a paused walk and for a snapshot walk, as text and as JSON
// (walk_after_pause_us and snapshot_walk beside the existing pause fields).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "test_heaps.h"
#include "tool_process.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::testing {
namespace {

// A one-object capture of bubbles.exe whose pause was `pause` µs (GC, walk, walk after it).
std::string WriteCapture(const TempDir& dir, const std::string& name, uint64_t walk_after) {
  Snapshot s = OneObjectCapture();
  s.capture->pause_us = 239'000;
  s.capture->gc_us = 227'000;
  s.capture->walk_us = 12'000;
  s.capture->walk_after_pause_us = walk_after;
  const std::string path = dir.Path(name);
  formats::WriteXrpmFile(s, path);
  return path;
}

TEST(InfoCapture, ASnapshotWalkSaysTheGamePausedForTheSnapshotAndThenWalked) {
  const TempDir dir("xrpm_info_capture");
  const std::string path = WriteCapture(dir, "snap.xrpm", 1'400'000);
  const RunResult text = RunProcess({kXrpm, "info", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("game paused   239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in "
                          "1.4 s while the game ran)"),
            std::string::npos)
      << text.out;

  const RunResult json = RunProcess({kXrpm, "info", path, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto c = nlohmann::json::parse(json.out)["capture"];
  EXPECT_EQ(c["pause_us"], 239'000);
  EXPECT_EQ(c["gc_us"], 227'000);
  EXPECT_EQ(c["walk_us"], 12'000);
  EXPECT_EQ(c["walk_after_pause_us"], 1'400'000);
  EXPECT_EQ(c["snapshot_walk"], true);
}

TEST(InfoCapture, APausedWalkSaysTheWalkWasInThePause) {
  const TempDir dir("xrpm_info_capture");
  const std::string path = WriteCapture(dir, "paused.xrpm", 0);
  const RunResult text = RunProcess({kXrpm, "info", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("game paused   239.0 ms (GC 227.0 ms, walk 12.0 ms)\n"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("then walked"), std::string::npos) << text.out;

  const RunResult json = RunProcess({kXrpm, "info", path, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto c = nlohmann::json::parse(json.out)["capture"];
  EXPECT_EQ(c["walk_after_pause_us"], 0);
  EXPECT_EQ(c["snapshot_walk"], false);
}

}  // namespace
}  // namespace xrpm::testing
