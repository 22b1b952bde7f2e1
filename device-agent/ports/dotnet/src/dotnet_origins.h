// DotnetOrigins: allocation origins for the .NET port: for every object whose allocation was
// sampled (dotnet_allocations.h, either route), the frame it was allocated in and its interned
// allocation site (agent::SiteTable), kept across the collections that move it, and reported in
// a capture's walk (agent::OriginReporter: heap_walker.h AllocationClock / DescribeSite /
// ObjectOrigin), so captures carry origins and `xrpm leaks` works as on the other runtimes.
//
// CoreCLR moves objects in every compacting collection and reuses the space of dead ones, and
// the profiler sees neither allocation nor death of the objects it did not sample. What it is
// told, cheaply (COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS: about 1.1x a
// GC-heavy loop, against 2.3x for the full COR_PRF_MONITOR_GC, docs/PERFORMANCE.md): each
// compacting collection's survivors in the condemned generations, old range -> new range
// (MovedReferences2, every plug, moved or not); with the full GC events also a sweeping
// collection's survivors in place (SurvivingReferences2). Nothing about a sweep otherwise. So,
// per collection:
//   BeginCollection  (GarbageCollectionStarted, objects still in place) merges the samples
//                    recorded since the last collection, sorts the entries by address and notes
//                    each one's generation (the runtime's generation bounds; -1 outside them) and
//                    whether this collection condemns it;
//   Moved / Survived each reported range: the entries inside it survive (at their new address),
//                    and the range's generation counts as reported;
//   EndCollection    (GarbageCollectionFinished, with the bounds after it) decides each condemned
//                    entry no range named:
//                      its address now lies in an older generation than before: its region (or
//                        segment part) was promoted in place, swept: kept (its space is reused
//                        only by the collector's own moves, which are reported);
//                      else its generation reported survivors: that generation was compacted (or
//                        swept with the full events), so it died: dropped;
//                      else generation 2 and the large and pinned heaps, swept in place: kept;
//                      else (generation 0 or 1 reset for allocation, or no bounds): dropped;
//                    then moves the survivors and sorts again. Of two entries at one address the
//                    reported one wins (the other's object cannot be there any more).
// A capture's collection is a full one with the full GC events on (the port turns them on for
// it), so after it the entries are the live sampled objects at the addresses the capture's walk
// reports; the port copies them (Snapshot) before the world resumes. What a cheap sweep keeps
// wrongly: a dead sampled object's entry in a swept generation 2 or large object heap, until the
// next capture prunes it, or until an unsampled object of the same class is allocated at its
// address there (the large object heap's free list; a sample there replaces it): a capture checks
// each entry's class against the object's (class_mismatches in stats()) and drops it if they
// differ.
//
// Bounds: `capacity` entries (kDefaultCapacity = 2^18: 6 MiB of entries, 6 MiB of pending samples
// and 9 MiB of per-collection state, reserved up front, committed as touched); a sample past it is
// counted (table_full) and has no origin; sites as agent::SiteTable bounds them. Cost per
// collection: O(n log n) to sort n entries, O(r log n) for r reported ranges, O(n log g) for g
// generation ranges; nothing when no sample was ever recorded.
//
// Thread-safety: Record from any allocating thread: the runtime calls ObjectAllocated and the
// sampling event on that thread before it can reach a safe point, so no collection moves the
// object before Record returns; a mutex guards only the pending list (no runtime call under
// it). BeginCollection / Moved / Survived / EndCollection / Snapshot from the GC's threads (one
// collection at a time; a mutex serialises server GC's threads). stats() from anywhere.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "xrpm/agent/site_table.h"

namespace xrpm {
namespace dotnet {

class DotnetOrigins {
 public:
  static constexpr size_t kDefaultCapacity = size_t{1} << 18;

