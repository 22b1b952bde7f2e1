// The frame boundary on .NET (frame_hook.h): the sample game XnaBubbles under xrpm-dotnet runs
// Microsoft.Xna.Framework.Game:Tick, and each capture is taken right after one of its returns,
// the game thread held there while the collection runs, the log saying so with the frames
// completed then (increasing from one capture to the next); a
// program without the method (Graph) is captured at once; a bad --frame is refused. The method
// is hooked by compiling it again with native calls (ReJIT), so ReadyToRun code stays in use
// elsewhere: the base library's precompiled methods are not JIT-compiled under the agent.
// Waits on log lines, bounded; no sleeps.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "dotnet_process.h"
#include "graph_run.h"
#include "mono_process.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/client/host_client.h"

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
    // Held in the method's exit call while the collection ran: never caught inside a frame.
    EXPECT_NE(line.find(", held at its return"), std::string::npos) << line;
    EXPECT_EQ(line.find("caught it inside"), std::string::npos) << line;
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

// The runtime's own count of JIT-compiled methods after 30 frames of the Allocations program
// (a method runs from ReadyToRun code unless it is compiled): the same under the agent, the
// frame method hooked, as under plain `dotnet` (28 here; 692 with ReadyToRun off, which the
// runtime's enter/leave hooks would imply).
uint64_t JitCompiledIn(const std::string& err) {
  const std::string key = "Allocations: jit-compiled methods ";
  const size_t at = err.find(key);
  return at == std::string::npos ? 0 : std::stoull(err.substr(at + key.size()));
}

TEST(DotnetFrames, TheFrameHookKeepsReadyToRunCode) {
  SKIP_WITHOUT_DOTNET();
  const std::vector<std::string> program = {DotnetProgram("Allocations"), "frames", "--frames",
                                            "30"};
  std::vector<std::string> plain = {DotnetExecutable()};
  plain.insert(plain.end(), program.begin(), program.end());
  const RunResult alone = RunProcess(plain);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  std::vector<std::string> hooked = {"--port", "0", "--frame", "Allocations.Program:Tick", "--"};
  hooked.insert(hooked.end(), program.begin(), program.end());
  const RunResult agent = RunDotnetLauncher(hooked);
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  EXPECT_EQ(agent.err.find("is not hooked"), std::string::npos) << agent.err;
  const uint64_t base = JitCompiledIn(alone.err);
  ASSERT_GT(base, 0u) << alone.err;
  EXPECT_LE(JitCompiledIn(agent.err), base + base / 4 + 10) << agent.err;
}

// A frame method that throws out of every third frame: the hook's exit call does not run for
// those, and the next entry (no deeper on the stack) ends the frame the exception left. Frame
// rows go on, consecutive, instead of stopping at the first exception (the depth stuck at 1).
TEST(DotnetFrames, FramesGoOnWhenTheFrameMethodThrows) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({"--frame", "Allocations.Program:ThrowingTick"}, DotnetProgram("Allocations"),
                {"throwing"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client->SubscribeFrames(65536);
  ASSERT_TRUE(client->WaitFrames(60, 60000)) << client->frames_status().error;
  FrameRecording rec;
  client->TakeFrames(&rec);
  ASSERT_GE(rec.frames.size(), 60u);
  for (size_t i = 1; i < rec.frames.size(); ++i)
    EXPECT_EQ(rec.frames[i].frame, rec.frames[i - 1].frame + 1) << "consecutive";
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetFrames, BadFrameIsRefused) {
  SKIP_WITHOUT_DOTNET();
  const RunResult bad = RunDotnetLauncher({"--frame", "NoColon", "--", DotnetProgram("Graph")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--frame:"), std::string::npos) << bad.err;
  const RunResult both =
      RunDotnetLauncher({"--frame", "A.B:C", "--no-frame", "--", DotnetProgram("Graph")});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace xrpm::testing
