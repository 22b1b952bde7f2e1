#include "xrpm/app/analysis_json.h"

#include "xrpm/model/human_format.h"

namespace xrpm::app {

nlohmann::json FindingJson(const Snapshot& s, const analysis::Finding& f) {
  nlohmann::json ids = nlohmann::json::array();
  for (uint32_t v : f.objects) ids.push_back(FormatHexDigits(s.object_id[v]));
  return {{"what", f.what},
          {"count", f.count},
          {"bytes", f.bytes},
          {"path", f.path},
          {"objects", std::move(ids)}};
}

nlohmann::json InspectionJson(const Snapshot& s, const analysis::Inspection& in) {
  nlohmann::json findings = nlohmann::json::array();
  for (const analysis::Finding& f : in.findings) findings.push_back(FindingJson(s, f));
  return {{"name", in.name},
          {"skipped", in.skipped ? nlohmann::json(*in.skipped) : nlohmann::json()},
          {"note", in.note.empty() ? nlohmann::json() : nlohmann::json(in.note)},
          {"bytes_meaning", in.bytes_meaning},
          {"findings", std::move(findings)}};
}

nlohmann::json InspectionsJson(const Snapshot& s, const std::vector<analysis::Inspection>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const analysis::Inspection& in : list) out.push_back(InspectionJson(s, in));
  return {{"inspections", std::move(out)}};
}

nlohmann::json TypeTraitsJson(const TypeInfo& t) {
  const TypeTraits& tr = t.traits;
  nlohmann::json j{{"kind", tr.known() ? nlohmann::json(TypeKindName(tr.kind)) : nlohmann::json()},
                   {"has_finalizer", t.has_finalizer},
                   {"text", DescribeTypeTraits(tr, t.has_finalizer)}};
  if (tr.kind == TypeKind::kEnum) j["enum_underlying"] = tr.enum_underlying;
  if (tr.kind == TypeKind::kArray) {
    j["array_rank"] = tr.array_rank;
    j["element_type"] = tr.element_type;
  }
  return j;
}

nlohmann::json OriginsSummaryJson(const Snapshot& s) {
  if (!s.origins) return nullptr;
  return {{"capture_frame", s.origins->capture_frame},
          {"sample_bytes", s.origins->sample_bytes},
          {"sampled", s.origins->sample_bytes > 0},
          {"sites", s.origins->sites.size()},
          {"methods", s.origins->methods.size()}};
}

}  // namespace xrpm::app
