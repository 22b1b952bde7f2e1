#include "shared/origins.h"

#include "xrpm/analysis/site_stats.h"

namespace xrpm::cli {

std::string NoOriginsMessage() {
  return "no allocation sites and ages in this file: the capture's runtime or agent did not "
         "record them, or the file's format cannot hold them (.gclog, IBM classic, .gcdump); "
         "capture with an agent that records them and keep the capture as .xrpm";
}

void RequireOrigins(const LoadedSnapshot& l) {
  if (!l.snap.has_origins())
    throw InputError(Diagnostic{l.path, 0, "no-origins", NoOriginsMessage()});
}

std::string SiteText(const Snapshot& s, uint32_t site, size_t max_methods) {
  return analysis::SiteLabel(s, site, max_methods, " <- ");
}

std::string SampledNote(const Snapshot& s) {
  if (!s.origins || s.origins->sample_bytes == 0) return {};
  return "Sampled origins: the runtime recorded the site of one allocation per ~" +
         FormatBytes(s.origins->sample_bytes) +
         " allocated; counts and bytes are of the recorded objects, \"est.\" estimates all of "
         "them (each weighted 1/p(size)); the others are \"(unknown)\".";
}

}  // namespace xrpm::cli
