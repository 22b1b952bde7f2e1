// The in-game API (Xrpm.dll) from a real C# program: Markers.exe marks "Wave W"
// every 20 frames, asks for a capture at frame 30 and every 100 frames after, and allocates
// Markers.AiThing inside Scope("AI"), Markers.Nested inside Scope("Path") nested in it, and
// Markers.Plain outside any scope. Under xrpm-mono the markers reach `xrpm frames --json`, the
// request makes `xrpm capture` (unattended) capture, and samples carry their scope's tag;
// without the agent the program runs the same calls, says it is not attached, and Mono prints
// nothing about them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "mono_process.h"
#include "temp_dir.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"

namespace xrpm::testing {
namespace {

const std::vector<std::string> kArgs = {"--frame", "Markers.Program:Tick", "--allocations"};

TEST(MonoGameApi, WithoutTheAgentTheCallsDoNothingAndNeverThrow) {
  SKIP_WITHOUT_MONO();
  RunResult r = RunProcess({"/usr/bin/mono", MonoProgram("Markers.exe"), "--frames", "150"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Markers: attached False"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Markers: done"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal call"), std::string::npos) << "Mono looked the calls up:\n"
                                                            << r.err;
  // A child of an agent's process inherits XRPM_AGENT_PID but not the module.
  RunResult child =
      RunShell("XRPM_AGENT_PID=1 /usr/bin/mono " + MonoProgram("Markers.exe") + " --frames 3 2>&1");
  EXPECT_EQ(child.exit_code, 0) << child.out;
  EXPECT_NE(child.out.find("Markers: attached False"), std::string::npos) << child.out;
  EXPECT_EQ(child.out.find("internal call"), std::string::npos) << child.out;
}

TEST(MonoGameApi, MarkersAndScopeTagsReachTheHost) {
  SKIP_WITHOUT_MONO();
  MonoRun run(kArgs, "Markers.exe", {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Markers: attached True", 30000).empty())
      << run.proc->log().All();
  // `xrpm frames --json`: the markers with the frames they were posted in.
  RunResult f =
      RunProcess({XRPM_CLI_BIN, "frames", "--connect", run.endpoint, "--count", "60", "--json"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto j = nlohmann::json::parse(f.out);
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

  // Scope tags on the samples: each type is allocated under exactly one tag.
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client->SubscribeFrames(256);
  ASSERT_TRUE(client->WaitFrames(20, 30000)) << client->frames_status().error;
  FrameRecording rec;
  client->TakeFrames(&rec);
  std::map<std::string, std::set<std::string>> tags_of_type;
  for (const auto& s : rec.samples) tags_of_type[rec.TypeName(s.type)].insert(rec.TagName(s.tag));
  using Tags = std::set<std::string>;
  EXPECT_EQ(tags_of_type["Markers.AiThing"], (Tags{"AI"}));
  EXPECT_EQ(tags_of_type["Markers.Nested"], (Tags{"Path"})) << "the innermost scope";
  EXPECT_EQ(tags_of_type["Markers.Plain"], (Tags{"<untagged>"})) << "after the scopes closed";
}

TEST(MonoGameApi, RequestCaptureMakesTheHostCapture) {
  SKIP_WITHOUT_MONO();
  const TempDir dir("xrpm_mono_api");
  MonoRun run(kArgs, "Markers.exe", {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  RunResult r = RunProcess({XRPM_CLI_BIN, "capture", "--connect", run.endpoint, "--count", "1",
                            "--json", "-o", dir.Path("m-{n}-{marker}.xrpm")},
                           120000);
  ASSERT_EQ(r.exit_code, 0) << r.err << run.proc->log().All();
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trigger"], "game");
  const std::string file = j["file"];
  EXPECT_EQ(file.rfind(dir.Path("m-1-Wave_"), 0), 0u) << file;
  EXPECT_NE(file.find("_ended.xrpm"), std::string::npos) << file;
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_FALSE(run.proc->log().WaitFor("the game requested a capture: 'Wave ", 0).empty())
      << run.proc->log().All();
}

}  // namespace
}  // namespace xrpm::testing
