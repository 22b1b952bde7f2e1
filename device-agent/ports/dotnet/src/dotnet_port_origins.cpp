// DotnetPort's allocation-origin glue (dotnet_origins.h): the generation bounds each collection
// starts with, and the capture's origins line.
#include "dotnet_port.h"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace xrpm {
namespace dotnet {

bool DotnetPort::GenerationBounds(std::vector<cor::GcGenerationRange>* out) const {
  // Regions (.NET 7 and later) make one range per region: ask again with room for all of them.
  out->resize(out->empty() ? 64 : out->capacity());
  for (int attempt = 0; attempt < 3; ++attempt) {
    cor::ULONG n = 0;
    if (cor::Failed(
            info_->GetGenerationBounds(static_cast<cor::ULONG>(out->size()), &n, out->data()))) {
      out->clear();
      return false;
    }
    if (n <= out->size()) {
      out->resize(n);
      return n > 0;
    }
    out->resize(n + n / 4);  // more regions than room: grow (a collection adds none meanwhile)
  }
  out->clear();
  return false;
}

void DotnetPort::BeginOriginsCollection(int32_t generation_count, const cor::BOOL* collected) {
  // Ranges outside those given count as condemned (dotnet_origins.h), so a failure here can
  // only drop origins, never keep a dead object's.
  bool collects[8] = {};
  const size_t generations =
      static_cast<size_t>(std::max<int32_t>(0, std::min<int32_t>(generation_count, 8)));
  for (size_t g = 0; g < generations; ++g) collects[g] = collected && collected[g];
  try {
    GenerationBounds(&origin_bounds_);
    origin_ranges_.clear();
    for (const cor::GcGenerationRange& r : origin_bounds_)
      origin_ranges_.push_back(DotnetOrigins::GenerationRange{
          r.range_start, r.range_start + r.range_length_reserved, r.generation});
  } catch (const std::exception&) {
    origin_ranges_.clear();
  }
  origins_->BeginCollection(origin_ranges_.data(), origin_ranges_.size(), collects, generations);
}

void DotnetPort::EndOriginsCollection() {
  try {
    GenerationBounds(&origin_bounds_);
    origin_ranges_.clear();
    for (const cor::GcGenerationRange& r : origin_bounds_)
      origin_ranges_.push_back(DotnetOrigins::GenerationRange{
          r.range_start, r.range_start + r.range_length_reserved, r.generation});
  } catch (const std::exception&) {
    origin_ranges_.clear();  // no bounds: unreported entries of generations 0 and 1 are dropped
  }
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
