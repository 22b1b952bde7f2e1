#include "origin_table.h"

#include <cstdlib>
#include <new>

namespace xrpm {
namespace mono {

void OriginTable::FreeDeleter::operator()(Slot* p) const {
  std::free(p);
}

OriginTable::OriginTable(size_t slots) {
  if (slots == 0) return;
  size_t n = kWays;
  while (n < slots) n <<= 1;
  size_t buckets = n / kWays;
  unsigned bits = 0;
  while ((size_t{1} << bits) < buckets) ++bits;
  // calloc: zero pages are committed on first touch; all-zero bytes are valid empty slots
  // (std::atomic of an integer is a standard-layout wrapper of it).
  void* mem = std::calloc(n, sizeof(Slot));
  if (!mem) return;  // no table: nothing is recorded
  table_.reset(static_cast<Slot*>(mem));
  slots_ = n;
  shift_ = 64 - bits;
}

OriginTable::Slot* OriginTable::Bucket(uintptr_t object) const {
  const uint64_t h = (static_cast<uint64_t>(object) >> 3) * 0x9E3779B97F4A7C15ull;
  const size_t bucket = shift_ >= 64 ? 0 : static_cast<size_t>(h >> shift_);
  return table_.get() + bucket * kWays;
}

OriginTable::Slot* OriginTable::Find(uintptr_t object) const {
  if (!table_) return nullptr;
  Slot* b = Bucket(object);
  for (size_t i = 0; i < kWays; ++i)
    if (b[i].key.load(std::memory_order_acquire) == object) return &b[i];
  return nullptr;
}

void OriginTable::Clear(Slot* s) {
  s->key.store(kEmpty, std::memory_order_release);
  live_.fetch_sub(1, std::memory_order_relaxed);
}

void OriginTable::Forget(uintptr_t object) {
  if (!table_) return;
  Slot* b = Bucket(object);
  for (size_t i = 0; i < kWays; ++i) {
    uint64_t expected = object;
    if (b[i].key.load(std::memory_order_relaxed) == object &&
        b[i].key.compare_exchange_strong(expected, kEmpty, std::memory_order_acq_rel)) {
      live_.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
}

bool OriginTable::Record(uintptr_t object, ObjectOrigin origin) {
  if (!table_ || object <= kBusy) return false;
  Slot* b = Bucket(object);
  for (size_t i = 0; i < kWays; ++i) {
    uint64_t expected = kEmpty;
    if (b[i].key.load(std::memory_order_relaxed) != kEmpty ||
        !b[i].key.compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel))
      continue;
    b[i].frame.store(origin.frame, std::memory_order_relaxed);
    b[i].site.store(origin.site & ~kMark, std::memory_order_relaxed);
    b[i].key.store(object, std::memory_order_release);
    live_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
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
