// OriginReporter: the allocation-origin calls of one capture walk (heap_walker.h: AllocationClock,
// DescribeSite, ObjectOrigin) for a port that interns its sites in a SiteTable (site_table.h):
// the clock once before any origin, each site described once per walk right before the first
// ObjectOrigin that names it, then the object's origin. Shared by the ports that record origins
// (Mono: origin_tracker.h; .NET: dotnet_origins.h), so both speak the walker API alike.
//
// Cost: O(1) per object, O(depth) the first time a site is named in a walk; one bit per site
// interned when the walk began (grown if a site interned during the walk is named).
//
// Thread-safety: none; the walk thread owns it. The SiteTable is read lock-free (its published
// sites are immutable).
#pragma once

#include <cstdint>
#include <vector>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/agent/site_table.h"

namespace xrpm {
namespace agent {

class OriginReporter {
 public:
  // Opens a walk: AllocationClock(frame, sample_bytes), no site described yet.
  WalkResult Begin(HeapInfoCallback& sink, const SiteTable& sites, uint64_t frame,
                   uint32_t sample_bytes);
  // `object`'s origin (allocated in frame `frame` at `site`, an id of the SiteTable), describing
  // the site first if this walk has not.
  WalkResult Report(HeapInfoCallback& sink, const SiteTable& sites, uint64_t object, uint64_t frame,
                    uint32_t site);
  // Closes the walk (the next Begin describes every site again).
  void End();
  // Begin was called without End since (a walk ended early).
  bool open() const { return open_; }

 private:
  std::vector<bool> described_;  // site id -> described in this walk
  bool open_ = false;
};

}  // namespace agent
}  // namespace xrpm
