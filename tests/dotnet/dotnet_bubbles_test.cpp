// ctest-labels: cpu_timing
// The sample game on .NET: XnaBubbles (the Mono port's game sources, compiled by the SDK into
// bin/dotnet/XnaBubbles) playing at 60 fps under xrpm-dotnet, captured with the `xrpm capture`
// CLI over 127.0.0.1, as `scripts/run.sh dotnet` does. The game has no "ready" line, so the test
// captures until the game's types are there (the runtime starts before Main: the first captures
// may come before the game object exists), a bounded number of times; then it checks the game's
// objects and stops the game (SIGTERM, forwarded by the launcher).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dotnet_process.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

constexpr int kMaxCaptures = 50;

TEST(DotnetBubbles, CapturesTheSampleGameWhileItPlays) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-bubbles");
  DotnetRun run({}, DotnetProgram("XnaBubbles"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  // Captured before its first frame, the game may be inside Initialize's spawning: a bubble
  // made, not yet subscribed to the event (an exact capture of that moment). From the first
  // frame on, captures stop it at frame boundaries, where every bubble is subscribed.
  ASSERT_NE(run.proc->log().WaitFor("XnaBubbles: running", 60000), "") << run.proc->log().All();

  std::map<std::string, size_t> counts;
  int captures = 0;
  while (captures < kMaxCaptures && counts["XnaBubbles.Bubble"] == 0) {
    const std::string path = dir.Path("b" + std::to_string(++captures) + ".xrpm");
    const RunResult r = RunXrpm("capture --connect " + run.endpoint + " -o " + path, true);
    ASSERT_EQ(r.exit_code, 0) << r.out << run.proc->log().All();
    Diagnostics diags;
    const Snapshot s = formats::LoadSnapshot(path, diags);
    counts.clear();
    for (size_t i = 0; i < s.object_count(); ++i) ++counts[s.type_name_of(i)];
  }
  EXPECT_GT(counts["XnaBubbles.Bubble"], 0u) << "after " << captures << " captures";
  EXPECT_EQ(counts["XnaBubbles.BubblesGame"], 1u);
  EXPECT_EQ(counts["XnaBubbles.Hud"], 1u);
  EXPECT_EQ(counts["System.Collections.Generic.List<XnaBubbles.Bubble>"], 1u);
  EXPECT_EQ(counts["System.Collections.Generic.List<XnaBubbles.Particle>"], 1u);
  // The leak: every bubble subscribed to the static event, so there are as many handlers.
  EXPECT_GE(counts["System.EventHandler"], counts["XnaBubbles.Bubble"]);

  EXPECT_NE(run.proc->Stop(30000), -1) << "the game did not end on SIGTERM";
}

}  // namespace
}  // namespace xrpm::testing
