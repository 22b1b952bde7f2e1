#include "xrpm/emulator/object_origins.h"

#include <algorithm>

namespace xrpm::emulator {
namespace {

constexpr size_t kSlackEntries = size_t{1} << 16;

bool ByAddr(const ObjectOrigin& a, const ObjectOrigin& b) {
  return a.addr < b.addr;
}

// Keeps the entries whose object is marked, rewriting moved addresses. O(run).
void Filter(std::vector<ObjectOrigin>& run, const ManagedHeap& heap, bool forwarding) {
  size_t keep = 0;
  for (const ObjectOrigin& e : run) {
    const uint32_t* h = heap.Words(e.addr);
    if ((h[0] & kTypeMask) < kFirstRealType || !(h[0] & kMarkBit)) continue;
    ObjectOrigin& out = run[keep++];
    out = e;
    if (forwarding) out.addr = h[1];
  }
  run.resize(keep);
}

void Release(std::vector<ObjectOrigin>& run) {
  if (run.capacity() > 2 * run.size() + kSlackEntries) run.shrink_to_fit();
}

}  // namespace

void ObjectOrigins::Collect(const ManagedHeap& heap, bool forwarding) {
  Filter(live_, heap, forwarding);
  Filter(fit_, heap, forwarding);
  Filter(bump_, heap, forwarding);
  Normalize();
  Release(live_);
}

void ObjectOrigins::Normalize() {
  if (fit_.empty() && bump_.empty()) return;
  if (unsorted_) {
    std::sort(fit_.begin(), fit_.end(), ByAddr);
    std::sort(bump_.begin(), bump_.end(), ByAddr);
  }
  // Merge fit_ into live_ from the back (both ascending), in place.
  size_t i = live_.size(), j = fit_.size();
  live_.resize(i + j);
  for (size_t k = live_.size(); j > 0;) {
    if (i > 0 && live_[i - 1].addr > fit_[j - 1].addr)
      live_[--k] = live_[--i];
    else
      live_[--k] = fit_[--j];
  }
  if (unsorted_ && !bump_.empty() && !live_.empty() && bump_.front().addr < live_.back().addr) {
    live_.insert(live_.end(), bump_.begin(), bump_.end());
    std::sort(live_.begin(), live_.end(), ByAddr);
  } else {
    live_.insert(live_.end(), bump_.begin(), bump_.end());
  }
  fit_.clear();
  bump_.clear();
  Release(fit_);
  Release(bump_);
  unsorted_ = false;
}

const ObjectOrigin* ObjectOrigins::Find(Addr a) {
  Normalize();
  auto it = std::lower_bound(live_.begin(), live_.end(), ObjectOrigin{a, 0, kNoSite}, ByAddr);
  return it != live_.end() && it->addr == a ? &*it : nullptr;
}

}  // namespace xrpm::emulator
