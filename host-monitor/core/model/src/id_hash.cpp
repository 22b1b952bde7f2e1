#include "xrpm/model/id_hash.h"

#include <bit>
#include <chrono>
#include <random>

namespace xrpm {

namespace {
uint64_t MakeSeed() {
  std::random_device rd;
  uint64_t s = (uint64_t{rd()} << 32) ^ rd();
  return s ^ static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}
const uint64_t kSeed = MakeSeed();
}  // namespace

uint64_t SeededHash(uint64_t x) {
  x ^= kSeed;
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

IdSet::IdSet(size_t n, unsigned partitions) {
  if (partitions == 0 || (partitions & (partitions - 1))) partitions = 1;
  parts_.resize(partitions);
  part_shift_ = partitions == 1 ? 64 : 64 - std::countr_zero(partitions);
  size_t per = n / partitions + 1;
  size_t cap = std::bit_ceil(per * 3 / 2 < 16 ? size_t{16} : per * 3 / 2);
  for (Part& p : parts_) {
    p.slots.resize(cap, 0);
    p.mask = cap - 1;
  }
}

bool IdSet::Insert(uint64_t id, uint64_t hash) {
  Part& p = parts_[PartitionOf(hash)];
  if (id == 0) {
    bool had = p.has_zero;
    p.has_zero = true;
    return !had;
  }
  // The set was sized for the ids it will hold, so it never fills (load <= 1/2).
  for (uint64_t i = hash & p.mask;; i = (i + 1) & p.mask) {
    uint64_t s = p.slots[i];
    if (s == 0) {
      p.slots[i] = id;
      return true;
    }
    if (s == id) return false;
  }
}

bool IdSet::Contains(uint64_t id, uint64_t hash) const {
  const Part& p = parts_[PartitionOf(hash)];
  if (id == 0) return p.has_zero;
  for (uint64_t i = hash & p.mask;; i = (i + 1) & p.mask) {
    uint64_t s = p.slots[i];
    if (s == id) return true;
    if (s == 0) return false;
  }
}

void IdSet::Prefetch(uint64_t hash) const {
  const Part& p = parts_[PartitionOf(hash)];
  __builtin_prefetch(p.slots.data() + (hash & p.mask));
}

size_t IdSet::MemoryBytes() const {
  size_t b = 0;
  for (const Part& p : parts_) b += p.slots.bytes_reserved();
  return b;
}

void IdBitmap::Span::Merge(const Span& o) {
  if (!o.any) return;
  if (!any) {
    *this = o;
    return;
  }
  min = o.min < min ? o.min : min;
  max = o.max > max ? o.max : max;
  diff_or |= o.diff_or | (o.first ^ first);
}

bool IdBitmap::FitsBitmap(const Span& span, uint64_t n) {
  if (!span.any) return false;
  const unsigned shift = span.diff_or ? static_cast<unsigned>(std::countr_zero(span.diff_or)) : 0;
  const uint64_t bits = ((span.max - span.min) >> shift) + 1;
  return bits / 64 <= n + 64;  // words <= ids: 8 bytes per id at most
}

IdBitmap::IdBitmap(const Span& span, unsigned partitions) {
  min_ = span.min;
  max_ = span.max;
  shift_ = span.diff_or ? static_cast<unsigned>(std::countr_zero(span.diff_or)) : 0;
  align_mask_ = (uint64_t{1} << shift_) - 1;
  const uint64_t words = (((max_ - min_) >> shift_) >> 6) + 1;
  partitions_ = partitions ? partitions : 1;
  part_words_ = (words + partitions_ - 1) / partitions_;
  words_.resize(words, 0);
}

TypeIdMap::TypeIdMap(size_t expected) {
  size_t cap = std::bit_ceil(expected * 2 < 16 ? size_t{16} : expected * 2);
  slots_.assign(cap, ~uint64_t{0});
  mask_ = cap - 1;
}

bool TypeIdMap::Insert(uint32_t id, uint32_t index) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  for (size_t i = SeededHash(id) & mask_;; i = (i + 1) & mask_) {
    uint64_t s = slots_[i];
    if (s == ~uint64_t{0}) {
      slots_[i] = uint64_t{id} << 32 | index;
      ++size_;
      return true;
    }
    if (static_cast<uint32_t>(s >> 32) == id) return false;
  }
}

uint32_t TypeIdMap::Find(uint32_t id) const {
  for (size_t i = SeededHash(id) & mask_;; i = (i + 1) & mask_) {
    uint64_t s = slots_[i];
    if (s == ~uint64_t{0}) return kMissing;
    if (static_cast<uint32_t>(s >> 32) == id) return static_cast<uint32_t>(s);
  }
}

void TypeIdMap::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.size() * 2, ~uint64_t{0});
  mask_ = slots_.size() - 1;
  size_ = 0;
  for (uint64_t s : old)
    if (s != ~uint64_t{0}) Insert(static_cast<uint32_t>(s >> 32), static_cast<uint32_t>(s));
}

}  // namespace xrpm
