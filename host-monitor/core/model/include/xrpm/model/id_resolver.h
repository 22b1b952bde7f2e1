// IdResolver: maps a raw object id (device address) to its object index in a Snapshot: the one
// id -> index lookup of the readers, the exporters and the analysis.
//
// Two compact layouts, chosen by the data:
//  - ids strictly ascending (a device walking its heap in address order, the common case): no
//    copy of the ids; a bucket table of ~N/2 32-bit entries splits the id range into equal
//    slices, a lookup is one bucket read plus a binary search over ~2 ids. ~2 bytes/object.
//  - anything else: open addressing with linear probing over 32-bit object indices (keys are
//    read from the snapshot's id column), capacity 2N, multiplicative hashing. 8 bytes/object.
// Duplicate ids resolve to the first object that has the id (lowest index); they are counted
// and can be listed.
// Both lookups are O(1) expected; building is O(N) (the hash is filled in parallel with CAS).
// A lookup is two dependent cache misses on a big heap (the bucket or slot, then the ids);
// FindMany resolves a run of ids in stages, every lookup's first read started before any
// second one, so that a pass over many references waits for memory once per stage, not twice
// per reference.
//
// The resolver refers to the snapshot's id column, which must outlive it.
// Thread-safety: immutable after Build; concurrent Find() calls are safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "xrpm/model/pod_vector.h"
#include "xrpm/model/progress.h"
#include "xrpm/model/snapshot.h"

namespace xrpm {

class IdResolver {
 public:
  IdResolver() = default;
  // ids must stay alive and unchanged while the resolver is used.
  static IdResolver Build(std::span<const ObjectId> ids, unsigned threads = 0,
                          const Progress& progress = {});

  // The index of the first object with this id, or kNoIndex.
  uint32_t Find(ObjectId id) const { return sorted_ ? FindSorted(id) : FindHashed(id); }
  // out[i] = Find(ids[i]) for every i (out holds ids.size() entries).
  void FindMany(std::span<const ObjectId> ids, uint32_t* out) const;

  bool sorted() const { return sorted_; }
  uint64_t duplicate_ids() const { return duplicates_; }  // objects whose id was seen before
  // Calls f(first, duplicate) for every object whose id an earlier object (first) has, in
  // index order. O(N).
  void ForEachDuplicate(const std::function<void(uint32_t, uint32_t)>& f) const;
  size_t MemoryBytes() const { return table_.bytes_reserved(); }

 private:
  uint32_t FindSorted(ObjectId id) const {
    if (id < min_ || id > max_) return kNoIndex;
    const uint64_t b = (id - min_) >> shift_;
    uint32_t lo = table_[b], hi = table_[b + 1];
    while (lo < hi) {  // first index with ids_[i] >= id
      uint32_t mid = lo + (hi - lo) / 2;
      if (ids_[mid] < id)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < ids_.size() && ids_[lo] == id ? lo : kNoIndex;
  }
  uint32_t FindHashed(ObjectId id) const {
    if (table_.empty()) return kNoIndex;
    for (uint64_t s = Slot(id);; s = s + 1 == table_.size() ? 0 : s + 1) {
      const uint32_t v = table_[s];
      if (v == kNoIndex) return kNoIndex;
      if (ids_[v] == id) return v;
    }
  }
  uint64_t Slot(ObjectId id) const {
    const uint64_t h = id * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing; fastrange to capacity
    return static_cast<uint64_t>((static_cast<unsigned __int128>(h) * table_.size()) >> 64);
  }
  void BuildSorted();
  void BuildHashed(unsigned threads, const Progress& progress);

  std::span<const ObjectId> ids_;
  bool sorted_ = true;
  ObjectId min_ = 1, max_ = 0;  // empty range
  unsigned shift_ = 0;
  uint64_t duplicates_ = 0;
  // sorted: bucket b holds the first index whose id is in slice b or later (size buckets + 1);
  // hashed: the slots (object index or kNoIndex).
  PodVector<uint32_t> table_;
};

}  // namespace xrpm
