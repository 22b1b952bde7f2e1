#include "address_ranges.h"

#include <algorithm>

namespace xrpm {
namespace dotnet {

void AddressRanges::Assign(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  ranges.erase(
      std::remove_if(ranges.begin(), ranges.end(),
                     [](const std::pair<uint64_t, uint64_t>& r) { return r.first >= r.second; }),
      ranges.end());
  std::sort(ranges.begin(), ranges.end());
  merged_.clear();
  for (const auto& r : ranges) {
    if (!merged_.empty() && r.first <= merged_.back().second)
      merged_.back().second = std::max(merged_.back().second, r.second);
    else
      merged_.push_back(r);
  }
  table_.clear();
  lo_ = hi_ = 0;
  if (merged_.empty()) return;
  lo_ = merged_.front().first;
  hi_ = merged_.back().second;
  const uint64_t span = hi_ - lo_;
  shift_ = 12;
  while (shift_ < 63 && ((span - 1) >> shift_) + 1 > kMaxTableBytes) ++shift_;
  table_.assign(static_cast<size_t>(((span - 1) >> shift_) + 1), kOutside);
  for (const auto& r : merged_) {
    const uint64_t first = (r.first - lo_) >> shift_, last = (r.second - 1 - lo_) >> shift_;
    for (uint64_t g = first; g <= last; ++g) {
      const uint64_t g_start = lo_ + (g << shift_);
      const uint64_t g_end = g_start + (uint64_t{1} << shift_);  // may pass hi_: then partial
      // Merged ranges neither overlap nor touch: a granule is inside only if this range
      // covers all of it; a granule a range covers only in part is partial for good.
      const bool whole = r.first <= g_start && r.second >= g_end;
      table_[g] = whole && table_[g] == kOutside ? kInside : kPartial;
    }
  }
}

bool AddressRanges::Search(uint64_t address) const {
  auto after = std::upper_bound(merged_.begin(), merged_.end(),
                                std::pair<uint64_t, uint64_t>{address, UINT64_MAX});
  return after != merged_.begin() && address < std::prev(after)->second;
}

}  // namespace dotnet
}  // namespace xrpm
