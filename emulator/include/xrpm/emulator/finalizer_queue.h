// FinalizerQueue: objects registered for finalization and the queue of those awaiting their
// finalizer (the "f-reachable" queue), whose entries are roots of descriptor 2.
//
// An instance of a class with a finalizer is registered when allocated. When the collector finds
// a registered object unreachable it moves it to the pending queue, which keeps it (and what it
// references) alive; the finalizer thread then runs Finalize() and drops it, and the next
// collection frees it.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <deque>
#include <vector>

#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

class FinalizerQueue {
 public:
  void Register(Addr obj) { registered_.push_back(obj); }
  std::vector<Addr>& registered() { return registered_; }
  std::deque<Addr>& pending() { return pending_; }
  const std::deque<Addr>& pending() const { return pending_; }

 private:
  std::vector<Addr> registered_;
  std::deque<Addr> pending_;
};

}  // namespace xrpm::emulator
