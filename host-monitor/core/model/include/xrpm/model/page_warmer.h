// PageWarmer: faults in the pages of fresh memory on a background thread, ahead of the work
// that will write it, on a core that work leaves idle.
//
// Why: the first write to fresh memory costs a page fault and the kernel's zeroing of the page,
// and on the paravirtualised machines we measure on the host's backing of it too (memory the
// guest gave back): a third of the host's decoding time for a 1 M-object .NET heap, ~10 % of the
// dominators' depth-first search. Its users: a capture's columns, reserved from the previous
// capture's sizes and faulted in during the game's pause (CaptureAssembler); the dominators'
// working arrays, faulted in while the search, on one core, fills them a step at a time.
//
// How: madvise(MADV_POPULATE_WRITE) over each range, 2 MiB at a time (Linux 5.14; without it
// nothing is done), from a thread at its owner's priority. Not lower: the call holds the
// process's memory-map lock while it faults a step in, and any thread of the process that
// maps or protects memory meanwhile (malloc growing an arena does) waits for it. At nice 19
// on two cores busy with the game's threads, the warmer was preempted inside the call for
// seconds at a time, and with it the network thread, blocked in mprotect: the agent's walk
// waited 6-15 s for acknowledgements, and the agent, silent past its timeout, was declared
// lost. The populate call never changes memory contents and
// tolerates ranges that were since unmapped or moved (a column grown past its reservation
// moves; the call then fails for that range and the warmer goes on with the next), so the
// owner needs no synchronisation beyond Stop() before it shrinks or frees the columns.
//
// Thread-safety: Start and Stop from one thread (the owner's); the warming thread reads only
// the range list handed to it.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace xrpm {

class PageWarmer {
 public:
  struct Range {
    void* data = nullptr;
    size_t bytes = 0;
  };

  PageWarmer() = default;
  ~PageWarmer() { Stop(); }
  PageWarmer(const PageWarmer&) = delete;
  PageWarmer& operator=(const PageWarmer&) = delete;

  // Called on the warming thread before each step (tests observe the thread through it).
  using StepHook = std::function<void()>;

  // Starts warming `ranges` in order (a running warming is stopped first).
  void Start(std::vector<Range> ranges, StepHook before_step = nullptr);
  // Stops and joins the warming thread: within one 2 MiB step.
  void Stop();
  // Joins the warming thread once it has warmed every range (for benchmarks and tests).
  void Wait();

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace xrpm
