// DotnetPort's allocation-origin glue (dotnet_origins.h): the generation bounds each collection
// starts and ends with, as the origins take them, and the capture's origins line.
#include "dotnet_port.h"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace xrpm {
namespace dotnet {

void DotnetPort::OriginRanges() {
  try {
    origin_ranges_.clear();
    for (const cor::GcGenerationRange& r : gc_bounds_)
      origin_ranges_.push_back(DotnetOrigins::GenerationRange{
          r.range_start, r.range_start + r.range_length_reserved, r.generation});
  } catch (const std::exception&) {
    origin_ranges_.clear();
  }
}

void DotnetPort::BeginOriginsCollection(int32_t generation_count, const cor::BOOL* collected) {
  // Ranges outside those given count as condemned (dotnet_origins.h), so a failure here can
  // only drop origins, never keep a dead object's.
  bool collects[8] = {};
  const size_t generations =
      static_cast<size_t>(std::max<int32_t>(0, std::min<int32_t>(generation_count, 8)));
  for (size_t g = 0; g < generations; ++g) collects[g] = collected && collected[g];
  OriginRanges();
  origins_->BeginCollection(origin_ranges_.data(), origin_ranges_.size(), collects, generations);
}

void DotnetPort::EndOriginsCollection() {
  OriginRanges();  // none: unreported entries of generations 0 and 1 are dropped
  origins_->EndCollection(origin_ranges_.data(), origin_ranges_.size());
}

std::string DotnetPort::OriginsLine(size_t reported) const {
  const DotnetOrigins::Stats s = origins_->stats();
  std::string line = "capture: allocation origins: " + std::to_string(reported) +
                     " objects with an origin, " + std::to_string(s.sites) + " sites; " +
                     std::to_string(s.recorded) + " samples kept since start, " +
                     std::to_string(s.moved) + " moves followed, " + std::to_string(s.died) +
                     " died, " + std::to_string(s.swept) + " kept through sweeps";
  if (s.table_full || s.sites_full)
    line += ", " + std::to_string(s.table_full + s.sites_full) +
            " not kept (tables full: " + std::to_string(s.capacity) + " objects)";
  if (s.class_mismatches)
    line += ", " + std::to_string(s.class_mismatches) + " dropped (another class at the address)";
  return line;
}

}  // namespace dotnet
}  // namespace xrpm
