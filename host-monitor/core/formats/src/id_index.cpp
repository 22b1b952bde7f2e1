#include "id_index.h"

#include <algorithm>

namespace xrpm::formats {

IdIndex::IdIndex(std::span<const ObjectId> ids) : ids_(ids) {
  for (size_t i = 1; i < ids.size() && sorted_; ++i) {
    if (ids[i] < ids[i - 1]) sorted_ = false;
    if (ids[i] == ids[i - 1]) has_duplicates_ = true;
  }
  if (!sorted_) {
    has_duplicates_ = false;
    pairs_.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) pairs_[i] = Pair{ids[i], i};
    std::sort(pairs_.begin(), pairs_.end(), [](const Pair& a, const Pair& b) {
      return a.id != b.id ? a.id < b.id : a.index < b.index;
    });
    for (size_t k = 1; k < pairs_.size(); ++k)
      if (pairs_[k].id == pairs_[k - 1].id) has_duplicates_ = true;
  }
  const size_t n = ids.size();
  if (n == 0) return;
  lo_ = sorted_id(0);
  const uint64_t span = sorted_id(n - 1) - lo_;
  size_t buckets = 2;  // >= 2 keeps shift_ below 64
  while (buckets < n / 4) buckets <<= 1;
  while (shift_ < 64 && (span >> shift_) >= buckets) ++shift_;
  bucket_start_.resize(buckets + 1);
  size_t k = 0;
  for (size_t b = 0; b <= buckets; ++b) {
    while (k < n && ((sorted_id(k) - lo_) >> shift_) < b) ++k;
    bucket_start_[b] = k;
  }
}

uint64_t IdIndex::Find(ObjectId id) const {
  if (ids_.empty() || id < lo_) return kNotFound;
  const uint64_t b = (id - lo_) >> shift_;
  if (b + 1 >= bucket_start_.size()) return kNotFound;
  size_t lo = bucket_start_[b], hi = bucket_start_[b + 1];
  while (lo < hi) {  // first position in the bucket whose id is >= `id`
    size_t mid = lo + (hi - lo) / 2;
    if (sorted_id(mid) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < bucket_start_[b + 1] && sorted_id(lo) == id) return index_at(lo);
  return kNotFound;
}

void IdIndex::ForEachDuplicate(const std::function<void(uint64_t, uint64_t)>& f) const {
  if (!has_duplicates_) return;
  size_t first = 0;
  for (size_t k = 1; k < ids_.size(); ++k) {
    if (sorted_id(k) == sorted_id(first))
      f(index_at(first), index_at(k));
    else
      first = k;
  }
}

}  // namespace xrpm::formats
