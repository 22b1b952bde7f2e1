#include "id_index.h"

#include <algorithm>

namespace xrpm::formats {

IdIndex::IdIndex(std::span<const ObjectId> ids) : ids_(ids) {
  for (size_t i = 1; i < ids.size() && sorted_; ++i) {
    if (ids[i] < ids[i - 1]) sorted_ = false;
    if (ids[i] == ids[i - 1]) has_duplicates_ = true;
  }
  if (sorted_) return;
  has_duplicates_ = false;
  pairs_.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) pairs_[i] = Pair{ids[i], i};
  std::sort(pairs_.begin(), pairs_.end(), [](const Pair& a, const Pair& b) {
    return a.id != b.id ? a.id < b.id : a.index < b.index;
  });
  for (size_t k = 1; k < pairs_.size(); ++k)
    if (pairs_[k].id == pairs_[k - 1].id) has_duplicates_ = true;
}

uint64_t IdIndex::Find(ObjectId id) const {
  size_t lo = 0, hi = ids_.size();
  while (lo < hi) {  // first position whose id is >= `id`
    size_t mid = lo + (hi - lo) / 2;
    if (sorted_id(mid) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < ids_.size() && sorted_id(lo) == id) return index_at(lo);
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
