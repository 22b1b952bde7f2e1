#include "marker_queue.h"

#include <cstring>

namespace xrpm {
namespace agent {

size_t CutUtf8(const char* text, size_t n, size_t max) {
  if (n <= max) return n;
  size_t cut = max;
  // Back off continuation bytes (10xxxxxx) so the cut lands before a lead byte.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

void FillMarkerRow(const QueuedMarker& m, wire::MarkerRow* row) {
  row->set_kind(m.kind == MarkerKind::kCaptureRequest ? wire::CAPTURE_REQUEST : wire::MARKER);
  row->set_text(m.text, m.length);
  row->set_frame(m.frame);
  row->set_time_us(m.time_us);
}

MarkerQueue::MarkerQueue(size_t capacity) {
  size_t c = 1;
  while (c < capacity) c <<= 1;
  mask_ = c - 1;
  slots_.reset(new Slot[c]);
  for (size_t i = 0; i < c; ++i) slots_[i].seq.store(i, std::memory_order_relaxed);
}

void MarkerQueue::OnMarker(MarkerKind kind, const char* text, uint64_t frame,
                           uint64_t time_us) noexcept {
  posted_.fetch_add(1, std::memory_order_relaxed);
  uint64_t pos = head_.load(std::memory_order_relaxed);
  Slot* slot;
  for (;;) {
    slot = &slots_[pos & mask_];
    const uint64_t seq = slot->seq.load(std::memory_order_acquire);
    const int64_t diff = static_cast<int64_t>(seq - pos);
    if (diff == 0) {
      if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
    } else if (diff < 0) {  // full
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    } else {
      pos = head_.load(std::memory_order_relaxed);
    }
  }
  QueuedMarker& m = slot->m;
  m.kind = kind;
  m.frame = frame;
  m.time_us = time_us;
  const char* t = text ? text : "";
  const size_t n = strnlen(t, kMaxMarkerTextBytes + 1);
  m.length = static_cast<uint32_t>(CutUtf8(t, n, kMaxMarkerTextBytes));
  std::memcpy(m.text, t, m.length);
  slot->seq.store(pos + 1, std::memory_order_release);
}

bool MarkerQueue::Pop(QueuedMarker* out) {
  Slot& slot = slots_[tail_ & mask_];
  if (slot.seq.load(std::memory_order_acquire) != tail_ + 1) return false;
  *out = slot.m;
  slot.seq.store(tail_ + mask_ + 1, std::memory_order_release);
  ++tail_;
  return true;
}

}  // namespace agent
}  // namespace xrpm
