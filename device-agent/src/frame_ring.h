// FrameRing: the bounded ring between a runtime's game thread (producer) and the agent's network
// thread (consumer) for frame records and allocation samples. A slow or silent host costs the
// game nothing: the producer never waits; when the ring is full the oldest records are
// overwritten and the consumer counts them as dropped.
//
// Algorithm: a single-producer overwrite ring with a per-slot sequence number (a seqlock). The
// producer writes slot head % capacity: marks it busy, stores the payload words, then publishes
// the slot's sequence = head + 1 and advances head. The consumer reads from its own cursor: if
// the producer is more than `capacity` ahead, the skipped records are dropped; a slot is valid
// when its sequence equals cursor + 1 before and after the payload is read (otherwise the
// producer overwrote it meanwhile and it is dropped too). Every word is a relaxed atomic, so
// there is no data race. Push and Peek are O(1), wait-free for the producer.
//
// Thread-safety: one producer thread at a time (the runtime serialises sink calls), one consumer
// thread. Reset only while neither runs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace xrpm {
namespace agent {

constexpr size_t kFrameRecordWords = 7;

struct RingRecord {
  uint64_t w[kFrameRecordWords];
};

class FrameRing {
 public:
  explicit FrameRing(size_t capacity);

  size_t capacity() const { return capacity_; }
  void Reset();

  // Producer.
  void Push(const RingRecord& r);

  // Consumer: the oldest readable record into *out (true), or false when the ring is empty.
  // Records overwritten before they could be read are counted in dropped().
  bool Peek(RingRecord* out);
  // Consumes the record Peek returned.
  void Pop() { ++cursor_; }
  // Records lost so far: counted when skipped, plus those already overwritten and not yet
  // skipped (so the figure is current even while the consumer does not read).
  uint64_t dropped() const {
    const uint64_t behind = pushed() - cursor_;
    return dropped_ + (behind > capacity_ ? behind - capacity_ : 0);
  }
  // Records waiting to be read (at most the capacity).
  uint64_t pending() const {
    const uint64_t behind = pushed() - cursor_;
    return behind > capacity_ ? capacity_ : behind;
  }
  uint64_t pushed() const { return head_.load(std::memory_order_acquire); }

 private:
  struct Slot {
    std::atomic<uint64_t> seq{0};  // 0 empty, UINT64_MAX busy, else index + 1
    std::atomic<uint64_t> w[kFrameRecordWords];
  };
  size_t capacity_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> head_{0};  // records pushed
  uint64_t cursor_ = 0;            // consumer only
  uint64_t dropped_ = 0;           // consumer only
};

}  // namespace agent
}  // namespace xrpm
