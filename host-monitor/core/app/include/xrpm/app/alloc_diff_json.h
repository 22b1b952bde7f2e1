// AllocDiffRowJson: one call site of an allocation traffic diff (analysis::DiffAllocations) as
// JSON, the same fields wherever a diff is printed: `xrpm allocations --diff --json` (its
// "sites") and the monitor's state JSON for scripted tests (its "alloc_compare").
//
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "xrpm/analysis/allocation_diff.h"

namespace xrpm::app {

// {"site", "a_bytes_per_frame", "a_error", "b_bytes_per_frame", "b_error", "change",
//  "change_error", "only_in": "a" | "b" | null}
nlohmann::json AllocDiffRowJson(const analysis::AllocDiffRow& r);

}  // namespace xrpm::app
