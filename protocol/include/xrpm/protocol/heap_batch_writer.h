// HeapBatchWriter: the sealing policy around BatchEncoder. Feed it the walk in order (types,
// containers and roots, objects with their references); it hands each sealed HeapBatch to a
// sink and keeps the capture totals and the chained checksum that CaptureEnd reports.
//
// Memory: the column buffers of one batch (a few hundred KiB for a ~64 KiB batch, reused), see
// FootprintBytes(); the sink decides what happens to sealed batches.
//
// Thread-safety: single-threaded (the walk thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {

struct CaptureTotals {
  uint32_t batches = 0;
  uint64_t types = 0;
  uint64_t containers = 0;
  uint64_t objects = 0;
  uint64_t refs = 0;
  uint64_t roots = 0;
  uint64_t heap_bytes = 0;
  uint64_t checksum = 0;
};

class HeapBatchWriter {
 public:
  // Receives each sealed batch (the envelope may be consumed). Returning false stops the
  // writer: every later call returns false.
  using Sink = std::function<bool(wire::Envelope* batch)>;

  HeapBatchWriter(uint32_t capture_id, Sink sink);

  bool Type(uint32_t id, const char* name, size_t len);
  bool Container(const RawContainer& c);  // gets the next container index
  bool Root(uint64_t object, uint32_t flags, uint32_t container_index);
  bool Object(uint64_t id, uint32_t type, uint32_t size, const uint64_t* refs, size_t n);
  // Seals the last, partial batch. Call once at the end of the walk.
  bool Flush();

  const CaptureTotals& totals() const { return totals_; }
  uint32_t next_container_index() const { return static_cast<uint32_t>(totals_.containers); }
  // Heap memory held by the encoder and the sealed-batch message (capacities).
  size_t FootprintBytes() const;

 private:
  bool Seal();

  uint32_t capture_id_;
  Sink sink_;
  BatchEncoder enc_;
  wire::Envelope env_;
  CaptureTotals totals_;
  bool stopped_ = false;
};

}  // namespace protocol
}  // namespace xrpm