  // 24 bytes: one sampled object.
  struct Entry {
    uint64_t address;
    uint64_t klass;  // its ClassID, checked at the capture
    uint32_t frame;  // frames completed at its allocation (saturating)
    uint32_t site;   // SiteTable id
  };
  // One range of a generation (GetGenerationBounds): [start, end).
  struct GenerationRange {
    uint64_t start, end;
    int generation;
  };
  struct Stats {
    uint64_t recorded = 0;          // sampled objects recorded
    uint64_t table_full = 0;        // sampled but not recorded: capacity reached
    uint64_t sites_full = 0;        // sampled but not recorded: no site id left
    uint64_t moved = 0;             // entries a compacting collection moved
    uint64_t died = 0;              // entries dropped: condemned and not reported surviving
    uint64_t swept = 0;             // condemned, unreported, kept: swept in place
    uint64_t class_mismatches = 0;  // capture lookups whose object had another class
    size_t tracked = 0;             // entries now (after the last collection)
    uint32_t sites = 0;
    size_t capacity = 0;
  };

  explicit DotnetOrigins(size_t capacity = kDefaultCapacity);
  DotnetOrigins(const DotnetOrigins&) = delete;
  DotnetOrigins& operator=(const DotnetOrigins&) = delete;

  // ---- allocating threads ----
  // A sampled allocation: `frame` = frames completed, `keys[0..depth)` its stack (FunctionIDs,
  // innermost first), named with name_of(ctx, key) the first time a method is interned.
  void Record(uint64_t object, uint64_t klass, uint64_t frame, const uint64_t* keys, uint32_t depth,
              agent::SiteTable::NameOf name_of, void* ctx);

  // ---- the GC's threads, world stopped ----
  // `collected[g]` for g < generations: whether generation g is collected; `ranges` the
  // generations' address ranges before the collection.
  void BeginCollection(const GenerationRange* ranges, size_t range_count, const bool* collected,
                       size_t generations);
  void Moved(const uintptr_t* from, const uintptr_t* to, const size_t* lengths, size_t count);
  void Survived(const uintptr_t* starts, const size_t* lengths, size_t count);
  // `ranges`: the generations' address ranges after the collection.
  void EndCollection(const GenerationRange* ranges, size_t range_count);
  // The entries now, sorted by address (after EndCollection of a capture's collection).
  void Snapshot(std::vector<Entry>* out) const;
  // Counts a capture lookup that found an entry at an object of another class.
  void CountClassMismatch() { class_mismatches_.fetch_add(1, std::memory_order_relaxed); }

  const agent::SiteTable& sites() const { return sites_; }
  Stats stats() const;

 private:
  void ForEachIn(uint64_t start, uint64_t length, uint64_t to);  // gc_mu_ held
  // The generation of `address` in `ranges` (sorted by start), -1 outside them.
  static int GenerationOf(const std::vector<GenerationRange>& ranges, uint64_t address);
  static constexpr size_t kMaxGenerations = 8;  // 0-2, large (3), pinned (4), room to spare

  const size_t capacity_;
  agent::SiteTable sites_;
  std::mutex pending_mu_;
  std::vector<Entry> pending_;  // under pending_mu_: recorded since the last collection
  mutable std::mutex gc_mu_;
  std::vector<Entry> entries_;            // under gc_mu_: sorted by address between collections
  std::vector<uint64_t> new_address_;     // under gc_mu_, per entry in a collection: 0 = unreported
  std::vector<int8_t> generation_;        // under gc_mu_, per entry in a collection (-1: none)
  std::vector<Entry> scratch_;            // under gc_mu_: EndCollection's result, then swapped
  std::vector<GenerationRange> ranges_;   // under gc_mu_: this collection's, sorted by start
  std::vector<GenerationRange> after_;    // under gc_mu_: the bounds after it, sorted by start
  bool reported_[kMaxGenerations] = {};   // under gc_mu_: generation g reported survivors
  bool collected_[kMaxGenerations] = {};  // under gc_mu_: this collection collects generation g
  // Whether this collection condemns an entry of generation `g` (-1: outside every range: yes).
  bool Condemned(int g) const {
    return g < 0 || static_cast<size_t>(g) >= kMaxGenerations || collected_[g];
  }
  bool in_collection_ = false;  // under gc_mu_
  std::atomic<uint64_t> recorded_{0}, table_full_{0}, sites_full_{0}, moved_{0}, died_{0},
      swept_{0}, class_mismatches_{0};
  std::atomic<size_t> tracked_{0};
};

}  // namespace dotnet
}  // namespace xrpm
