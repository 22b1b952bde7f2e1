// OriginTracker: allocation origins for the Mono port: for every object whose
// allocation was sampled (SampleInterval), the frame it was allocated in and its interned
// allocation site, kept across the GC's moves and reported in the capture's heap walk through
// the walker API's AllocationClock / DescribeSite / ObjectOrigin (heap_walker.h). Objects whose
// allocation was not sampled have an unknown origin; the walk says so with sample_bytes > 0.
//
// Lifecycle of an entry (OriginTable): Forget(address) on every allocation (a new object never
// inherits a dead one's origin), Record on a sampled one, Move on each GC move report, erased
// by the capture walk's prune when the walk did not see it live. Bounded: the table's fixed
// capacity (kDefaultSlots, 16 B each, 4 MiB) and the SiteTable's bound (past it, new stacks
// are cut to their allocating method); what did not fit is counted (stats()) and logged with
// each capture.
//
// Walk protocol (on the thread walking, world stopped): BeginWalk (AllocationClock), then per
// object ReportObject right before its ObjectReferences (DescribeSite the first time a site is
// named in this walk, then ObjectOrigin), then EndWalk (prune when the walk saw every object).
// Cost: O(1) per object; EndWalk O(capacity).
//
// Thread-safety: Forget/Record from any mutator thread (lock-free table, see OriginTable and
// SiteTable); Move and the walk calls on one thread with the world stopped; stats() anywhere.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include "origin_table.h"
#include "xrpm/agent/heap_walker.h"
#include "xrpm/agent/origin_reporter.h"
#include "xrpm/agent/site_table.h"

namespace xrpm {
namespace mono {

class OriginTracker {
 public:
  // 2^18 slots: 262,144 sampled objects alive or not yet pruned, 4 MiB (committed as touched).
  static constexpr size_t kDefaultSlots = size_t{1} << 18;

  struct Stats {
    uint64_t recorded = 0;      // sampled objects recorded
    uint64_t table_full = 0;    // sampled but not recorded: their bucket was full
    uint64_t sites_full = 0;    // sampled but not recorded: no site id left
    uint64_t moved = 0;         // move reports applied (the GC moved a recorded object)
    uint64_t lost_on_move = 0;  // dropped on a move: the destination bucket was full
    uint64_t pruned = 0;        // erased by capture walks (dead objects)
    size_t tracked = 0;         // entries now
    uint32_t sites = 0;
    size_t table_bytes = 0;
    size_t capacity = 0;
  };

  explicit OriginTracker(size_t slots = kDefaultSlots) : table_(slots) {}

  // ---- mutators ----
  void Forget(uintptr_t object) { table_.Forget(object); }
  // A sampled allocation: `frame` = frames completed, `keys[0..depth)` its stack, innermost
  // first.
  void Record(uintptr_t object, uint64_t frame, const uint64_t* keys, uint32_t depth,
              agent::SiteTable::NameOf name_of);

  // ---- world stopped ----
  void Move(uintptr_t from, uintptr_t to) {
    switch (table_.Move(from, to)) {
      case OriginTable::MoveResult::kMoved:
        moved_.fetch_add(1, std::memory_order_relaxed);
        break;
      case OriginTable::MoveResult::kLost:
        lost_on_move_.fetch_add(1, std::memory_order_relaxed);
        break;
      default:
        break;
    }
  }
  agent::WalkResult BeginWalk(agent::HeapInfoCallback& sink, uint64_t frame, uint32_t sample_bytes);
  agent::WalkResult ReportObject(agent::HeapInfoCallback& sink, uint64_t object);
  // `saw_every_object`: the walk reported every live object (not aborted): prune the rest.
  void EndWalk(bool saw_every_object);

  Stats stats() const;

 private:
  OriginTable table_;
  agent::SiteTable sites_;
  agent::OriginReporter reporter_;  // walk thread only
  std::atomic<uint64_t> recorded_{0}, table_full_{0}, sites_full_{0}, moved_{0}, lost_on_move_{0},
      pruned_{0};
};

}  // namespace mono
}  // namespace xrpm
