// Scenario: the managed program the emulated device runs (`--scenario`): it loads its classes
// and builds its initial heap in Setup(), then runs one game frame per Frame() call.
//
//   bubbles    an XNA game at 60 Hz: bubbles spawn and pop, particles, score strings rebuilt
//              every frame, boxed values, event handlers, lists that grow and shrink
//   leak       the same game, but popped bubbles stay subscribed to a static event, so the heap
//              grows and two snapshots show the leak and the path that holds it
//   synthetic  a large deterministic heap: --objects N, --refs-per-object K, --types T, --seed S
//   mistakes   a small game whose heap plants each mistake the automatic inspections find a
//              known number of times, with near-misses (mistakes_scenario.h)
//
// Every scenario is deterministic: the same parameters give the same heap after the same number
// of frames (game logic uses the fixed frame time and a seeded generator, never the wall clock).
//
// Thread-safety: Setup and Frame run on the thread that holds the world; Status() may be called
// from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

struct ScenarioParams {
  std::string name = "bubbles";
  uint64_t seed = 1;
  uint64_t objects = 1000000;    // synthetic
  uint32_t refs_per_object = 3;  // synthetic
  uint32_t types = 64;           // synthetic
};

class Scenario {
 public:
  virtual ~Scenario() = default;
  virtual const char* name() const = 0;
  virtual void Setup(Runtime& rt) = 0;
  // One frame: `frame` counts from 0, `dt` is the fixed frame time in seconds.
  virtual void Frame(Runtime& rt, uint64_t frame, double dt) = 0;
  // A few words on the program's state for the status line ("42 bubbles, 96 particles").
  virtual std::string Status() const = 0;
};

// The scenario named params.name, or nullptr when there is none.
std::unique_ptr<Scenario> MakeScenario(const ScenarioParams& params);
// The default AppDomain name for a scenario ("bubbles.exe").
std::string DefaultAppName(const std::string& scenario);
// "bubbles, leak, synthetic"
const char* ScenarioNames();

}  // namespace xrpm::emulator
