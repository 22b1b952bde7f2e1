// OriginReporter: one walk's allocation-origin calls.
#include "xrpm/agent/origin_reporter.h"

namespace xrpm {
namespace agent {

WalkResult OriginReporter::Begin(HeapInfoCallback& sink, const SiteTable& sites, uint64_t frame,
                                 uint32_t sample_bytes) {
  open_ = true;
  described_.assign(sites.count() + size_t{1}, false);
  return sink.AllocationClock(frame, sample_bytes);
}

WalkResult OriginReporter::Report(HeapInfoCallback& sink, const SiteTable& sites, uint64_t object,
                                  uint64_t frame, uint32_t site) {
  if (site == 0 || site > sites.count()) return WalkResult::kOk;  // not a published site
  if (site >= described_.size()) described_.resize(site + size_t{1}, false);
  if (!described_[site]) {
    const SiteTable::Site& s = sites.site(site);
    const char* names[kMaxSampleStackDepth];
    size_t lens[kMaxSampleStackDepth];
    for (uint32_t i = 0; i < s.depth; ++i) {
      names[i] = s.names[i]->data();
      lens[i] = s.names[i]->size();
    }
    if (sink.DescribeSite(site, names, lens, s.depth) == WalkResult::kAbort)
      return WalkResult::kAbort;
    described_[site] = true;
  }
  return sink.ObjectOrigin(object, frame, site);
}

void OriginReporter::End() {
  described_.clear();
  described_.shrink_to_fit();
  open_ = false;
}

}  // namespace agent
}  // namespace xrpm
