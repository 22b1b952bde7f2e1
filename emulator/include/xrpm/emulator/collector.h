// Collector: the emulated runtime's garbage collector: mark, then sweep or compact, all
// stop-the-world on the thread that holds the world.
//
// Algorithm (NETCF-style, non-generational):
//   1. Mark: every strong root (RootSet; weak handle roots excluded) is marked and traced with an
//      explicit mark stack (iterative depth-first, no recursion, so chains of any length are
//      fine). Roots with the pinned flag also set the object's pinned bit. O(live objects + refs).
//   2. Short weak handles (GCHandleType.Weak) whose target is unmarked are cleared.
//   3. Finalization: each registered object left unmarked moves to the pending-finalization
//      queue and is marked and traced from there (it lives until its finalizer has run).
//   4. Long weak handles (WeakTrackResurrection) whose target is still unmarked are cleared.
//   5a. Sweep (no compaction): one pass over the heap; runs of dead objects and free blocks
//       coalesce into free blocks for the next-fit allocator; a dead tail lowers the top. O(heap).
//   5b. Compact (sliding, Lisp-2 with pinning): pass 1 computes each live object's new address
//       (stored in its sync word) sliding objects down in address order; a pinned object stays
//       and the gap before it becomes a free block. Pass 2 rewrites every root slot, the
//       finalization lists and every reference field (skipped when pass 1 found that no object
//       moves). Pass 3 moves the objects (memmove,
//       ascending, so sources are never overwritten early). O(heap) per pass.
//   In 5a before the sweep and in 5b after pass 1, the allocation-origin side table
//   (object_origins.h) drops dead objects' entries and takes the new addresses: O(entries).
// A collection compacts when asked (GC.Collect, a capture) or when more than a quarter of the
// used heap is garbage.
//
// Thread-safety: none; runs on the thread that holds the world.
#pragma once

#include <cstdint>
#include <vector>

#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

class Runtime;

enum class GcReason : uint8_t {
  kBudget,     // the allocation budget (1 MB by default) was used up
  kInduced,    // GC.Collect()
  kCapture,    // a heap capture / dump
  kLowMemory,  // an allocation did not fit
};

struct GcResult {
  GcReason reason = GcReason::kBudget;
  bool compacted = false;
  uint64_t live_objects = 0;
  uint64_t live_bytes = 0;
  uint64_t freed_objects = 0;
  uint64_t freed_bytes = 0;
  uint64_t moved_objects = 0;
  uint64_t pinned_objects = 0;
  uint64_t queued_for_finalization = 0;
  uint64_t weak_handles_cleared = 0;
  double pause_ms = 0;
};

class Collector {
 public:
  explicit Collector(Runtime& rt) : rt_(rt) {}

  // One full collection. `force_compact` compacts regardless of fragmentation.
  GcResult Collect(GcReason reason, bool force_compact);
  // The mark phase alone (steps 1-4 without moving anything), then the marks are cleared.
  // Returns the number of marked objects. For the benchmark and the tests.
  uint64_t MarkOnly();

  uint64_t collections() const { return collections_; }
  const GcResult& last() const { return last_; }

 private:
  void Mark(GcResult& r);
  void MarkObject(Addr a, bool pin);
  void Drain();
  void ClearDeadWeakHandles(bool track_resurrection, GcResult& r);
  void QueueUnreachableFinalizable(GcResult& r);
  void Sweep(GcResult& r);
  void Compact(GcResult& r);
  void ClearMarks();

  Runtime& rt_;
  std::vector<Addr> mark_stack_;
  uint64_t marked_objects_ = 0;
  uint64_t marked_bytes_ = 0;
  uint64_t pinned_ = 0;
  uint64_t collections_ = 0;
  GcResult last_;
};

}  // namespace xrpm::emulator
