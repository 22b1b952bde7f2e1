// The frame boundary on .NET (frame_hook.h): the sample game XnaBubbles under xrpm-dotnet runs
// Microsoft.Xna.Framework.Game:Tick, and each capture is taken right after one of its returns,
// the log saying so with the frames completed then (increasing from one capture to the next); a
// program without the method (Graph) is captured at once; a bad --frame and --frame on
// --attach are refused. Waits on log lines, bounded; no sleeps.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <string>

#include "dotnet_process.h"
#include "graph_run.h"
#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

constexpr const char* kBoundary =
    "the game was stopped at the frame boundary (Microsoft.Xna.Framework.Game:Tick), after frame ";

uint64_t FrameIn(const std::string& line) {
  const size_t at = line.find(kBoundary);
  return at == std::string::npos ? 0 : std::stoull(line.substr(at + std::strlen(kBoundary)));
}

TEST(DotnetFrames, CapturesOfTheSampleGameLandBetweenItsFrames) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-frames");
  DotnetRun run({}, DotnetProgram("XnaBubbles"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("XnaBubbles: running", 30000).empty());
  // The first capture may come before the first Tick returned (then it is taken at once).
  uint64_t last = 0;
  int boundaries = 0;
  for (int i = 0; i < 20 && boundaries < 3; ++i) {
    const RunResult r =
        RunXrpm("capture --connect " + run.endpoint + " -o " + dir.Path("c.xrpm"), true);
    ASSERT_EQ(r.exit_code, 0) << r.out << run.proc->log().All();
    ASSERT_EQ(run.proc->log().WaitCount("capture: the game was stopped", i + 1, 30000),
              static_cast<size_t>(i + 1))
        << run.proc->log().All();
    const std::string all = run.proc->log().All();
    const size_t at = all.rfind("capture: the game was stopped");
    const std::string line = all.substr(at, all.find('\n', at) - at);
    if (line.find(kBoundary) == std::string::npos) continue;
    const uint64_t frame = FrameIn(line);
    EXPECT_GT(frame, last) << line;
    last = frame;
    ++boundaries;
  }
  EXPECT_EQ(boundaries, 3) << "three captures at the frame boundary";
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetFrames, WithoutTheFrameMethodACaptureIsTakenAtOnce) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty());
  TempDir out;
  CaptureWithCli(g.run.endpoint, out.Path("g.xrpm"));
  EXPECT_NE(g.run.proc->log().WaitFor("stopped at once (Microsoft.Xna.Framework.Game:Tick did not "
                                      "return in the last 1000 ms; the program has not run it)",
                                      30000),
            "")
      << g.run.proc->log().All();
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0);
}

TEST(DotnetFrames, BadFrameAndFrameOnAttachAreRefused) {
  SKIP_WITHOUT_DOTNET();
  const RunResult bad = RunDotnetLauncher({"--frame", "NoColon", "--", DotnetProgram("Graph")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--frame:"), std::string::npos) << bad.err;
  const RunResult both =
      RunDotnetLauncher({"--frame", "A.B:C", "--no-frame", "--", DotnetProgram("Graph")});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
  const RunResult attach = RunDotnetLauncher({"--attach", "1", "--frame", "A.B:C"});
  EXPECT_EQ(attach.exit_code, 2);
  EXPECT_NE(attach.err.find("only from start-up"), std::string::npos) << attach.err;
}

}  // namespace
}  // namespace xrpm::testing
