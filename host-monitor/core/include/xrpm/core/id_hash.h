// Hash containers for the readers' load-time checks: IdSet (a set of 64-bit object ids) and
// TypeIdMap (32-bit type id -> type index).
//
// Both are open-addressing tables with linear probing, power-of-two capacity and load factor
// <= 1/2 (IdSet: 8 bytes per slot, so 16-32 bytes per object at worst, ~13 typically for
// 10 M objects). Keys are mixed with a per-process random seed (SplitMix64 finaliser), so
// crafted input cannot force long probe chains: expected O(1) per operation, O(n) memory.
//
// IdSet is partitioned: partition p holds the ids whose hash has top bits p, so P threads can
// insert in parallel without locks, each scanning all ids and inserting only its own partition
// (which also keeps "first occurrence wins" deterministic).
//
// Thread-safety: IdSet::Insert may run concurrently for different partitions; Contains may
// run concurrently with itself once insertion is finished. TypeIdMap: none (a value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/core/pod_vector.h"

namespace xrpm {

// The seeded mixing hash shared by the containers below.
uint64_t SeededHash(uint64_t key);

class IdSet {
 public:
  // Room for `n` ids in `partitions` partitions (a power of two, >= 1).
  IdSet(size_t n, unsigned partitions);

  unsigned partitions() const { return static_cast<unsigned>(parts_.size()); }
  unsigned PartitionOf(uint64_t hash) const {
    return part_shift_ >= 64 ? 0 : static_cast<unsigned>(hash >> part_shift_);
  }
  // Inserts `id` (whose SeededHash is `hash`) into its partition; false if it was present.
  bool Insert(uint64_t id, uint64_t hash);
  bool Contains(uint64_t id, uint64_t hash) const;
  // Touches the slot `hash` starts probing at, so a batch of lookups overlaps its cache misses.
  void Prefetch(uint64_t hash) const;
  size_t MemoryBytes() const;

 private:
  struct Part {
    PodVector<uint64_t> slots;  // 0 = empty; id 0 is tracked by has_zero
    uint64_t mask = 0;
    bool has_zero = false;
  };
  std::vector<Part> parts_;
  unsigned part_shift_ = 64;
};

class TypeIdMap {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;
  explicit TypeIdMap(size_t expected = 16);
  // Inserts id -> index; returns false (and keeps the old value) if id was present.
  bool Insert(uint32_t id, uint32_t index);
  uint32_t Find(uint32_t id) const;  // kMissing when absent
  size_t size() const { return size_; }

 private:
  void Grow();
  std::vector<uint64_t> slots_;  // (id << 32 | index), ~0 = empty
  size_t mask_ = 0, size_ = 0;
};

}  // namespace xrpm
