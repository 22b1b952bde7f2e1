// LeaksResult: Compare's three-capture leak filter as the monitor shows it — the objects of
// capture C allocated between captures A and B and still held in C (analysis/leak_filter.h),
// grouped by (type, site), plus the same groups rolled up by type or by site for the view's
// "Group by" choice, each rollup row keeping the merged path of its largest group.
//
// Algorithm: LeakRollup is one pass over the groups with a hash map, O(groups), then a sort.
// Thread-safety: values; built on the worker, read on the UI thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xrpm/analysis/leak_filter.h"
#include "xrpm/app/doc_analysis.h"
#include "xrpm/app/doc_origins.h"

namespace xrpm::app {

struct LeaksResult {
  std::array<uint32_t, 3> docs{};        // A, B, C document ids
  std::array<std::string, 3> titles;     // their titles
  std::string error;                     // why the filter could not run ("" when it did)
  analysis::LeakReport report;           // groups by (type, site), largest first
  std::shared_ptr<const DocAnalysis> c;  // C's analysis (the groups point into it)
};

// One row of the view: a (type, site) group, or all groups of one type or of one site.
struct LeakRow {
  std::string type;              // "" for a by-site row
  uint32_t site = kUnknownSite;  // kUnknownSite for a by-type row
  uint64_t count = 0, bytes = 0;
  double est_bytes = 0;
  uint32_t groups = 0;   // (type, site) groups in the row
  uint32_t largest = 0;  // index of its largest group in report.groups (its path)
};

// The rows for `grouping` (kTypeSite: one per group), largest bytes first.
std::vector<LeakRow> LeakRollup(const analysis::LeakReport& r, SiteGrouping grouping);

}  // namespace xrpm::app
