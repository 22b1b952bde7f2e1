// Printing and serialising the automatic inspections (analysis/inspections.h) the same way in
// `xrpm inspect` and the inspections section of `xrpm report`. The JSON is an interface
// (docs/INSPECTIONS.md): {"inspections": [{"name", "skipped", "bytes_meaning", "findings":
// [{"what", "count", "bytes", "path", "objects"}]}]}.
//
// Thread-safety: none needed (CLI).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "xrpm/analysis/inspections.h"

namespace xrpm::cli {

nlohmann::json InspectionsJson(const Snapshot& s, const std::vector<analysis::Inspection>& list);
// Each inspection with up to `top` findings (count, bytes, what, path).
void PrintInspections(const std::vector<analysis::Inspection>& list, size_t top);

}  // namespace xrpm::cli
