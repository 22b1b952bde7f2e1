#include "xrpm/app/inspection_rows.h"

namespace xrpm::app {
namespace {
InspectionRow MakeRow(const DocAnalysis& a, uint32_t i, uint32_t k) {
  const analysis::Inspection& in = a.inspections[i];
  const analysis::Finding& f = in.findings[k];
  InspectionRow r;
  r.inspection = i;
  r.finding = k;
  r.severity = SeverityOf(a, in, f);
  if (!f.objects.empty()) {
    r.object = f.objects.front();
    r.type = a.snapshot->object_type[r.object];
  }
  return r;
}
}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kProblem:
      return "problem";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      break;
  }
  return "info";
}

Severity SeverityOf(const DocAnalysis& a, const analysis::Inspection& in,
                    const analysis::Finding& f) {
  if (in.name == "event-handler-leaks" || in.name == "disposed-but-held") return Severity::kProblem;
  if (f.count >= 100 || f.bytes * 100 >= a.totals.reachable_bytes) return Severity::kWarning;
  return Severity::kInfo;
}

std::vector<InspectionRow> InspectionRows(const DocAnalysis& a) {
  std::vector<InspectionRow> rows;
  for (uint32_t i = 0; i < a.inspections.size(); ++i)
    for (uint32_t k = 0; k < a.inspections[i].findings.size(); ++k)
      rows.push_back(MakeRow(a, i, k));
  return rows;
}

std::optional<InspectionRow> FindInspectionRow(const DocAnalysis& a, const std::string& name,
                                               size_t n) {
  for (uint32_t i = 0; i < a.inspections.size(); ++i)
    if (a.inspections[i].name == name && n < a.inspections[i].findings.size())
      return MakeRow(a, i, static_cast<uint32_t>(n));
  return std::nullopt;
}

}  // namespace xrpm::app
