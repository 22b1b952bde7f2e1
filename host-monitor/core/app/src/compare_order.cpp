#include "xrpm/app/compare_order.h"

#include <algorithm>
#include <unordered_map>

#include "xrpm/app/app_session.h"
#include "xrpm/app/type_table.h"

namespace xrpm::app {
namespace {

// Rank of each growth suspect's type name among the diff rows.
std::unordered_map<std::string_view, size_t> SuspectRanks(const CompareResult& r) {
  std::unordered_map<std::string_view, size_t> rank;
  for (size_t i = 0; i < r.growth.size(); ++i) {
    const uint32_t g = r.growth[i].group;
    if (r.last && g < r.last->index().group_count()) rank.emplace(r.last->index().group_name(g), i);
  }
  return rank;
}

}  // namespace

bool IsGrowthSuspect(const CompareResult& r, uint32_t row) {
  if (row >= r.diff.rows.size() || !r.last) return false;
  for (const auto& s : r.growth)
    if (s.group < r.last->index().group_count() &&
        r.last->index().group_name(s.group) == r.diff.rows[row].name)
      return true;
  return false;
}

std::vector<uint32_t> CompareOrder(const CompareResult& r, std::string_view filter,
                                   CompareColumn column, bool descending) {
  const auto rank = SuspectRanks(r);
  const auto& rows = r.diff.rows;
  std::vector<uint32_t> suspects, others;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    if (!ContainsIgnoreCase(rows[i].name, filter)) continue;
    (rank.count(rows[i].name) ? suspects : others).push_back(i);
  }
  std::sort(suspects.begin(), suspects.end(),
            [&](uint32_t a, uint32_t b) { return rank.at(rows[a].name) < rank.at(rows[b].name); });
  auto key = [&](const analysis::TypeSeries& t) -> int64_t {
    switch (column) {
      case CompareColumn::kCountInLast:
        return t.at.empty() ? 0 : int64_t(t.at.back().count);
      case CompareColumn::kCountDelta:
        return t.count_delta;
      case CompareColumn::kShallowDelta:
        return t.shallow_delta;
      case CompareColumn::kRetainedDelta:
        return t.retained_delta;
      case CompareColumn::kName:
        return 0;
    }
    return 0;
  };
  std::stable_sort(others.begin(), others.end(), [&](uint32_t a, uint32_t b) {
    const auto& ra = rows[a];
    const auto& rb = rows[b];
    if (column == CompareColumn::kName) return descending ? ra.name > rb.name : ra.name < rb.name;
    const int64_t ka = key(ra), kb = key(rb);
    if (ka != kb) return descending ? ka > kb : ka < kb;
    return ra.name < rb.name;
  });
  suspects.insert(suspects.end(), others.begin(), others.end());
  return suspects;
}

}  // namespace xrpm::app
