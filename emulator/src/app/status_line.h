// The status line xrpm-emulator prints on stderr once a second while it runs.
//
// Thread-safety: reads only thread-safe state (published counters, atomics); any thread.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

class StatusLine {
 public:
  StatusLine(const Runtime& rt, const GameLoop& loop, const Scenario& scenario)
      : rt_(rt), loop_(loop), scenario_(scenario) {}
  // "bubbles.exe 12 s  frame 720 (60.0 fps)  heap 1.4 MiB live 0.9 MiB  gc 14 (last 1 ms) ..."
  std::string Next();

 private:
  const Runtime& rt_;
  const GameLoop& loop_;
  const Scenario& scenario_;
  uint64_t seconds_ = 0;
  uint64_t last_frames_ = 0;
};

}  // namespace xrpm::emulator
