// IdIndex: finds an object's index in a Snapshot by its raw id (device address).
//
// Algorithm: the ids in ascending order plus a bucket table over the address range (one bucket
// per ~4 ids, holding where its ids start), so a lookup is one table read and a binary search
// within one bucket: O(1) expected for the evenly spread addresses of a heap, O(log N) at
// worst. Heaps are usually dumped in address order, so when the id column is already sorted the
// index borrows it; otherwise it sorts (id, index) pairs once: O(N log N) time, 16 bytes per
// object. The bucket table costs 2-4 bytes per object. With duplicate ids, Find returns the one
// that comes first in the snapshot.
//
// Thread-safety: immutable after construction; concurrent Find calls are safe. The id span must
// outlive the index.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "xrpm/model/pod_vector.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

class IdIndex {
 public:
  static constexpr uint64_t kNotFound = ~uint64_t{0};

  explicit IdIndex(std::span<const ObjectId> ids);

  // The index of the first object with `id`, or kNotFound.
  uint64_t Find(ObjectId id) const;
  // Calls f(first_index, duplicate_index) for every object whose id an earlier object has.
  void ForEachDuplicate(const std::function<void(uint64_t, uint64_t)>& f) const;
  bool has_duplicates() const { return has_duplicates_; }
  size_t size() const { return ids_.size(); }

 private:
  ObjectId sorted_id(size_t k) const { return sorted_ ? ids_[k] : pairs_[k].id; }
  uint64_t index_at(size_t k) const { return sorted_ ? k : pairs_[k].index; }

  struct Pair {
    ObjectId id;
    uint64_t index;
  };
  std::span<const ObjectId> ids_;
  bool sorted_ = true;
  bool has_duplicates_ = false;
  PodVector<Pair> pairs_;  // (id, index) ascending by id then index, when ids_ is not sorted
  ObjectId lo_ = 0;        // smallest id
  unsigned shift_ = 0;     // bucket of id: (id - lo_) >> shift_
  PodVector<uint64_t> bucket_start_;  // sorted position of each bucket's first id; one extra
};

}  // namespace xrpm::formats
