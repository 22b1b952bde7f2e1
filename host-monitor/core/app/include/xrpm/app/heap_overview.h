// HeapOverview: the totals the Summary view shows (per AppDomain section and overall, roots by
// descriptor), computed once when a snapshot is loaded so drawing never walks the objects.
//
// Algorithm: one pass over objects and roots, O(objects + roots).
//
// Thread-safety: a value; immutable once built.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::app {

struct SectionOverview {
  std::string name;
  uint32_t version = 0;
  std::optional<uint64_t> start_ms, end_ms;
  bool closed = true;
  uint64_t objects = 0, bytes = 0, refs = 0, roots = 0;
  uint32_t types = 0;
};

struct HeapOverview {
  std::vector<SectionOverview> sections;
  uint64_t objects = 0, bytes = 0, refs = 0, roots = 0;
  std::array<uint64_t, kRootKindCount> roots_by_kind{};
  uint64_t weak_roots = 0, pinned_roots = 0, interior_roots = 0;
  uint64_t largest_object = 0;  // bytes
  // Sampled dumps (.gcdump): the file holds a sample; these are the totals scaled to the whole
  // heap by each type's count multiplier (equal to objects/bytes when not sampled).
  bool sampled = false;
  double scaled_objects = 0, scaled_bytes = 0;
};

HeapOverview OverviewOf(const Snapshot& snap);

}  // namespace xrpm::app
