// Supervisor: the main thread's job while the game runs: waits for the game to finish, for
// SIGINT/SIGTERM or for the --duration deadline, and calls a status callback once a second.
//
// Signals are blocked in the constructor (before any other thread starts, so every thread
// inherits the mask) and read through a signalfd; the game thread reports its end through an
// eventfd. One poll() waits for both with the time to the next status tick: no polling loops,
// no work in signal handlers.
//
// Thread-safety: construct and Wait() on the main thread; NotifyFinished() from any thread.
#pragma once

#include <functional>

namespace xrpm::emulator {

class Supervisor {
 public:
  enum class Reason { kFinished, kSignal, kDuration };

  Supervisor();
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  void NotifyFinished();
  // duration_s 0: no deadline. `status` runs every second (may be empty).
  Reason Wait(double duration_s, const std::function<void()>& status);
  int signal_number() const { return signal_; }

 private:
  int signal_fd_ = -1;
  int event_fd_ = -1;
  int signal_ = 0;
};

}  // namespace xrpm::emulator
