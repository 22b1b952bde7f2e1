// IdResolver: see id_resolver.h.
#include "xrpm/model/id_resolver.h"

#include <algorithm>
#include <atomic>

#include "xrpm/model/fork_join.h"

namespace xrpm {

IdResolver IdResolver::Build(std::span<const ObjectId> ids, unsigned threads,
                             const Progress& progress) {
  IdResolver r;
  r.ids_ = ids;
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] <= ids[i - 1]) {
      r.sorted_ = false;
      break;
    }
  }
  if (r.sorted_)
    r.BuildSorted();
  else
    r.BuildHashed(ResolveThreads(threads), progress);
  return r;
}

void IdResolver::BuildSorted() {
  if (ids_.empty()) return;  // min_ > max_: every lookup misses
  min_ = ids_.front();
  max_ = ids_.back();
  const uint64_t range = max_ - min_;
  const uint64_t want = std::max<uint64_t>(1, ids_.size() / 2);  // buckets
  shift_ = 0;
  // (range >> shift_) + 1 buckets, at most `want`; shift_ stays below 64 (a shift by 64 is
  // undefined) and range + 1 is never formed (it wraps to 0 for a full 64-bit range).
  while (shift_ < 63 && (range >> shift_) >= want) ++shift_;
  const uint64_t buckets = (range >> shift_) + 1;
  table_.resize(buckets + 1);
  uint64_t b = 0;
  for (size_t i = 0; i < ids_.size(); ++i) {
    const uint64_t bi = (ids_[i] - min_) >> shift_;
    while (b <= bi) table_[b++] = static_cast<uint32_t>(i);
  }
  while (b <= buckets) table_[b++] = static_cast<uint32_t>(ids_.size());
}

void IdResolver::BuildHashed(unsigned threads, const Progress& progress) {
  const size_t n = ids_.size();
  table_.resize(std::max<size_t>(16, 2 * n), kNoIndex);
  std::atomic<uint64_t> dups{0};
  std::atomic<bool> stop{false};
  RunChunks(EvenBounds(n, threads), [&](size_t, size_t begin, size_t end) {
    uint64_t local_dups = 0;
    for (size_t i = begin; i < end; ++i) {
      if ((i & 0xFFFF) == 0 && (stop.load(std::memory_order_relaxed) || progress.cancelled())) {
        stop = true;
        return;
      }
      const ObjectId id = ids_[i];
      const uint32_t mine = static_cast<uint32_t>(i);
      for (uint64_t s = Slot(id);; s = s + 1 == table_.size() ? 0 : s + 1) {
        std::atomic_ref<uint32_t> slot(table_[s]);
        uint32_t cur = slot.load(std::memory_order_relaxed);
        bool done = false;
        while (true) {
          if (cur == kNoIndex) {
            if (slot.compare_exchange_weak(cur, mine, std::memory_order_relaxed)) {
              done = true;
              break;
            }
            continue;  // cur reloaded
          }
          if (ids_[cur] != id) break;  // another id: probe on
          // Same id: the lowest index wins, whichever thread inserts first.
          ++local_dups;
          while (cur > mine && !slot.compare_exchange_weak(cur, mine, std::memory_order_relaxed)) {
          }
          done = true;
          break;
        }
        if (done) break;
      }
    }
    dups += local_dups;
  });
  progress.ThrowIfCancelled();
  duplicates_ = dups;
}

void IdResolver::FindMany(std::span<const ObjectId> ids, uint32_t* out) const {
  // Groups of 16: the first reads of all, then the second, then the lookups themselves, which
  // find their lines in the cache.
  constexpr size_t kGroup = 16;
  constexpr uint64_t kOutside = UINT64_MAX;
  uint64_t first[kGroup];  // sorted: the bucket; hashed: the slot (kOutside: no lookup)
  for (size_t at = 0; at < ids.size(); at += kGroup) {
    const size_t n = std::min(kGroup, ids.size() - at);
    const ObjectId* id = ids.data() + at;
    uint32_t* o = out + at;
    for (size_t i = 0; i < n; ++i) {
      if (sorted_)
        first[i] = id[i] >= min_ && id[i] <= max_ ? (id[i] - min_) >> shift_ : kOutside;
      else
        first[i] = table_.empty() ? kOutside : Slot(id[i]);
      if (first[i] != kOutside) __builtin_prefetch(&table_[first[i]]);
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = first[i] == kOutside ? kNoIndex : table_[first[i]];
      if (v < ids_.size()) __builtin_prefetch(&ids_[v]);
    }
    for (size_t i = 0; i < n; ++i) o[i] = first[i] == kOutside ? kNoIndex : Find(id[i]);
  }
}

void IdResolver::ForEachDuplicate(const std::function<void(uint32_t, uint32_t)>& f) const {
  if (duplicates_ == 0) return;
  for (size_t i = 0; i < ids_.size(); ++i) {
    const uint32_t first = Find(ids_[i]);
    if (first != i) f(first, static_cast<uint32_t>(i));
  }
}

}  // namespace xrpm
