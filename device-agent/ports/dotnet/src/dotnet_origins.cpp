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
  generation_.reserve(capacity_);
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

int DotnetOrigins::GenerationOf(const std::vector<GenerationRange>& ranges, uint64_t address) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), address,
                                [](uint64_t x, const GenerationRange& r) { return x < r.start; });
  if (after == ranges.begin()) return -1;
  const GenerationRange& r = *std::prev(after);
  return address < r.end && r.generation >= 0 ? r.generation : -1;
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
  std::fill(std::begin(reported_), std::end(reported_), false);
  for (size_t g = 0; g < kMaxGenerations; ++g) collected_[g] = g >= generations || collected[g];
  new_address_.assign(entries_.size(), 0);
  generation_.assign(entries_.size(), -1);
  ranges_.clear();
  if (entries_.empty()) return;
  ranges_.assign(ranges, ranges + range_count);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
  for (size_t i = 0; i < entries_.size(); ++i) {
    const int g = GenerationOf(ranges_, entries_[i].address);
    if (g < 0) continue;  // outside every range: condemned, no generation
    generation_[i] = static_cast<int8_t>(std::min<int>(g, 127));
  }
}

void DotnetOrigins::ForEachIn(uint64_t start, uint64_t length, uint64_t to) {
  const int g = GenerationOf(ranges_, start);
  if (g >= 0 && static_cast<size_t>(g) < kMaxGenerations) reported_[g] = true;
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

void DotnetOrigins::EndCollection(const GenerationRange* ranges, size_t range_count) {
  std::lock_guard<std::mutex> lock(gc_mu_);
  if (!in_collection_) return;
  in_collection_ = false;
  if (entries_.empty()) return;
  after_.assign(ranges, ranges + range_count);
  std::sort(after_.begin(), after_.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
  // The reported survivors first, then the entries kept unreported, so that of two entries at
  // one address the stable sort keeps the reported one first, and KeepFirstOfEachAddress keeps
  // it.
  scratch_.clear();
  uint64_t moved = 0, died = 0, swept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (new_address_[i] == 0) continue;
    if (new_address_[i] != entries_[i].address) ++moved;
    Entry e = entries_[i];
    e.address = new_address_[i];
    scratch_.push_back(e);
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (new_address_[i] != 0) continue;
    const int g = generation_[i];
    if (!Condemned(g)) {
      scratch_.push_back(entries_[i]);  // a generation this collection left alone
      continue;
    }
    bool keep = false;
    if (g >= 0) {
      const int now = GenerationOf(after_, entries_[i].address);
      const bool reported = static_cast<size_t>(g) < kMaxGenerations && reported_[g];
      keep = now > g || (!reported && g >= 2);  // promoted in place, or swept in place
    }
    if (keep) {
      ++swept;
      scratch_.push_back(entries_[i]);
    } else {
      ++died;
    }
  }
  std::stable_sort(scratch_.begin(), scratch_.end(), EntryBefore);
  KeepFirstOfEachAddress(&scratch_);
  entries_.swap(scratch_);
  moved_.fetch_add(moved, std::memory_order_relaxed);
  died_.fetch_add(died, std::memory_order_relaxed);
  swept_.fetch_add(swept, std::memory_order_relaxed);
  tracked_.store(entries_.size(), std::memory_order_relaxed);
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
  s.swept = swept_.load(std::memory_order_relaxed);
  s.class_mismatches = class_mismatches_.load(std::memory_order_relaxed);
  s.tracked = tracked_.load(std::memory_order_relaxed);
  s.sites = sites_.count();
  s.capacity = capacity_;
  return s;
}

}  // namespace dotnet
}  // namespace xrpm
