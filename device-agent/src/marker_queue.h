// MarkerQueue: the agent's GameEventSink — a bounded queue of the game's markers and capture
// requests between any game thread (producers) and the agent's network thread (consumer).
//
// Algorithm: Vyukov's bounded MPMC queue (used here with one consumer): a power-of-two array of
// slots, each with a sequence number; a producer claims position `head` with a CAS when the
// slot's sequence equals head, copies the record (text cut at kMaxMarkerTextBytes on a UTF-8
// boundary) and publishes sequence = head + 1; the consumer reads the slot at `tail` when its
// sequence is tail + 1 and frees it with sequence = tail + capacity. Push and Pop are O(1) plus
// the text copy and lock-free; a full queue refuses the push, which is counted in dropped()
// (the game never waits and memory never grows: capacity x ~160 B, allocated once).
//
// Thread-safety: OnMarker from any number of threads at once; Pop from one thread at a time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "xrpm/agent/game_events.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace agent {

struct QueuedMarker {
  MarkerKind kind = MarkerKind::kMarker;
  uint64_t frame = 0;
  uint64_t time_us = 0;
  uint32_t length = 0;
  char text[kMaxMarkerTextBytes] = {};
};

// Length of the longest prefix of text[0..n) that is at most `max` bytes and does not end inside
// a UTF-8 sequence (the cut the agent applies to markers and tags).
size_t CutUtf8(const char* text, size_t n, size_t max);

// The wire row of a queued marker.
void FillMarkerRow(const QueuedMarker& m, wire::MarkerRow* row);

class MarkerQueue final : public GameEventSink {
 public:
  static constexpr size_t kDefaultCapacity = 256;

  explicit MarkerQueue(size_t capacity = kDefaultCapacity);  // rounded up to a power of two

  void OnMarker(MarkerKind kind, const char* text, uint64_t frame,
                uint64_t time_us) noexcept override;

  // Consumer: the oldest marker into *out, or false when the queue is empty.
  bool Pop(QueuedMarker* out);
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t posted() const { return posted_.load(std::memory_order_relaxed); }
  size_t capacity() const { return mask_ + 1; }

 private:
  struct Slot {
    std::atomic<uint64_t> seq{0};
    QueuedMarker m;
  };
  size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> head_{0};
  uint64_t tail_ = 0;  // consumer only
  std::atomic<uint64_t> dropped_{0}, posted_{0};
};

}  // namespace agent
}  // namespace xrpm
