// Test helper for the host's capture assembly: a walk written through HeapBatchWriter (its batches
// and totals), its CaptureEnd, and the snapshot CaptureAssembler makes of it, as a capture from an
// agent would arrive (capture 1, section "Game.exe").
//
// Thread-safety: plain values and functions.
#pragma once

#include <string>
#include <vector>

#include "xrpm/client/capture_assembler.h"
#include "xrpm/model/available_memory.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::testing {

struct Walk {
  std::vector<wire::HeapBatch> batches;
  protocol::CaptureTotals totals;
};

inline wire::CaptureEnd EndOf(const Walk& w) {
  wire::CaptureEnd e;
  e.set_capture_id(1);
  e.set_batch_count(w.totals.batches);
  e.set_type_count(w.totals.types);
  e.set_container_count(w.totals.containers);
  e.set_object_count(w.totals.objects);
  e.set_ref_count(w.totals.refs);
  e.set_root_count(w.totals.roots);
  e.set_heap_bytes(w.totals.heap_bytes);
  e.set_checksum(w.totals.checksum);
  e.set_end_ms(20);
  return e;
}

// The walk through an assembler the caller made (and prepared, or not).
inline bool AssembleWith(client::CaptureAssembler& a, const Walk& w, Snapshot* out,
                         std::string* error) {
  wire::CaptureBegin b;
  b.set_capture_id(1);
  b.set_section_version(2);
  b.set_section_name("Game.exe");
  b.set_start_ms(10);
  if (!a.Begin(b, 10, error)) return false;
  for (const auto& m : w.batches)
    if (!a.Batch(m, 10, error)) return false;
  if (!a.End(EndOf(w), error)) return false;
  *out = a.Take();
  return true;
}

// prepare: the sizes to reserve the columns at first (CaptureAssembler::Prepare, with
// `memory_available`), or none.
inline bool Assemble(const Walk& w, Snapshot* out, std::string* error,
                     const client::CaptureSizes* prepare = nullptr,
                     uint64_t memory_available = AvailableMemoryBytes()) {
  client::CaptureAssembler a;
  if (prepare) a.Prepare(*prepare, memory_available);
  return AssembleWith(a, w, out, error);
}

}  // namespace xrpm::testing
