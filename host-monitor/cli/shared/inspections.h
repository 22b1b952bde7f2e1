// Printing the automatic inspections (analysis/inspections.h) the same way in `xrpm inspect` and
// the inspections section of `xrpm report`; their JSON is app::InspectionsJson
// (xrpm/app/analysis_json.h), which the monitor's state uses too.
//
// Thread-safety: none needed (CLI).
#pragma once

#include <vector>

#include "xrpm/analysis/inspections.h"
#include "xrpm/app/analysis_json.h"

namespace xrpm::cli {

using app::InspectionsJson;

// Each inspection with up to `top` findings (count, bytes, what, path).
void PrintInspections(const std::vector<analysis::Inspection>& list, size_t top);

}  // namespace xrpm::cli
