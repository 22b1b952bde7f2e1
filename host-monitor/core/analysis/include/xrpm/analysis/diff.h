// Heap diff: what changed between two or more snapshots of the same application, per type.
//
// Object ids are not stable across dumps (the NETCF spec says so, and type ids are not either),
// so snapshots are compared by type NAME: instance count, shallow bytes and retained bytes per
// snapshot, the change from the first to the last, new types (absent from the first, present in
// the last) and vanished ones (the reverse). Rows are sorted by growth: retained bytes, then
// shallow bytes, then count, largest first. Works on HeapSummary values, so a long series of
// large dumps needs only one analysed snapshot in memory at a time. O(T log T) for T type names.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xrpm/analysis/heap_analysis.h"

namespace xrpm::analysis {

struct TypeSeries {
  std::string name;
  std::vector<TypeSummary> at;  // one per snapshot (name empty, counts 0 when absent)
  std::vector<bool> present;
  int64_t count_delta = 0, shallow_delta = 0, retained_delta = 0;  // last - first
  bool is_new = false;          // absent from the first snapshot, present in the last
  bool vanished = false;        // present in the first, absent from the last
  bool grows_steadily = false;  // count never drops and the last is above the first
};

struct HeapDiff {
  std::vector<std::string> sources;
  std::vector<HeapTotals> totals;
  std::vector<TypeSeries> rows;  // sorted by growth
  // Problems worth a warning: the snapshots name different applications.
  std::vector<std::string> warnings;
};

HeapDiff DiffSummaries(std::span<const HeapSummary> snapshots);

}  // namespace xrpm::analysis
