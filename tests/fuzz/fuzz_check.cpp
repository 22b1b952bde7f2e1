// Structural snapshot invariants for the fuzz targets; see fuzz_check.h. O(objects + refs + roots).
#include "fuzz_check.h"

#include "xrpm/model/object_fields.h"

namespace xrpm::fuzz {

void CheckSnapshot(const Snapshot& s) {
  const uint64_t n = s.object_count();
  XRPM_FUZZ_CHECK(s.object_type.size() == n && s.object_size.size() == n && s.ref_end.size() == n,
                  "object columns differ in length");
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    XRPM_FUZZ_CHECK(s.ref_end[i] >= prev, "ref_end decreases at object " + std::to_string(i));
    prev = s.ref_end[i];
    XRPM_FUZZ_CHECK(s.object_type[i] < s.types.size(),
                    "object " + std::to_string(i) + " has type index " +
                        std::to_string(s.object_type[i]) + " of " + std::to_string(s.types.size()));
  }
  XRPM_FUZZ_CHECK(prev == s.refs.size(), "last ref_end is not refs.size()");
  const uint64_t r = s.root_count();
  XRPM_FUZZ_CHECK(s.root_kind.size() == r && s.root_flags.size() == r &&
                      s.root_container.size() == r && s.root_origin.size() == r,
                  "root columns differ in length");
  for (uint64_t i = 0; i < r; ++i) {
    XRPM_FUZZ_CHECK(s.root_kind[i] < kRootKindCount, "root " + std::to_string(i));
    XRPM_FUZZ_CHECK(s.root_origin[i] == kNoIndex || s.root_origin[i] < s.root_origins.size(),
                    "root origin out of range");
  }
  for (const TypeInfo& t : s.types)
    XRPM_FUZZ_CHECK(t.section < s.sections.size() || s.sections.empty(), "type section " + t.name);
  uint64_t ob = 0, rb = 0;
  uint32_t tb = 0;
  for (size_t k = 0; k < s.sections.size(); ++k) {
    const AppDomainSection& sec = s.sections[k];
    const std::string at = "section " + std::to_string(k);
    XRPM_FUZZ_CHECK(
        sec.objects_begin == ob && sec.objects_end >= sec.objects_begin && sec.objects_end <= n,
        at + " objects");
    XRPM_FUZZ_CHECK(sec.roots_begin == rb && sec.roots_end >= sec.roots_begin && sec.roots_end <= r,
                    at + " roots");
    XRPM_FUZZ_CHECK(sec.types_begin == tb && sec.types_end >= sec.types_begin &&
                        sec.types_end <= s.types.size(),
                    at + " types");
    for (uint32_t t = sec.types_begin; t < sec.types_end; ++t)
      XRPM_FUZZ_CHECK(s.types[t].section == k, at + " owns a type of another section");
    for (uint64_t i = sec.objects_begin; i < sec.objects_end; ++i)
      XRPM_FUZZ_CHECK(s.object_type[i] >= sec.types_begin && s.object_type[i] < sec.types_end,
                      at + ": object " + std::to_string(i) + " uses a type of another section");
    ob = sec.objects_end;
    rb = sec.roots_end;
    tb = sec.types_end;
  }
  if (!s.sections.empty()) {
    XRPM_FUZZ_CHECK(ob == n && rb == r && tb == s.types.size(),
                    "sections do not cover the columns");
  }
  // Allocation origins: both columns per object when present, empty when absent; sites and
  // their methods in range.
  const uint64_t with = s.has_origins() ? n : 0;
  XRPM_FUZZ_CHECK(s.object_alloc_frame.size() == with && s.object_alloc_site.size() == with,
                  "allocation origin columns do not match the objects");
  if (s.origins) {
    for (const AllocationSite& site : s.origins->sites)
      for (const uint32_t m : site.methods)
        XRPM_FUZZ_CHECK(m < s.origins->methods.size(), "site method out of range");
    for (uint64_t i = 0; i < n; ++i)
      XRPM_FUZZ_CHECK(s.object_alloc_site[i] == kUnknownSite ||
                          s.object_alloc_site[i] < s.origins->sites.size(),
                      "object " + std::to_string(i) + " has an allocation site out of range");
  }
  // Object contents: what the readers accept is consistent.
  const std::string fields = CheckFields(s);
  XRPM_FUZZ_CHECK(fields.empty(), "object contents: " + fields);
}

std::string DiagSummary(const Diagnostics& d) {
  std::string s;
  for (const Diagnostic& x : d.kept()) s += x.code + "@" + std::to_string(x.line) + "; ";
  s += "| ";
  for (const auto& [code, count] : d.counts()) s += code + "=" + std::to_string(count) + " ";
  return s;
}

}  // namespace xrpm::fuzz
