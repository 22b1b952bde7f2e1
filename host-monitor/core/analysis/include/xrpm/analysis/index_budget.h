// Index budget: which form of the graph index (graph_index.h) an analysis can afford on this
// machine. The forward and the reverse CSR each copy every resolved reference (4 bytes, plus 4
// bytes of offsets per object); a heap whose copies, with the dominator tree's working arrays
// and what else runs beside them, would not fit in the memory available is analysed on the
// lean index instead (the snapshot's own references resolved as they are walked: the
// dominators about twice as slow, referrers found by a scan), rather than failing partway.
//
// The memory available comes from AvailableMemoryBytes (xrpm/model/available_memory.h).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "xrpm/model/available_memory.h"

namespace xrpm::analysis {

// Bytes of one direction's CSR for a snapshot of `objects` objects and `references` references.
constexpr uint64_t CsrBytes(uint64_t objects, uint64_t references) {
  return 4 * references + 4 * objects;
}

// Whether `csrs` CSRs (1: forward, 2: both directions) and `per_object` further bytes per
// object of other work fit in `available` bytes.
constexpr bool CsrsFit(uint64_t objects, uint64_t references, unsigned csrs, uint64_t per_object,
                       uint64_t available) {
  const double needed =
      double(csrs) * double(CsrBytes(objects, references)) + double(per_object) * double(objects);
  return needed <= double(available);
}

}  // namespace xrpm::analysis
