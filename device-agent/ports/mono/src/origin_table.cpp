#include "origin_table.h"

#include <cstdlib>

namespace xrpm {
namespace mono {

void OriginTable::FreeDeleter::operator()(Slot* p) const {
  std::free(p);
}
void OriginTable::FreeCounts::operator()(std::atomic<uint8_t>* p) const {
  std::free(p);
}

OriginTable::OriginTable(size_t slots) {
  if (slots == 0) return;
  size_t n = kWays;
  while (n < slots) n <<= 1;
  // calloc: zero pages are committed on first touch; all-zero bytes are valid empty slots and
  // counts (std::atomic of an integer is a standard-layout wrapper of it).
  void* mem = std::calloc(n, sizeof(Slot));
  void* counts = std::calloc(n / kWays, sizeof(std::atomic<uint8_t>));
  if (!mem || !counts) {  // no table: nothing is recorded
    std::free(mem);
    std::free(counts);
    return;
  }
  table_.reset(static_cast<Slot*>(mem));
  counts_.reset(static_cast<std::atomic<uint8_t>*>(counts));
  slots_ = n;
  bucket_mask_ = n / kWays - 1;
}

size_t OriginTable::OverflowOf(uintptr_t object) const {
  const uint64_t h = (static_cast<uint64_t>(object) >> 3) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 32) & bucket_mask_;
}

OriginTable::Slot* OriginTable::FindIn(size_t bucket, uintptr_t object) const {
  if (counts_[bucket].load(std::memory_order_acquire) == 0) return nullptr;
  Slot* s = table_.get() + bucket * kWays;
  for (size_t i = 0; i < kWays; ++i)
    if (s[i].key.load(std::memory_order_acquire) == object) return &s[i];
  return nullptr;
}

OriginTable::Slot* OriginTable::Find(uintptr_t object) const {
  if (!table_) return nullptr;
  Slot* s = FindIn(HomeOf(object), object);
  if (!s && overflowed_.load(std::memory_order_acquire) > 0) s = FindIn(OverflowOf(object), object);
  return s;
}

void OriginTable::Clear(Slot* s) {
  const size_t bucket = static_cast<size_t>(s - table_.get()) / kWays;
  const uint64_t object = s->key.load(std::memory_order_relaxed);
  s->key.store(kEmpty, std::memory_order_release);
  counts_[bucket].fetch_sub(1, std::memory_order_acq_rel);
  live_.fetch_sub(1, std::memory_order_relaxed);
  if (bucket != HomeOf(static_cast<uintptr_t>(object)))
    overflowed_.fetch_sub(1, std::memory_order_relaxed);
}

bool OriginTable::ForgetIn(size_t bucket, uintptr_t object) {
  if (counts_[bucket].load(std::memory_order_acquire) == 0) return false;  // the common case
  Slot* s = table_.get() + bucket * kWays;
  for (size_t i = 0; i < kWays; ++i) {
    uint64_t expected = object;
    if (s[i].key.load(std::memory_order_relaxed) == object &&
        s[i].key.compare_exchange_strong(expected, kEmpty, std::memory_order_acq_rel)) {
      counts_[bucket].fetch_sub(1, std::memory_order_acq_rel);
      live_.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void OriginTable::ForgetSlow(size_t home, uintptr_t object) {
  if (ForgetIn(home, object)) return;
  if (overflowed_.load(std::memory_order_acquire) > 0 && ForgetIn(OverflowOf(object), object))
    overflowed_.fetch_sub(1, std::memory_order_relaxed);
}

bool OriginTable::RecordIn(size_t bucket, uintptr_t object, ObjectOrigin origin) {
  // Counted before a slot is claimed, so a Forget never sees 0 while the key is published.
  counts_[bucket].fetch_add(1, std::memory_order_acq_rel);
  Slot* s = table_.get() + bucket * kWays;
  for (size_t i = 0; i < kWays; ++i) {
    uint64_t expected = kEmpty;
    if (s[i].key.load(std::memory_order_relaxed) != kEmpty ||
        !s[i].key.compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel))
      continue;
    s[i].frame.store(origin.frame, std::memory_order_relaxed);
    s[i].site.store(origin.site & ~kMark, std::memory_order_relaxed);
    s[i].key.store(object, std::memory_order_release);
    live_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  counts_[bucket].fetch_sub(1, std::memory_order_acq_rel);
  return false;
}

bool OriginTable::Record(uintptr_t object, ObjectOrigin origin) {
  if (!table_ || object <= kBusy) return false;
  const size_t home = HomeOf(object);
  if (RecordIn(home, object, origin)) return true;
  const size_t overflow = OverflowOf(object);
  if (overflow == home) return false;
  // Announced before the key is published, so a Forget never skips the overflow bucket while
  // the entry is in it.
  overflowed_.fetch_add(1, std::memory_order_acq_rel);
  if (RecordIn(overflow, object, origin)) return true;
  overflowed_.fetch_sub(1, std::memory_order_relaxed);
  return false;
}

OriginTable::MoveResult OriginTable::Move(uintptr_t from, uintptr_t to) {
  Slot* s = Find(from);
  Forget(to);  // a dead object's entry at the destination
  if (!s) return MoveResult::kNotRecorded;
  ObjectOrigin o;
  o.frame = s->frame.load(std::memory_order_relaxed);
  o.site = s->site.load(std::memory_order_relaxed);
  Clear(s);
  return Record(to, o) ? MoveResult::kMoved : MoveResult::kLost;
}

bool OriginTable::FindAndMark(uintptr_t object, ObjectOrigin* out) {
  Slot* s = Find(object);
  if (!s) return false;
  const uint32_t site = s->site.load(std::memory_order_relaxed);
  s->site.store(site | kMark, std::memory_order_relaxed);
  out->frame = s->frame.load(std::memory_order_relaxed);
  out->site = site & ~kMark;
  return true;
}

size_t OriginTable::PruneUnmarked() {
  size_t erased = 0;
  for (size_t i = 0; i < slots_; ++i) {
    Slot& s = table_[i];
    const uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == kEmpty || k == kBusy) continue;
    const uint32_t site = s.site.load(std::memory_order_relaxed);
    if (site & kMark) {
      s.site.store(site & ~kMark, std::memory_order_relaxed);
    } else {
      Clear(&s);
      ++erased;
    }
  }
  return erased;
}

void OriginTable::ClearMarks() {
  for (size_t i = 0; i < slots_; ++i) {
    Slot& s = table_[i];
    s.site.store(s.site.load(std::memory_order_relaxed) & ~kMark, std::memory_order_relaxed);
  }
}

}  // namespace mono
}  // namespace xrpm
