// GenerateDemoHeap: a deterministic, game-shaped heap of any size, for `xrpm-monitor --demo N`
// (try the monitor without a device), GUI tests and the GUI benchmark.
//
// Shape: static "manager" objects (roots) own containers, containers own entities, entities own
// leaves (strings, vertex arrays); 5% of entities also point back at an earlier object (shared
// references and cycles); ~1% of objects are unreachable garbage; a few locals, handles (some
// weak), finalizer and internal roots. `generation` grows a leaking cache (Game.EventHub holding
// Game.ParticleEffect instances) by 10% of the heap per generation, so two generations compare
// like a leak. Object ids are fake device addresses.
//
// Algorithm: breadth-first layout in one pass, O(objects + refs) time, 1 byte per object of
// scratch memory beyond the Snapshot itself.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>

#include "xrpm/model/snapshot.h"

namespace xrpm::app {

struct DemoHeapOptions {
  uint64_t objects = 100'000;
  uint32_t seed = 1;
  uint32_t generation = 0;  // each generation adds leaked objects (10% of `objects`)
  // Extra references per object to earlier objects (shared references, cycles), on top of the
  // tree's ~1 per object: 2.0 gives the ~3 references per object of real game heaps.
  double extra_refs_per_object = 0;
};

Snapshot GenerateDemoHeap(const DemoHeapOptions& opts);

// About the least memory in which the monitor generates and analyses such a heap: the peak on the
// lean index (the snapshot's ~24 bytes per object and 8 per reference, the analysis' ~40 per
// object), measured 71.9 bytes per object at 250 M objects with no extra references, 87.9 with
// 2. Where more is available the monitor takes the full index and uses more (index_budget.h).
uint64_t DemoHeapPeakBytes(const DemoHeapOptions& opts);

}  // namespace xrpm::app
