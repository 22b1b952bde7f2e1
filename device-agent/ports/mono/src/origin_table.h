// OriginTable: where and when each sampled object was allocated, by object address, for the Mono
// port's allocation origins (origin_tracker.h). Mono moves objects (nursery -> major heap,
// compaction), so the address is a key that the GC's move reports keep current; it is never
// exposed as an identity beyond one capture.
//
// Layout: a fixed array of `slots` 16-byte slots (key 8 B, alloc frame 4 B, site 4 B), grouped
// in 4-way buckets (one 64-byte cache line), and one count byte per bucket (how many of its
// slots are taken or being filled). An address lives in its home bucket or, when that is full,
// in its overflow bucket, or nowhere:
//   home     = (addr / 64 + (addr / 4 MiB) * odd constant) mod buckets: the object starts of one
//              64-byte heap line share a bucket (at most 4: Mono objects are >= 16 B),
//              consecutive heap lines use consecutive buckets (allocation is sequential, so the
//              table is walked sequentially too), 4 MiB heap regions land at scattered offsets;
//   overflow = Fibonacci hash of addr / 8: anywhere, for lines that alias a full bucket.
// Every operation is O(1): a count byte, then at most 4 compares in one cache line, and the
// same in the overflow bucket only while some entry lives in one; no probe chains, no
// tombstones, no rehash, no allocation after construction. Forget, which every allocation
// calls, usually reads one zero count byte (the table holds sampled objects only). Both arrays
// are zeroed by calloc, so only touched pages are committed.
//
// When full: a Record whose home and overflow buckets are both full fails (the object's origin
// stays unknown; the caller counts it); so does such a Move (counted).
// Entries of dead objects are erased (a) when their address is reused: every allocation calls
// Forget(address) and every move Forget(destination) first, so a new object never inherits a
// stale origin, and (b) by PruneUnmarked after a walk that saw every live object (the capture's).
//
// Keys: 0 empty, 1 busy (a slot being filled); object addresses are 8-aligned and never 0 or 1.
//
// Thread-safety: Forget and Record from any number of mutator threads at once, lock-free (CAS
// on the key; a slot is claimed empty -> busy, filled, then published with its address).
// Move, FindAndMark, PruneUnmarked and ClearMarks run on one thread while the world is stopped
// (the GC thread: the only time objects move). A mutator that Mono suspended in the middle of a
// Record leaves a busy slot, which those skip; its object is pinned by the conservative scan of
// that thread's stack, so it does not move meanwhile.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace xrpm {
namespace mono {

struct ObjectOrigin {
  uint32_t frame = 0;  // frames completed when the object was allocated (saturating)
  uint32_t site = 0;   // SiteTable id, >= 1
};

class OriginTable {
 public:
  static constexpr size_t kWays = 4;
  static constexpr size_t kSlotBytes = 16;  // plus 1 count byte per 4 slots

  // `slots` is rounded up to a power of two >= kWays; 0 makes an empty table (nothing recorded).
  explicit OriginTable(size_t slots);
  OriginTable(const OriginTable&) = delete;
  OriginTable& operator=(const OriginTable&) = delete;

  size_t capacity() const { return slots_; }
  size_t bytes() const { return slots_ * kSlotBytes + slots_ / kWays; }
  // Entries now (approximate while mutators run).
  size_t size() const { return static_cast<size_t>(live_.load(std::memory_order_relaxed)); }

  // ---- mutators (any thread, lock-free) ----
  // Erases the entry of `object`'s address if there is one (a dead object's). Inline: the
  // usual answer is one zero count byte.
  void Forget(uintptr_t object) {
    if (!table_) return;
    const size_t home = HomeOf(object);
    if (counts_[home].load(std::memory_order_acquire) == 0 &&
        overflowed_.load(std::memory_order_acquire) == 0)
      return;
    ForgetSlow(home, object);
  }
  // Records a new object; false when its bucket is full (not recorded).
  bool Record(uintptr_t object, ObjectOrigin origin);

  // ---- world stopped, one thread ----
  // The GC moved an object from `from` to `to` (whatever was recorded at `to` was dead):
  // kNotRecorded (nothing recorded at `from`), kMoved, or kLost (`to`'s bucket was full).
  enum class MoveResult : uint8_t { kNotRecorded, kMoved, kLost };
  MoveResult Move(uintptr_t from, uintptr_t to);
  // The origin of the object at `object`, marking the entry as seen live.
  bool FindAndMark(uintptr_t object, ObjectOrigin* out);
  // Erases every published entry not marked since the last prune and clears the marks; returns
  // how many were erased. O(capacity).
  size_t PruneUnmarked();
  // Clears the marks only (a walk that did not see every object). O(capacity).
  void ClearMarks();

 private:
  static constexpr uint64_t kEmpty = 0;
  static constexpr uint64_t kBusy = 1;
  static constexpr uint32_t kMark = 1u << 31;  // in Slot::site
  struct alignas(16) Slot {
    std::atomic<uint64_t> key;
    std::atomic<uint32_t> frame;
    std::atomic<uint32_t> site;  // bit 31: seen live by the current walk
  };
  static_assert(sizeof(Slot) == kSlotBytes, "16-byte slots");
  struct FreeDeleter {
    void operator()(Slot* p) const;
  };

  struct FreeCounts {
    void operator()(std::atomic<uint8_t>* p) const;
  };

  size_t HomeOf(uintptr_t object) const {
    const uint64_t a = static_cast<uint64_t>(object);
    return static_cast<size_t>((a >> 6) + (a >> 22) * 0x9E3779B97F4A7C15ull) & bucket_mask_;
  }
  void ForgetSlow(size_t home, uintptr_t object);
  size_t OverflowOf(uintptr_t object) const;
  Slot* FindIn(size_t bucket, uintptr_t object) const;
  Slot* Find(uintptr_t object) const;
  bool ForgetIn(size_t bucket, uintptr_t object);
  bool RecordIn(size_t bucket, uintptr_t object, ObjectOrigin origin);
  void Clear(Slot* s);

  size_t slots_ = 0;
  size_t bucket_mask_ = 0;
  std::unique_ptr<Slot[], FreeDeleter> table_;
  std::unique_ptr<std::atomic<uint8_t>[], FreeCounts> counts_;  // per bucket
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> overflowed_{0};  // entries living in their overflow bucket
};

}  // namespace mono
}  // namespace xrpm
