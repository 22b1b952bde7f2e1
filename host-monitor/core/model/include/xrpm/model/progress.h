// Progress: how a long step (an index build, dominators, paths over a whole heap) tells its
// caller how far it got, and how the caller stops it.
//
// The GUI runs analyses on a worker thread and passes a callback that posts the fraction to the
// UI plus a cancel flag the UI sets; the CLI passes nothing. Operations call Report() a bounded
// number of times per phase (never per object) and check the cancel flag at the same points; a
// cancelled operation throws Cancelled and leaves no partial result behind.
//
// Thread-safety: the callback is only ever invoked on the thread that called the operation; the
// cancel flag may be set from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string_view>

namespace xrpm {

// Thrown by a step when its cancel flag was set.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("analysis cancelled") {}
};

struct Progress {
  // phase: short name ("index: resolving references"); fraction: 0..1 within that phase.
  std::function<void(std::string_view phase, double fraction)> on_progress;
  const std::atomic<bool>* cancel = nullptr;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void ThrowIfCancelled() const {
    if (cancelled()) throw Cancelled();
  }
  // Reports and checks for cancellation (throws Cancelled).
  void Report(std::string_view phase, double fraction) const {
    ThrowIfCancelled();
    if (on_progress) on_progress(phase, fraction);
  }
};

}  // namespace xrpm
