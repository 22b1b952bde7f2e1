#include "origin_tracker.h"

#include <limits>

namespace xrpm {
namespace mono {

void OriginTracker::Record(uintptr_t object, uint64_t frame, const uint64_t* keys, uint32_t depth,
                           SiteTable::NameOf name_of) {
  const uint32_t site = sites_.Intern(keys, depth, name_of);
  if (site == 0) {
    sites_full_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ObjectOrigin o;
  o.frame = frame > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                         : static_cast<uint32_t>(frame);
  o.site = site;
  if (table_.Record(object, o))
    recorded_.fetch_add(1, std::memory_order_relaxed);
  else
    table_full_.fetch_add(1, std::memory_order_relaxed);
}

agent::WalkResult OriginTracker::BeginWalk(agent::HeapInfoCallback& sink, uint64_t frame,
                                           uint32_t sample_bytes) {
  if (walk_open_) table_.ClearMarks();  // the previous walk ended early (an exception)
  walk_open_ = true;
  described_.assign(sites_.count() + size_t{1}, false);
  return sink.AllocationClock(frame, sample_bytes);
}

agent::WalkResult OriginTracker::ReportObject(agent::HeapInfoCallback& sink, uint64_t object) {
  ObjectOrigin o;
  if (!table_.FindAndMark(static_cast<uintptr_t>(object), &o)) return agent::WalkResult::kOk;
  if (o.site >= described_.size()) described_.resize(o.site + size_t{1}, false);
  if (!described_[o.site]) {
    const SiteTable::Site& s = sites_.site(o.site);
    const char* names[agent::kMaxSampleStackDepth];
    size_t lens[agent::kMaxSampleStackDepth];
    for (uint32_t i = 0; i < s.depth; ++i) {
      names[i] = s.names[i]->data();
      lens[i] = s.names[i]->size();
    }
    if (sink.DescribeSite(o.site, names, lens, s.depth) == agent::WalkResult::kAbort)
      return agent::WalkResult::kAbort;
    described_[o.site] = true;
  }
  return sink.ObjectOrigin(object, o.frame, o.site);
}

void OriginTracker::EndWalk(bool saw_every_object) {
  if (saw_every_object)
    pruned_.fetch_add(table_.PruneUnmarked(), std::memory_order_relaxed);
  else
    table_.ClearMarks();
  described_.clear();
  described_.shrink_to_fit();
  walk_open_ = false;
}

OriginTracker::Stats OriginTracker::stats() const {
  Stats s;
  s.recorded = recorded_.load(std::memory_order_relaxed);
  s.table_full = table_full_.load(std::memory_order_relaxed);
  s.sites_full = sites_full_.load(std::memory_order_relaxed);
  s.moved = moved_.load(std::memory_order_relaxed);
  s.lost_on_move = lost_on_move_.load(std::memory_order_relaxed);
  s.pruned = pruned_.load(std::memory_order_relaxed);
  s.tracked = table_.size();
  s.sites = sites_.count();
  s.table_bytes = table_.bytes();
  s.capacity = table_.capacity();
  return s;
}

}  // namespace mono
}  // namespace xrpm
