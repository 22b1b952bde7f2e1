// The sample game's leak through `xrpm leaks`, as the Mono and .NET origin tests check it:
// XnaBubbles' bubbles subscribe to a static event and are never unsubscribed, its particles live
// 30 frames. Three captures at least 90 game frames apart (dozens of bubbles spawned between
// them, every particle of the previous interval gone), saved as .xrpm, then
// `xrpm leaks A B C --json`: the groups it names.
//
// Thread-safety: one test thread; the client is the caller's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mono_process.h"
#include "subprocess.h"
#include "temp_dir.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {

struct SampleGameLeaks {
  std::string error;               // non-empty: a capture or the CLI failed
  bool bubble_from_spawn = false;  // a group of XnaBubbles.Bubble at XnaBubbles.BubblesGame.Spawn
  size_t bubbles = 0;              // in those groups
  size_t particles = 0;            // XnaBubbles.Particle in any group (the game frees them)
  std::string json;                // the CLI's output
};

// `c` must be subscribed to counters (their samples space a capture's tries at a frame).
inline SampleGameLeaks LeaksOfTheSampleGame(client::HostClient& c, const std::string& xrpm_cli) {
  SampleGameLeaks out;
  TempDir dir("xrpm-sample-game-leaks");
  std::vector<std::string> files;
  uint64_t frame = 0;
  for (const char* name : {"a", "b", "c"}) {
    const client::CaptureResult cap = CaptureAtOrAfterFrame(c, frame + 90);
    if (!cap.ok || !cap.snapshot->has_origins()) {
      out.error = "capture " + std::string(name) + ": " +
                  (cap.ok ? std::string("no allocation origins") : cap.error);
      return out;
    }
    frame = cap.snapshot->origins->capture_frame;
    files.push_back(dir.Path(std::string(name) + ".xrpm"));
    formats::SaveSnapshot(*cap.snapshot, files.back());
  }
  const RunResult r =
      RunProcess({xrpm_cli, "leaks", files[0], files[1], files[2], "--json"}, 120000);
  out.json = r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (r.exit_code != 0 || j.is_discarded() || !j.contains("groups")) {
    out.error = "xrpm leaks: exit " + std::to_string(r.exit_code) + ": " + r.err + r.out;
    return out;
  }
  for (const auto& g : j["groups"]) {
    const std::string type = g["type"];
    if (type == "XnaBubbles.Particle") out.particles += g["count"].get<size_t>();
    if (type == "XnaBubbles.Bubble" && !g["site"].empty() &&
        g["site"][0] == "XnaBubbles.BubblesGame.Spawn") {
      out.bubble_from_spawn = true;
      out.bubbles += g["count"].get<size_t>();
    }
  }
  return out;
}

}  // namespace xrpm::testing
