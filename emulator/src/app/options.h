// Command-line options of xrpm-emulator and how they configure the runtime, the scenario and
// the game loop. Adding options (the device agent's --listen/--token/--port) means calling
// CLI::App::add_option on the same app before parsing; see main.cpp.
//
// Thread-safety: values; parse on the main thread.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

struct EmulatorOptions {
  std::string scenario = "bubbles";
  double fps = 60;
  uint64_t seed = 1;
  std::string app_name;   // default: by scenario
  uint64_t frames = 0;    // 0: unbounded
  double duration_s = 0;  // 0: unbounded
  uint64_t objects = 1000000;
  uint32_t refs_per_object = 3;
  uint32_t types = 64;
  uint64_t heap_mb = 3072;
  std::string dump;             // ground-truth dump written at exit (.gclog, or .xrpm by extension)
  bool no_values = false;       // the dump without field values or string text
  uint32_t string_cap = 0;      // the dump's text per string (0: a capture's default)
  std::string stat;             // .stat table written at exit
  std::string walk = "paused";  // captures' walks: "paused" (as the device) or "snapshot"
  bool quiet = false;
};

void AddEmulatorOptions(CLI::App& app, EmulatorOptions& o);
// Applies defaults that depend on other options and checks them; returns "" or the problem.
std::string FinishOptions(const CLI::App& app, EmulatorOptions& o);

RuntimeConfig RuntimeConfigFor(const EmulatorOptions& o);
ScenarioParams ScenarioParamsFor(const EmulatorOptions& o);
LoopConfig LoopConfigFor(const EmulatorOptions& o);

}  // namespace xrpm::emulator
