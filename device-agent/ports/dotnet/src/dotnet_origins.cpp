// DotnetOrigins: sampled objects' origins across CoreCLR's collections.
#include "dotnet_origins.h"

#include <algorithm>
#include <limits>

#include "xrpm/protocol/allocation_sites.h"

namespace xrpm {
namespace dotnet {
namespace {

bool EntryBefore(const DotnetOrigins::Entry& a, const DotnetOrigins::Entry& b) {
  return a.address < b.address;
}

// Keeps the first entry of each run of equal addresses (the vector is sorted by address).
void KeepFirstOfEachAddress(std::vector<DotnetOrigins::Entry>* v) {
  v->erase(std::unique(v->begin(), v->end(),
                       [](const DotnetOrigins::Entry& a, const DotnetOrigins::Entry& b) {
                         return a.address == b.address;
                       }),
           v->end());
}

}  // namespace

DotnetOrigins::DotnetOrigins(size_t capacity) : capacity_(capacity) {
  // Reserved (not committed) up front: the collection's callbacks then never allocate for them.
  pending_.reserve(capacity_);
  entries_.reserve(capacity_);
  scratch_.reserve(capacity_);
  new_address_.reserve(capacity_);
  condemned_.reserve(capacity_);
}

void DotnetOrigins::Record(uint64_t object, uint64_t klass, uint64_t frame, const uint64_t* keys,
                           uint32_t depth, agent::SiteTable::NameOf name_of, void* ctx) {
  const uint32_t site = sites_.Intern(keys, depth, name_of, ctx);
  if (site == protocol::kNoSite) {
    sites_full_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint32_t at_frame = frame > std::numeric_limits<uint32_t>::max()
                                ? std::numeric_limits<uint32_t>::max()
                                : static_cast<uint32_t>(frame);
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    if (pending_.size() + tracked_.load(std::memory_order_relaxed) >= capacity_) {
      table_full_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    pending_.push_back(Entry{object, klass, at_frame, site});
  }
  recorded_.fetch_add(1, std::memory_order_relaxed);
}

void DotnetOrigins::BeginCollection(const GenerationRange* ranges, size_t range_count,
                                    const bool* collected, size_t generations) {
  std::lock_guard<std::mutex> lock(gc_mu_);
  {
    std::lock_guard<std::mutex> plock(pending_mu_);
    if (!pending_.empty()) {
      // Newer samples after older entries: a sample at an address an entry still holds (which
      // no collection can have left there alive) replaces it below.
      std::stable_sort(pending_.begin(), pending_.end(), EntryBefore);
      const size_t old = entries_.size();
      entries_.insert(entries_.end(), pending_.begin(), pending_.end());
      std::inplace_merge(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(old),
                         entries_.end(), EntryBefore);
      pending_.clear();
      // Of equal addresses keep the last (the newest): reverse, keep first, reverse.
      std::reverse(entries_.begin(), entries_.end());
      KeepFirstOfEachAddress(&entries_);
      std::reverse(entries_.begin(), entries_.end());
    }
  }
  in_collection_ = true;
  new_address_.assign(entries_.size(), 0);
  condemned_.assign(entries_.size(), 1);
  if (entries_.empty()) return;
  ranges_.assign(ranges, ranges + range_count);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
  for (size_t i = 0; i < entries_.size(); ++i) {
    const uint64_t a = entries_[i].address;
    auto after = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                                  [](uint64_t x, const GenerationRange& r) { return x < r.start; });
    if (after == ranges_.begin()) continue;  // outside every range: condemned
    const GenerationRange& r = *std::prev(after);
    if (a >= r.end || r.generation < 0) continue;
    const size_t g = static_cast<size_t>(r.generation);
    condemned_[i] = g >= generations || collected[g] ? 1 : 0;
  }
}

void DotnetOrigins::ForEachIn(uint64_t start, uint64_t length, uint64_t to) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), Entry{start, 0, 0, 0}, EntryBefore);
  for (; it != entries_.end() && it->address - start < length; ++it)
    new_address_[static_cast<size_t>(it - entries_.begin())] = to + (it->address - start);
}

void DotnetOrigins::Moved(const uintptr_t* from, const uintptr_t* to, const size_t* lengths,
                          size_t count) {
  std::lock_guard<std::mutex> lock(gc_mu_);
  if (!in_collection_ || entries_.empty()) return;
  for (size_t i = 0; i < count; ++i) ForEachIn(from[i], lengths[i], to[i]);
}

void DotnetOrigins::Survived(const uintptr_t* starts, const size_t* lengths, size_t count) {
  std::lock_guard<std::mutex> lock(gc_mu_);
  if (!in_collection_ || entries_.empty()) return;
  for (size_t i = 0; i < count; ++i) ForEachIn(starts[i], lengths[i], starts[i]);
}

void DotnetOrigins::EndCollection() {
  std::lock_guard<std::mutex> lock(gc_mu_);
  if (!in_collection_) return;
  in_collection_ = false;
  // The reported survivors first, then the entries of generations this collection left alone,
  // so that of two entries at one address (an unreported one's object cannot be there any
  // more) the stable sort keeps the reported one first, and KeepFirstOfEachAddress keeps it.
  scratch_.clear();
  uint64_t moved = 0, died = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (new_address_[i] == 0) continue;
    if (new_address_[i] != entries_[i].address) ++moved;
    Entry e = entries_[i];
    e.address = new_address_[i];
    scratch_.push_back(e);
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (new_address_[i] != 0) continue;
    if (condemned_[i])
      ++died;
    else
      scratch_.push_back(entries_[i]);
  }
  std::stable_sort(scratch_.begin(), scratch_.end(), EntryBefore);
  KeepFirstOfEachAddress(&scratch_);
  entries_.swap(scratch_);
  moved_.fetch_add(moved, std::memory_order_relaxed);
  died_.fetch_add(died, std::memory_order_relaxed);
  tracked_.store(entries_.size(), std::memory_order_relaxed);
  ranges_.clear();
}

void DotnetOrigins::Snapshot(std::vector<Entry>* out) const {
  std::lock_guard<std::mutex> lock(gc_mu_);
  out->assign(entries_.begin(), entries_.end());
}

DotnetOrigins::Stats DotnetOrigins::stats() const {
  Stats s;
  s.recorded = recorded_.load(std::memory_order_relaxed);
  s.table_full = table_full_.load(std::memory_order_relaxed);
  s.sites_full = sites_full_.load(std::memory_order_relaxed);
  s.moved = moved_.load(std::memory_order_relaxed);
  s.died = died_.load(std::memory_order_relaxed);
  s.class_mismatches = class_mismatches_.load(std::memory_order_relaxed);
  s.tracked = tracked_.load(std::memory_order_relaxed);
  s.sites = sites_.count();
  s.capacity = capacity_;
  return s;
}

}  // namespace dotnet
}  // namespace xrpm
