#include "origin_tracker.h"

#include <limits>

namespace xrpm {
namespace mono {

void OriginTracker::Record(uintptr_t object, uint64_t frame, const uint64_t* keys, uint32_t depth,
                           agent::SiteTable::NameOf name_of) {
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
  if (reporter_.open()) table_.ClearMarks();  // the previous walk ended early (an exception)
  return reporter_.Begin(sink, sites_, frame, sample_bytes);
}

agent::WalkResult OriginTracker::ReportObject(agent::HeapInfoCallback& sink, uint64_t object) {
  ObjectOrigin o;
  if (!table_.FindAndMark(static_cast<uintptr_t>(object), &o)) return agent::WalkResult::kOk;
  return reporter_.Report(sink, sites_, object, o.frame, o.site);
}

void OriginTracker::EndWalk(bool saw_every_object) {
  if (saw_every_object)
    pruned_.fetch_add(table_.PruneUnmarked(), std::memory_order_relaxed);
  else
    table_.ClearMarks();
  reporter_.End();
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
