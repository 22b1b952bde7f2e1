// CompareOrder: the row order of the Compare view. Growing-type suspects come first (in the
// analysis' rank order), then every other type sorted by the chosen column; a case-insensitive
// name filter applies to both.
//
// Algorithm: filter O(T), sort O(T log T) for T type names; the view calls it only when the
// result, the filter or the sort changes.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace xrpm::app {

struct CompareResult;

enum class CompareColumn { kName, kCountInLast, kCountDelta, kShallowDelta, kRetainedDelta };

std::vector<uint32_t> CompareOrder(const CompareResult& r, std::string_view filter,
                                   CompareColumn column, bool descending);
// Whether diff row `row` is one of the growth suspects.
bool IsGrowthSuspect(const CompareResult& r, uint32_t row);

}  // namespace xrpm::app
