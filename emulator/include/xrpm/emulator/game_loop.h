// GameLoop: runs a Scenario on the game thread, one frame at a time, at a fixed rate.
//
// Each frame is bracketed by the WorldLock (the frame boundary is the safe point where
// RunWithWorldStopped parks the game): Runtime::BeginFrame (finalizers), Scenario::Frame,
// Runtime::EndFrame (counters published). Frames are paced to `fps` by waiting on a condition
// variable until the next frame's deadline (fps 0: unthrottled); RequestStop() wakes the wait, so
// stopping is immediate. A loop that falls far behind resynchronises instead of bursting.
//
// Thread-safety: Setup/Start/Join/RunHere from the owning thread; RequestStop, frames(),
// finished() and error() from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

struct LoopConfig {
  double fps = 60;          // 0: as fast as possible (game time still advances 1/60 s a frame)
  uint64_t max_frames = 0;  // 0: until stopped
};

class GameLoop {
 public:
  GameLoop(Runtime& rt, Scenario& scenario, LoopConfig config);
  ~GameLoop();  // requests a stop and joins
  GameLoop(const GameLoop&) = delete;
  GameLoop& operator=(const GameLoop&) = delete;

  // Runs Scenario::Setup under the world lock on the calling thread.
  void Setup();
  // Starts the game thread; `on_finished` runs on it when the loop ends.
  void Start(std::function<void()> on_finished = {});
  // Runs the loop on the calling thread until it ends (tests, benchmarks).
  void RunHere();
  // Runs on the calling thread until frames() reaches `frames` (or the loop stops or fails),
  // then returns with the game at that frame boundary; call again to go on. For captures at
  // exact frames (tests); not with Start.
  void RunHereUntil(uint64_t frames);
  void RequestStop();
  void Join();

  uint64_t frames() const { return frames_.load(std::memory_order_relaxed); }
  bool finished() const { return finished_.load(); }
  // The error that ended the loop (a managed out-of-memory), or "".
  std::string error() const;

 private:
  void Loop();

  Runtime& rt_;
  Scenario& scenario_;
  LoopConfig config_;
  std::thread thread_;
  std::function<void()> on_finished_;
  std::atomic<uint64_t> frames_{0};
  std::atomic<bool> finished_{false};
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string error_;
};

}  // namespace xrpm::emulator
