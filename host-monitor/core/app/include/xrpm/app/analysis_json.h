// The JSON of the analysis results that both the CLI (`xrpm inspect`, `report`, `info --json`)
// and the monitor's state (AppSession::StateJson, which scripted tests assert on) print, written
// once so the two never disagree: the inspections (docs/INSPECTIONS.md: {"name", "skipped",
// "bytes_meaning", "findings": [{"what", "count", "bytes", "path", "objects"}]}) and a snapshot's
// allocation-origin summary.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "xrpm/analysis/inspections.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

// One finding: what, count, bytes, its merged path and its objects' ids ("1ce056").
nlohmann::json FindingJson(const Snapshot& s, const analysis::Finding& f);
// One inspection with every finding (FindingJson each), or the reason it was skipped.
nlohmann::json InspectionJson(const Snapshot& s, const analysis::Inspection& in);
// {"inspections": [InspectionJson...]}: the `xrpm inspect --json` document.
nlohmann::json InspectionsJson(const Snapshot& s, const std::vector<analysis::Inspection>& list);

// A type's traits (type_traits.h): {"kind": "value type" | "enum" | "array" | "class" | null
// (not known), "enum_underlying", "array_rank", "element_type" (each only for its kind),
// "has_finalizer", "text": "enum of System.Int32" (DescribeTypeTraits, "" when nothing is known)}.
nlohmann::json TypeTraitsJson(const TypeInfo& t);

// {"capture_frame", "sample_bytes", "sampled", "sites", "methods"}, or null without origins.
nlohmann::json OriginsSummaryJson(const Snapshot& s);

}  // namespace xrpm::app
