// GcTally: the collections a runtime port counts between two game frames, for the next
// FrameRecord: how many, their total pause, and the first ones' generation and reason
// (xrpm/protocol/gc_kinds.h). The count and the kinds live in one atomic word, so a frame never
// carries more kinds than collections however the collector's and the game's threads interleave.
//
// Thread-safety: Add from the runtime's collector thread (one collection at a time), Take from
// the game thread; both lock-free.
#pragma once

#include <atomic>
#include <cstdint>

#include "xrpm/protocol/gc_kinds.h"

namespace xrpm {
namespace agent {

class GcTally {
 public:
  struct Taken {
    uint32_t gcs = 0;
    uint32_t pause_us = 0;
    uint32_t kinds = 0;  // protocol::GcKind bytes
  };

  // One collection ended after a pause of `pause_us`.
  void Add(uint32_t pause_us, uint8_t generation, protocol::GcReason reason) {
    uint64_t old = word_.load(std::memory_order_relaxed);
    uint64_t next;
    do {
      const uint32_t gcs = static_cast<uint32_t>(old);
      const uint32_t kinds = static_cast<uint32_t>(old >> 32);
      next = uint64_t{protocol::AppendGcKind(kinds, generation, reason)} << 32 |
             (gcs == UINT32_MAX ? gcs : gcs + 1);
    } while (!word_.compare_exchange_weak(old, next, std::memory_order_relaxed));
    pause_us_.fetch_add(pause_us, std::memory_order_relaxed);
  }

  // What was added since the last Take, and starts again from nothing.
  Taken Take() {
    const uint64_t w = word_.exchange(0, std::memory_order_relaxed);
    Taken t;
    t.gcs = static_cast<uint32_t>(w);
    t.kinds = static_cast<uint32_t>(w >> 32);
    t.pause_us = pause_us_.exchange(0, std::memory_order_relaxed);
    return t;
  }

 private:
  std::atomic<uint64_t> word_{0};  // collections (low 32 bits), their kinds (high 32)
  std::atomic<uint32_t> pause_us_{0};
};

}  // namespace agent
}  // namespace xrpm
