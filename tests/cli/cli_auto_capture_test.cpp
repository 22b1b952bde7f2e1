// `xrpm capture` unattended as a user runs it: real xrpm-emulator and xrpm
// processes over 127.0.0.1. Every trigger kind, the --keep ring, the -o template, reconnecting
// after the emulator restarts, a shortened "one hour" run (RSS and open files flat, exactly N
// files left) and bad input (exit 2, nothing written). Each run is bounded by --count and the
// runner's timeout; waits are on the processes' own output lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "proc_usage.h"
#include "sanitizers.h"
#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// One JSON object per capture line of `xrpm capture ... --json`.
std::vector<json> Lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(json::parse(l));
  return lines;
}

RunResult Capture(const std::string& endpoint, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kXrpm, "capture", "--connect", endpoint, "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 120000);
}

// `xrpm-emulator --port 0 ARGS` without the helper's --fps 60 (some tests want a faster game).
std::unique_ptr<BackgroundProcess> Emulator(const std::vector<std::string>& args,
                                            std::string* endpoint) {
  std::vector<std::string> argv = {XRPM_EMULATOR_BIN, "--port", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = std::make_unique<BackgroundProcess>(argv);
  *endpoint = WaitForAgentEndpoint(*p, 20000);
  return p;
}

TEST(CliAutoCapture, EveryKeepsTheNewestFilesNamedByTheTemplate) {
  const TempDir dir("xrpm_auto");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  RunResult r =
      Capture(emu.endpoint, {"--every", "200ms", "--keep", "3", "--count", "6",
                             "--ignore-game-requests", "-o", dir.Path("run-{n}-{marker}.xrpm")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 6u) << r.out;
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json& j = lines[i];
    EXPECT_EQ(j["n"], i + 1);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["trigger"], "every");
    EXPECT_GT(j["objects"].get<uint64_t>(), 50u);
    // {marker}: the game's last marker before the capture ("Wave N"), or "none".
    const std::string marker = j["last_marker"];
    const std::string want = dir.Path("run-" + std::to_string(i + 1) + "-" +
                                      (marker.empty() ? "none" : marker) + ".xrpm");
    std::string file = j["file"];
    std::replace(file.begin() + static_cast<long>(dir.path().size()), file.end(), '_', ' ');
    EXPECT_EQ(file, want);
    if (i >= 3) {
      ASSERT_EQ(j["removed"].size(), 1u) << j.dump();
      EXPECT_EQ(j["removed"][0], lines[i - 3]["file"]);
    } else {
      EXPECT_TRUE(j["removed"].empty());
    }
    if (i >= 3) kept.push_back(fs::path(j["file"].get<std::string>()).filename().string());
  }
  EXPECT_EQ(FileNames(dir.path()), kept) << "exactly the newest 3 and nothing else";
  RunResult info = RunProcess({kXrpm, "info", dir.Path(kept.back()), "--json"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(r.err.find("6 saved, 0 failed"), std::string::npos) << r.err;
}

TEST(CliAutoCapture, OnMarkerAndTheGamesOwnRequests) {
  const TempDir dir("xrpm_auto");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  // bubbles marks "Wave N" every 120 frames and asks for a capture when a wave ends.
  RunResult m = Capture(emu.endpoint, {"--on-marker", "Wave 2", "--ignore-game-requests", "--count",
                                       "1", "-o", dir.Path("m-{n}-{marker}.xrpm")});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto lines = Lines(m.out);
  ASSERT_EQ(lines.size(), 1u) << m.out;
  EXPECT_EQ(lines[0]["trigger"], "marker");
  EXPECT_EQ(lines[0]["file"], dir.Path("m-1-Wave_2.xrpm"));
  EXPECT_EQ(lines[0]["last_marker"], "Wave 2") << "the capture follows its marker";
  EXPECT_TRUE(fs::exists(dir.Path("m-1-Wave_2.xrpm")));

  // No trigger option but --count: the game's requests alone.
  RunResult g = Capture(emu.endpoint, {"--count", "2", "-o", dir.Path("g-{n}-{marker}.xrpm")});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  lines = Lines(g.out);
  ASSERT_EQ(lines.size(), 2u) << g.out;
  for (const json& j : lines) {
    EXPECT_EQ(j["trigger"], "game");
    const std::string f = fs::path(j["file"].get<std::string>()).filename().string();
    EXPECT_EQ(f.rfind("g-" + std::to_string(j["n"].get<int>()) + "-Wave_", 0), 0u) << f;
    EXPECT_NE(f.find("_ended.xrpm"), std::string::npos) << f << ": the request's label";
  }
}

TEST(CliAutoCapture, OnGcPauseAndOnGrowth) {
  const TempDir dir("xrpm_auto");
  // At 600 frames/s bubbles fills its 1 MiB allocation budget about once a second.
  std::string ep;
  auto fast = Emulator({"--fps", "600"}, &ep);
  ASSERT_FALSE(ep.empty()) << fast->log().All();
  RunResult p = Capture(ep, {"--on-gc-pause", "0", "--ignore-game-requests", "--count", "2", "-o",
                             dir.Path("p-{n}-{trigger}.xrpm")});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto lines = Lines(p.out);
  ASSERT_EQ(lines.size(), 2u) << p.out;
  for (const json& j : lines) {
    EXPECT_EQ(j["trigger"], "gc-pause");
    EXPECT_NE(j["reason"].get<std::string>().find("collection(s) paused"), std::string::npos);
  }
  EXPECT_EQ(FileNames(dir.path()),
            (std::vector<std::string>{"p-1-gc-pause.xrpm", "p-2-gc-pause.xrpm"}));
  fast->Stop();

  // The leak scenario keeps what it allocates: bytes in use after GC grow.
  auto leak = Emulator({"--fps", "600", "--scenario", "leak"}, &ep);
  ASSERT_FALSE(ep.empty()) << leak->log().All();
  RunResult g = Capture(ep, {"--on-growth", "16KB", "--ignore-game-requests", "--count", "2", "-o",
                             dir.Path("g-{n}.xrpm")});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  lines = Lines(g.out);
  ASSERT_EQ(lines.size(), 2u) << g.out;
  for (const json& j : lines) {
    EXPECT_EQ(j["trigger"], "growth");
    EXPECT_NE(j["reason"].get<std::string>().find("in use after GC"), std::string::npos);
  }
  EXPECT_LT(lines[0]["heap_bytes"].get<uint64_t>(), lines[1]["heap_bytes"].get<uint64_t>())
      << "the second capture was taken after the heap grew";
}

TEST(CliAutoCapture, ReconnectsWhenTheDeviceRestarts) {
  const TempDir dir("xrpm_auto");
  auto emu = std::make_unique<EmulatorProcess>(std::vector<std::string>{"--scenario", "bubbles"});
  ASSERT_FALSE(emu->endpoint.empty()) << emu->proc->log().All();
  const uint16_t port = emu->port();
  // stdout into the log too, to wait on the capture lines.
  BackgroundProcess cap({"/bin/sh", "-c",
                         "exec " + kXrpm + " capture --connect " + emu->endpoint +
                             " --every 200ms --ignore-game-requests --count 5 -o '" +
                             dir.Path("r-{n}.xrpm") + "' 1>&2"});
  ASSERT_FALSE(cap.log().WaitFor("capture 2 ", 60000).empty()) << cap.log().All();
  EXPECT_EQ(emu->proc->Stop(), 0);
  emu = std::make_unique<EmulatorProcess>(std::vector<std::string>{"--scenario", "bubbles"}, port);
  ASSERT_FALSE(emu->endpoint.empty()) << emu->proc->log().All();
  EXPECT_EQ(cap.Wait(60000), 0) << cap.log().All();
  EXPECT_FALSE(cap.log().WaitFor("lost the device, reconnecting", 0).empty()) << cap.log().All();
  EXPECT_EQ(cap.log().WaitCount("connected to bubbles.exe", 2, 0), 2u) << cap.log().All();
  EXPECT_FALSE(cap.log().WaitFor("5 saved", 0).empty()) << cap.log().All();
  // Each capture's line says what its pause held, as `xrpm capture` and `xrpm info` do.
  const std::string first = cap.log().WaitFor("capture 1 (", 0);
  EXPECT_NE(first.find("game paused "), std::string::npos) << first;
  EXPECT_NE(first.find(" (GC "), std::string::npos) << first;
  EXPECT_NE(first.find(", walk "), std::string::npos) << first;
  EXPECT_EQ(FileNames(dir.path()),
            (std::vector<std::string>{"r-1.xrpm", "r-2.xrpm", "r-3.xrpm", "r-4.xrpm", "r-5.xrpm"}));
}

// An unattended one-hour run (--every 10s --keep 5) shortened: 80 captures. Memory and
// descriptors after the 10th and after the 70th are the same (a small slack for allocator
// noise), and exactly 5 files are left. Under ASan only the descriptors (sanitizers.h).
TEST(CliAutoCapture, ShortenedHourRunIsFlat) {
  const TempDir dir("xrpm_auto");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  BackgroundProcess cap({"/bin/sh", "-c",
                         "exec " + kXrpm + " capture --connect " + emu.endpoint +
                             " --every 50ms --keep 5 --count 80 -o '" + dir.Path("h-{n}.xrpm") +
                             "' 1>&2"});
  ASSERT_FALSE(cap.log().WaitFor("capture 10 ", 60000).empty()) << cap.log().All();
  const uint64_t rss10 = StatusKiB(cap.pid(), "VmRSS");
  const size_t fds10 = OpenFiles(cap.pid());
  ASSERT_FALSE(cap.log().WaitFor("capture 70 ", 120000).empty()) << cap.log().All();
  const uint64_t rss70 = StatusKiB(cap.pid(), "VmRSS");
  const size_t fds70 = OpenFiles(cap.pid());
  EXPECT_EQ(cap.Wait(60000), 0) << cap.log().All();
  EXPECT_GT(rss10, 0u);
  if (!kUnderAsan) {
    EXPECT_LE(rss70, rss10 + 2048)
        << "RSS KiB after 10 captures " << rss10 << ", after 70 " << rss70;
  }
  EXPECT_EQ(fds70, fds10);
  EXPECT_EQ(FileNames(dir.path()).size(), 5u);
  EXPECT_TRUE(fs::exists(dir.Path("h-80.xrpm")));
  EXPECT_TRUE(fs::exists(dir.Path("h-76.xrpm")));
}

TEST(CliAutoCapture, BadInputIsAUsageErrorAndWritesNothing) {
  const TempDir dir("xrpm_auto");
  const std::string out = dir.Path("run-{n}.xrpm");
  // No device is needed: the options are checked before connecting.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--every", "10x", "-o", out},
       "--every: expected a positive duration such as 10s, 500ms, 2m or 1h, found '10x'"},
      {{"--every", "-1s", "-o", out}, "--every: expected a positive duration"},
      {{"--duration", "soon", "-o", out}, "--duration: expected a positive duration"},
      {{"--on-growth", "12XB", "-o", out},
       "--on-growth: expected a positive size such as 64MB, 512KB or 1048576 (bytes), found "
       "'12XB'"},
      {{"--on-gc-pause", "abc", "-o", out},
       "--on-gc-pause: expected milliseconds (a number >= 0, such as 16 or 2.5), found 'abc'"},
      {{"--every", "1s", "-o", dir.Path("run.xrpm")}, "several captures need {n}"},
      {{"--every", "1s", "-o", dir.Path("run-{x}.xrpm")}, "expected {n}, {marker} or {trigger}"},
      {{"--count", "3", "--ignore-game-requests", "-o", out}, "nothing would trigger a capture"},
      {{"--ignore-game-requests", "-o", out}, "--ignore-game-requests needs an unattended run"},
      {{"--keep", "0", "-o", out}, "--keep"},
  };
  for (const auto& [args, want] : cases) {
    std::vector<std::string> argv = {kXrpm, "capture", "--connect", "127.0.0.1:9"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = RunProcess(argv, 20000);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  }
  EXPECT_TRUE(FileNames(dir.path()).empty());
}

}  // namespace
}  // namespace xrpm::testing
