#include "frame_ring.h"

namespace xrpm {
namespace agent {

namespace {
constexpr uint64_t kBusy = UINT64_MAX;
}

FrameRing::FrameRing(size_t capacity)
    : capacity_(capacity ? capacity : 1), slots_(new Slot[capacity ? capacity : 1]) {
  Reset();
}

void FrameRing::Reset() {
  for (size_t i = 0; i < capacity_; ++i) {
    slots_[i].seq.store(0, std::memory_order_relaxed);
    for (auto& w : slots_[i].w) w.store(0, std::memory_order_relaxed);
  }
  head_.store(0, std::memory_order_release);
  cursor_ = 0;
  dropped_ = 0;
}

void FrameRing::Push(const RingRecord& r) {
  const uint64_t h = head_.load(std::memory_order_relaxed);
  Slot& s = slots_[h % capacity_];
  s.seq.store(kBusy, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (size_t i = 0; i < kFrameRecordWords; ++i) s.w[i].store(r.w[i], std::memory_order_relaxed);
  s.seq.store(h + 1, std::memory_order_release);
  head_.store(h + 1, std::memory_order_release);
}

bool FrameRing::Peek(RingRecord* out) {
  for (;;) {
    const uint64_t h = head_.load(std::memory_order_acquire);
    if (cursor_ >= h) return false;
    if (h - cursor_ > capacity_) {  // overwritten before we got to them
      dropped_ += h - cursor_ - capacity_;
      cursor_ = h - capacity_;
    }
    Slot& s = slots_[cursor_ % capacity_];
    const uint64_t before = s.seq.load(std::memory_order_acquire);
    if (before == cursor_ + 1) {
      for (size_t i = 0; i < kFrameRecordWords; ++i)
        out->w[i] = s.w[i].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s.seq.load(std::memory_order_relaxed) == before) return true;
    }
    // The producer lapped us on this slot while we looked: that record is lost.
    ++dropped_;
    ++cursor_;
  }
}

}  // namespace agent
}  // namespace xrpm
