#include "xrpm/app/heap_overview.h"

#include <algorithm>

namespace xrpm::app {

HeapOverview OverviewOf(const Snapshot& snap) {
  HeapOverview h;
  for (const auto& s : snap.sections) {
    SectionOverview ss;
    ss.name = s.name;
    ss.version = s.version;
    ss.start_ms = s.start_ms;
    ss.end_ms = s.end_ms;
    ss.closed = s.closed;
    const uint64_t ob = std::min<uint64_t>(s.objects_begin, snap.object_count());
    const uint64_t oe = std::min<uint64_t>(s.objects_end, snap.object_count());
    for (uint64_t i = ob; i < oe; ++i) {
      ss.bytes += snap.object_size[i];
      h.largest_object = std::max<uint64_t>(h.largest_object, snap.object_size[i]);
    }
    ss.objects = oe > ob ? oe - ob : 0;
    ss.refs = oe > ob ? snap.ref_end[oe - 1] - snap.ref_begin(ob) : 0;
    ss.roots = s.roots_end > s.roots_begin ? s.roots_end - s.roots_begin : 0;
    ss.types = s.types_end > s.types_begin ? s.types_end - s.types_begin : 0;
    h.sections.push_back(std::move(ss));
  }
  h.objects = snap.object_count();
  h.refs = snap.ref_count();
  h.roots = snap.root_count();
  for (const auto& s : h.sections) h.bytes += s.bytes;
  h.sampled = snap.sampled();
  h.scaled_objects = snap.scaled_object_count();
  h.scaled_bytes = snap.scaled_total_bytes();
  for (size_t r = 0; r < snap.root_count(); ++r) {
    const uint8_t k = snap.root_kind[r];
    if (k < kRootKindCount) ++h.roots_by_kind[k];
    const uint8_t f = snap.root_flags[r];
    h.weak_roots += (f & kRootWeak) != 0;
    h.pinned_roots += (f & kRootPinned) != 0;
    h.interior_roots += (f & kRootInterior) != 0;
  }
  return h;
}

}  // namespace xrpm::app
