#include "shared/inspections.h"

#include <cstdio>

#include "shared/common.h"

namespace xrpm::cli {

void PrintInspections(const std::vector<analysis::Inspection>& list, size_t top) {
  for (const analysis::Inspection& in : list) {
    if (in.skipped) {
      std::printf("\n%s: skipped (%s)\n", in.name.c_str(), in.skipped->c_str());
      continue;
    }
    std::printf("\n%s: %s finding(s), %s objects, %s %s\n", in.name.c_str(),
                FormatCount(in.findings.size()).c_str(), FormatCount(in.total_count).c_str(),
                FormatBytes(in.total_bytes).c_str(), in.bytes_meaning.c_str());
    if (!in.note.empty()) std::printf("  note: %s\n", in.note.c_str());
    const size_t n = std::min(top, in.findings.size());
    for (size_t i = 0; i < n; ++i) {
      const analysis::Finding& f = in.findings[i];
      std::printf("  %s x %s  %s %s\n", f.what.c_str(), FormatCount(f.count).c_str(),
                  FormatBytes(f.bytes).c_str(), in.bytes_meaning.c_str());
      if (!f.path.empty()) std::printf("      %s\n", f.path.c_str());
    }
    if (in.findings.size() > n) std::printf("  ... %zu more\n", in.findings.size() - n);
  }
}

}  // namespace xrpm::cli
