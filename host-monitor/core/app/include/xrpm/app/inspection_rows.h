// InspectionRows: what the monitor's Inspections view shows of a document's automatic
// inspections (analysis/inspections.h, computed once in AnalyseDoc): one row per finding,
// grouped by inspection in the inspections' order, each with a severity, the type its objects
// are of (the link to the Instances view) and its first object (the link to the Inspector,
// which shows the object's path to its root).
//
// Severity (a reading aid, not a verdict):
//   problem  event-handler-leaks and disposed-but-held: objects the program no longer means
//            to use and still keeps alive;
//   warning  any other finding whose bytes are >= 1 % of the reachable heap, or that counts
//            >= 100 objects;
//   info     the rest.
// O(findings) per call.
//
// Thread-safety: pure functions over an immutable DocAnalysis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/app/doc_analysis.h"

namespace xrpm::app {

enum class Severity : uint8_t { kInfo, kWarning, kProblem };
const char* SeverityName(Severity s);  // "info", "warning", "problem"

struct InspectionRow {
  uint32_t inspection = 0;  // index into DocAnalysis::inspections
  uint32_t finding = 0;     // index into its findings
  Severity severity = Severity::kInfo;
  uint32_t type = kNoIndex;    // type index of the first object (kNoIndex: no objects)
  uint32_t object = kNoIndex;  // the first object (node index)
};

Severity SeverityOf(const DocAnalysis& a, const analysis::Inspection& in,
                    const analysis::Finding& f);
// Every finding of every inspection that ran, in order.
std::vector<InspectionRow> InspectionRows(const DocAnalysis& a);
// The row of the `n`-th (0-based) finding of the inspection named `name`; nullopt when absent.
std::optional<InspectionRow> FindInspectionRow(const DocAnalysis& a, const std::string& name,
                                               size_t n);

}  // namespace xrpm::app
