// Id containers for the readers' load-time checks: IdBitmap and IdSet (sets of 64-bit object
// ids) and TypeIdMap (32-bit type id -> type index).
//
// IdBitmap is for the usual case: object ids are heap addresses, aligned and dense, so one bit
// per possible address ((max - min) >> alignment bits) is exact and small (a 10 M-object heap
// of 40-byte objects at 4-byte alignment: ~12 MB) and lookups touch one bit. It is only used
// when it costs at most 8 bytes per object (FitsBitmap).
// IdSet and TypeIdMap are open-addressing tables with linear probing, power-of-two capacity and
// load factor <= 2/3 (IdSet: 8 bytes per slot, 12-24 bytes per object). Keys are mixed with a
// per-process random seed (SplitMix64 finaliser), so crafted input cannot force long probe
// chains: expected O(1) per operation, O(n) memory.
//
// Both id sets are partitioned so P threads can insert in parallel without locks, each scanning
// all ids and inserting only those of its own partition (which also keeps "first occurrence
// wins" deterministic): IdSet by the top bits of the hash, IdBitmap by ranges of words.
//
// Thread-safety: Insert may run concurrently for different partitions; Contains may run
// concurrently with itself once insertion is finished. TypeIdMap: none (a value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/model/pod_vector.h"

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

class IdBitmap {
 public:
  // The span of a set of ids: smallest, largest, and the OR of (id ^ first id), whose lowest set
  // bit is the ids' common alignment.
  struct Span {
    uint64_t min = UINT64_MAX, max = 0, diff_or = 0, first = 0;
    bool any = false;
    void Add(uint64_t id) {
      if (!any) {
        first = id;
        any = true;
      }
      min = id < min ? id : min;
      max = id > max ? id : max;
      diff_or |= id ^ first;
    }
    void Merge(const Span& o);
  };
  // Whether a bitmap for `span` costs at most 8 bytes per id (n ids).
  static bool FitsBitmap(const Span& span, uint64_t n);

  IdBitmap(const Span& span, unsigned partitions);
  unsigned partitions() const { return partitions_; }
  // The partition of an id inside the span (ids outside are never inserted).
  unsigned PartitionOf(uint64_t id) const {
    return static_cast<unsigned>(((id - min_) >> shift_ >> 6) / part_words_);
  }
  // Inserts `id`, which must lie in the span; false if it was present.
  bool Insert(uint64_t id) {
    const uint64_t b = (id - min_) >> shift_;
    uint64_t& w = words_[b >> 6];
    const uint64_t m = uint64_t{1} << (b & 63);
    const bool fresh = (w & m) == 0;
    w |= m;
    return fresh;
  }
  bool Contains(uint64_t id) const {
    if (id < min_ || id > max_) return false;
    const uint64_t off = id - min_;
    if (off & align_mask_) return false;
    const uint64_t b = off >> shift_;
    return (words_[b >> 6] >> (b & 63)) & 1;
  }
  void Prefetch(uint64_t id) const {
    if (id >= min_ && id <= max_)
      __builtin_prefetch(words_.data() + (((id - min_) >> shift_) >> 6));
  }
  size_t MemoryBytes() const { return words_.bytes_reserved(); }

 private:
  uint64_t min_ = 0, max_ = 0, align_mask_ = 0;
  unsigned shift_ = 0, partitions_ = 1;
  uint64_t part_words_ = 1;
  PodVector<uint64_t> words_;
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
