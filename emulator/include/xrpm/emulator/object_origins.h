// ObjectOrigins: where and when every object in the managed heap was allocated, in a side table
// beside the heap (objects keep the NETCF sizes and layout): one 12-byte entry per object
// {address, allocation frame, allocation site}. The frame is the runtime's frame counter at the
// allocation (frames completed; saturates at 2^32 - 1, over two years at 60 fps) and the site an
// id of the runtime's SiteTable (allocation_sites.h). The pair survives compaction and sweeps:
// the collector updates the table in the same collection that moves or frees the objects.
//
// Layout and algorithm. Entries are kept in three address-ordered runs:
//   live_  every object that survived the last collection, ascending address;
//   fit_   objects allocated since then inside the free blocks that collection left (below its
//          top), ascending because the next-fit allocator only moves forward;
//   bump_  objects allocated since then above that top (bump allocation), ascending.
// Recording an allocation is one comparison and one vector push: O(1) amortised, no hashing.
// A collection (Collect: after marking; for a compaction after the new addresses are computed and
// before anything moves) drops the entries of dead objects and rewrites moved addresses in one
// pass over each run, O(entries), reading each object's header in address order (sliding
// compaction keeps the order), then merges fit_ into live_ in place from the back and appends
// bump_: O(entries), no extra memory beyond live_'s growth. Normalize does the same merge without
// a collection (before a heap walk). Should a run ever be recorded out of order (not with
// today's allocator), it is sorted at the merge instead: O(k log k).
//
// Memory: 12 B per live object, plus the entries of objects allocated since the last collection
// (<= the 1 MB budget / 8 B per object) and vector growth slack (a run's capacity is released
// when it exceeds twice its size plus 64 Ki entries).
//
// Thread-safety: none; owned by the Runtime, used by the thread that holds the world.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/emulator/allocation_sites.h"
#include "xrpm/emulator/managed_heap.h"
#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

struct ObjectOrigin {
  Addr addr = kNull;
  uint32_t frame = 0;  // frames completed when the object was allocated (saturating)
  SiteId site = kNoSite;
};

class ObjectOrigins {
 public:
  // An object just allocated at `a`.
  void Record(Addr a, uint64_t frame, SiteId site) {
    const uint32_t f = frame < UINT32_MAX ? static_cast<uint32_t>(frame) : UINT32_MAX;
    std::vector<ObjectOrigin>& run = a >= bump_floor_ ? bump_ : fit_;
    if (!run.empty() && run.back().addr >= a) unsorted_ = true;
    run.push_back(ObjectOrigin{a, f, site});
  }

  // ---- collector hooks ----
  // Drops the entries of unmarked objects; when `forwarding`, live objects move to the address
  // the compactor stored in their sync word. Call with the marks set, before the heap changes.
  // Leaves one address-ordered run.
  void Collect(const ManagedHeap& heap, bool forwarding);
  // The heap's top after the collection: later allocations at or above it are bump allocations.
  void SetBumpFloor(Addr top) { bump_floor_ = top; }

  // Merges the runs into one, ascending by address (after it, entries() is every object).
  void Normalize();
  // The entries, ascending by address; complete after Normalize or Collect.
  const std::vector<ObjectOrigin>& entries() const { return live_; }
  // The origin of the object at `a`, or nullptr. Normalizes; O(log n).
  const ObjectOrigin* Find(Addr a);

  size_t size() const { return live_.size() + fit_.size() + bump_.size(); }
  size_t MemoryBytes() const {
    return (live_.capacity() + fit_.capacity() + bump_.capacity()) * sizeof(ObjectOrigin);
  }

 private:
  std::vector<ObjectOrigin> live_, fit_, bump_;
  Addr bump_floor_ = ManagedHeap::kBase;
  bool unsorted_ = false;
};

}  // namespace xrpm::emulator
