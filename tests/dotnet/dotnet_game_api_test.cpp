// The in-game API on .NET (Xrpm.dll, device-agent/ports/dotnet/csharp/Xrpm) from a real C#
// program: GameApi.dll (tests/dotnet/programs/GameApi) marks "Wave W" every 20 frames, asks for a
// capture at frame 30 and every 100 frames after, and opens Scope("AI") / Scope("Path") every
// frame. Under xrpm-dotnet (frame method GameApi.Program:Tick) the markers reach `xrpm frames
// --json` on the frames they name, `xrpm capture --on-marker` captures on one, and the game's
// request makes `xrpm capture` (unattended) capture with the request's label; attached later
// (`xrpm-dotnet --attach`), the program notices the agent and its request is captured too; without
// the agent (plain `dotnet GameApi.dll`) every call, odd texts included, does nothing and the
// program exits 0. Waits on output, bounded; no sleeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dotnet_process.h"
#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

const std::vector<std::string> kGameApiFrame = {"--frame", "GameApi.Program:Tick"};

TEST(DotnetGameApi, WithoutTheAgentTheCallsDoNothingAndNeverThrow) {
  SKIP_WITHOUT_DOTNET();
  const RunResult r = RunShell("dotnet " + DotnetProgram("GameApi") + " --frames 150 --odd");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("GameApi: attached False"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GameApi: done"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("attached True"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Exception"), std::string::npos) << r.err;
}

TEST(DotnetGameApi, MarkersReachTheHostOnTheFramesTheyName) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run(kGameApiFrame, DotnetProgram("GameApi"), {"--odd"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("GameApi: attached True", 30000).empty())
      << run.proc->log().All();
  const RunResult f =
      RunProcess({XRPM_CLI_BIN, "frames", "--connect", run.endpoint, "--count", "60", "--json"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto j = nlohmann::json::parse(f.out);
  ASSERT_GE(j["frames"].size(), 60u) << f.out;
  size_t waves = 0, requests = 0;
  for (const auto& m : j["markers"]) {
    const uint64_t frame = m["frame"];
    const std::string text = m["text"];
    if (m["kind"] == "marker") {
      EXPECT_EQ(frame % 20, 0u) << text;
      EXPECT_EQ(text, "Wave " + std::to_string(frame / 20 + 1));
      ++waves;
    } else {
      EXPECT_EQ(m["kind"], "capture-request");
      EXPECT_EQ(frame % 100, 30u) << text;
      EXPECT_EQ(text, "Wave " + std::to_string(frame / 20 + 1) + " ended");
      ++requests;
    }
  }
  EXPECT_GE(waves, 2u) << f.out;
  EXPECT_EQ(j["dropped_markers"], 0u);
  EXPECT_EQ(run.proc->log().All().find("Exception"), std::string::npos) << run.proc->log().All();
}

TEST(DotnetGameApi, CaptureOnAMarkerAndOnTheGamesRequest) {
  SKIP_WITHOUT_DOTNET();
  const TempDir dir("xrpm-dotnet-api");
  DotnetRun run(kGameApiFrame, DotnetProgram("GameApi"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  // --on-marker (a pattern: the program's wave at connection time is not known): the capture
  // follows its marker.
  const RunResult m = RunProcess(
      {XRPM_CLI_BIN, "capture", "--connect", run.endpoint, "--on-marker", "Wave *",
       "--ignore-game-requests", "--count", "1", "--json", "-o", dir.Path("m-{n}-{marker}.xrpm")},
      120000);
  ASSERT_EQ(m.exit_code, 0) << m.err << run.proc->log().All();
  const auto mj = nlohmann::json::parse(m.out);
  EXPECT_EQ(mj["trigger"], "marker");
  const std::string last = mj["last_marker"];
  ASSERT_EQ(last.rfind("Wave ", 0), 0u) << m.out;
  EXPECT_EQ(last.find("ended"), std::string::npos) << "a marker, not the game's request";
  EXPECT_EQ(mj["file"], dir.Path("m-1-Wave_" + last.substr(5) + ".xrpm"));
  EXPECT_TRUE(std::filesystem::exists(mj["file"].get<std::string>()));
  // No trigger option: the game's own request, with its label.
  const RunResult g = RunProcess({XRPM_CLI_BIN, "capture", "--connect", run.endpoint, "--count",
                                  "1", "--json", "-o", dir.Path("g-{n}-{marker}.xrpm")},
                                 120000);
  ASSERT_EQ(g.exit_code, 0) << g.err << run.proc->log().All();
  const auto gj = nlohmann::json::parse(g.out);
  EXPECT_EQ(gj["trigger"], "game");
  const std::string file = gj["file"];
  EXPECT_EQ(file.rfind(dir.Path("g-1-Wave_"), 0), 0u) << file;
  EXPECT_NE(file.find("_ended.xrpm"), std::string::npos) << file;
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_FALSE(run.proc->log().WaitFor("the game requested a capture: 'Wave ", 0).empty())
      << run.proc->log().All();
}

TEST(DotnetGameApi, AnAttachedAgentIsNoticedAndTheGamesRequestCaptured) {
  SKIP_WITHOUT_DOTNET();
  const TempDir dir("xrpm-dotnet-api");
  BackgroundProcess game({"/bin/sh", "-c", "exec dotnet " + DotnetProgram("GameApi")});
  ASSERT_FALSE(game.log().WaitFor("GameApi: ready", 60000).empty()) << game.log().All();
  EXPECT_FALSE(game.log().WaitFor("GameApi: attached False", 0).empty()) << game.log().All();
  const RunResult a = RunDotnetLauncher({"--attach", std::to_string(game.pid()), "--port", "0"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const size_t at = a.err.find("listening on 127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << a.err;
  const std::string endpoint = a.err.substr(at + 13, a.err.find_first_of(" \n", at + 13) - at - 13);
  // The program looks again at most once a second (Profiler.cs): bounded by the wait.
  ASSERT_FALSE(game.log().WaitFor("GameApi: attached True at frame", 30000).empty())
      << game.log().All();
  const RunResult g = RunProcess({XRPM_CLI_BIN, "capture", "--connect", endpoint, "--count", "1",
                                  "--json", "-o", dir.Path("a-{n}-{marker}.xrpm")},
                                 120000);
  ASSERT_EQ(g.exit_code, 0) << g.err << game.log().All();
  const auto gj = nlohmann::json::parse(g.out);
  EXPECT_EQ(gj["trigger"], "game");
  EXPECT_NE(gj["file"].get<std::string>().find("_ended.xrpm"), std::string::npos) << g.out;
}

}  // namespace
}  // namespace xrpm::testing
