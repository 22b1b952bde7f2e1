// ctest-labels: cpu_timing
// `xrpm leaks` on live captures, as a user runs it: the xrpm-emulator process (leak scenario)
// with its agent on 127.0.0.1, three `xrpm capture -o X.xrpm` of one run of the game a few
// seconds of game time apart (waiting on the capture frame the captures carry, not on the
// clock), then `xrpm leaks A B C --json` must name the leaking types and the leaking site, and
// nothing the game frees every frame.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "subprocess.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kEmulator = XRPM_EMULATOR_BIN;

// Captures the emulator into `path`; returns the capture frame (0 on failure).
uint64_t CaptureFrame(const std::string& endpoint, const std::string& path, std::string* err) {
  const RunResult r = RunProcess({kXrpm, "capture", "--connect", endpoint, "-o", path});
  if (r.exit_code != 0) {
    *err = r.err;
    return 0;
  }
  const RunResult info = RunProcess({kXrpm, "info", path, "--json"});
  const json j = json::parse(info.out, nullptr, false);
  if (j.is_discarded() || !j["allocation_origins"].is_object()) {
    *err = "no allocation origins in the capture: " + info.out.substr(0, 2000);
    return 0;
  }
  return j["allocation_origins"]["capture_frame"].get<uint64_t>();
}

// Captures into `path` until the capture's frame is at least `frame` (bounded attempts).
uint64_t CaptureAtOrAfter(const std::string& endpoint, const std::string& path, uint64_t frame,
                          std::string* err) {
  for (int attempt = 0; attempt < 400; ++attempt) {
    const uint64_t f = CaptureFrame(endpoint, path, err);
    if (f == 0 || f >= frame) return f;
  }
  *err = "the game did not reach frame " + std::to_string(frame);
  return 0;
}

TEST(LeaksCapture, LiveCapturesOfTheLeakScenarioNameTheLeakAndItsSite) {
  const fs::path dir =
      fs::temp_directory_path() / ("xrpm_leaks_capture_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Unthrottled: frames as fast as the machine runs them, each 1/60 s of game time.
  BackgroundProcess emu(
      {kEmulator, "--port", "0", "--fps", "0", "--scenario", "leak", "--seed", "1"});
  std::string line = emu.log().WaitFor("listening on 127.0.0.1:", 20000);
  ASSERT_FALSE(line.empty()) << emu.log().All();
  std::string endpoint = line.substr(line.find("127.0.0.1:"));
  endpoint = endpoint.substr(0, endpoint.find(' '));

  // A at frame >= 300; B at least 600 frames later; C at least 900 frames after B (a bubble
  // that did not leak is gone after ~840 frames, a particle after a few seconds).
  const std::string a = (dir / "a.xrpm").string(), b = (dir / "b.xrpm").string(),
                    c = (dir / "c.xrpm").string();
  std::string err;
  const uint64_t fa = CaptureAtOrAfter(endpoint, a, 300, &err);
  ASSERT_GT(fa, 0u) << err;
  const uint64_t fb = CaptureAtOrAfter(endpoint, b, fa + 600, &err);
  ASSERT_GT(fb, 0u) << err;
  const uint64_t fc = CaptureAtOrAfter(endpoint, c, fb + 900, &err);
  ASSERT_GT(fc, 0u) << err;

  const RunResult r = RunProcess({kXrpm, "leaks", a, b, c, "--json", "--top", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["window"]["first_frame"], fa);
  EXPECT_EQ(j["window"]["end_frame"], fb);
  bool bubble = false, handler = false;
  for (const json& g : j["groups"]) {
    const std::string type = g["type"];
    const json& site = g["site"];
    EXPECT_NE(type, "Bubbles.Particle") << g.dump();
    EXPECT_NE(type, "Bubbles.PoppedEventArgs") << g.dump();
    bubble |= type == "Bubbles.Bubble" && !site.empty() && site[0] == "Bubbles.BubbleField.Spawn" &&
              g["count"].get<uint64_t>() > 5 &&
              g["path"].get<std::string>().starts_with("static Bubbles.GameEvents");
    handler |= type.starts_with("System.EventHandler") && !site.empty() &&
               site[0] == "Bubbles.Bubble.OnSpawn";
  }
  EXPECT_TRUE(bubble) << r.out;
  EXPECT_TRUE(handler) << r.out;
  EXPECT_EQ(emu.Stop(), 0) << emu.log().All();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xrpm::testing
