// WorldLock: stop-the-world between the game (the mutator) and whoever needs the heap quiet
// (the device agent capturing a snapshot, the ground-truth dump).
//
// The game thread brackets every frame with EnterMutator()/LeaveMutator(); the frame boundary is
// its safe point. Stop() asks the game to park there: a frame in progress finishes, the next one
// does not start until Resume(). Stop() waits with a timeout and fails cleanly when the game does
// not reach its safe point in time. With no frame running (no game thread, or between frames)
// Stop() succeeds at once. Stoppers are serialised: a second Stop() waits for the first Resume().
//
// Algorithm: one mutex and one condition variable over three facts (a frame is running, stops
// are pending, the world is stopped). The mutator waits while a stop is pending or in force; a
// stopper waits until no frame runs and no other stopper holds the world. No sleeps or polling.
//
// Thread-safety: all methods are thread-safe. Stop()/Resume() must not be called by the thread
// that is inside a frame (it would wait for itself until the timeout).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace xrpm::emulator {

class WorldLock {
 public:
  void EnterMutator();
  void LeaveMutator();

  // True when the world is now stopped (call Resume() later); false after timeout_ms.
  bool Stop(uint32_t timeout_ms);
  void Resume();

  bool stopped() const;

 private:
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool in_frame_ = false;
  int stops_pending_ = 0;
  bool stopped_ = false;
};

// RAII bracket for one frame (or any mutation) of the game thread.
class MutatorScope {
 public:
  explicit MutatorScope(WorldLock& w) : w_(w) { w_.EnterMutator(); }
  ~MutatorScope() { w_.LeaveMutator(); }
  MutatorScope(const MutatorScope&) = delete;
  MutatorScope& operator=(const MutatorScope&) = delete;

 private:
  WorldLock& w_;
};

}  // namespace xrpm::emulator
