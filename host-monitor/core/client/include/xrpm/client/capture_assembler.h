// CaptureAssembler: turns one capture's messages (CaptureBegin, HeapBatch..., CaptureEnd) into
// an xrpm::Snapshot and proves it complete: batches arrive in sequence, every count matches the
// CaptureEnd totals and the chained checksum of the decoded batches matches the agent's.
//
// Roots get their origin ("thread 3 / JIT frame (stack 0x2, method 0x6001)", "statics of
// Game1") in Snapshot::root_origins, one string per distinct container.
//
// Allocation origins (optional batch fields, docs/PROTOCOL.md): when the capture announces the
// runtime's clock, Snapshot::origins gets the capture frame, sample_bytes, the methods and the
// sites in the order the wire defines them (site index = wire site id - 1, method index = wire
// method id - 1), and every object a frame and site (kUnknownSite where unknown, also for
// objects before the clock). Without a clock origins stays absent, as from an old agent.
// Ids are checked against what was defined before use; counts against the capture limits.
//
// Object contents (optional batch fields): every batch first passes the capture-wide
// field checks (protocol::FieldChecker, via CaptureFields), then its layouts, reference slots,
// root labels and values go into Snapshot::fields (client/capture_fields.h).
//
// AppDomains (optional batch fields): when the runtime names its domains, End splits the
// snapshot into one section per domain (domain_sections.h); a type naming a domain not yet
// defined fails the capture.
//
// Prepare (optional, as the request leaves) reserves the snapshot's main columns at the sizes
// the caller expects (the previous capture's, or the agent's hint; never more than half the
// memory available) and has their pages faulted in on a background
// thread while the game is stopped (xrpm/model/page_warmer.h), so that decoding
// after the pause writes to memory that is already there.
//
// Cost: O(objects + refs) time; memory is the Snapshot itself (24 B/object + 8 B/ref) plus one
// decoded batch. Incoming counts are checked against the batch limits before decoding and
// against max_objects before the snapshot grows.
//
// Thread-safety: none; the host client's network thread owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/model/snapshot.h"
#include "xrpm/protocol/dense_type_ids.h"
#include "xrpm/protocol/heap_batch.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
class PageWarmer;
}

namespace xrpm::client {

class CaptureFields;

// How much a capture's snapshot held, in the units its columns grow by: what Prepare reserves.
struct CaptureSizes {
  uint64_t objects = 0, refs = 0;
  bool slots = false;        // a reference slot per reference (fields)
  uint64_t value_bytes = 0;  // object contents (values)
};
CaptureSizes SizesOf(const Snapshot& s);
// What to prepare the next capture for: the host's own last capture on this connection, else
// the agent's last one under any host (Welcome.last_capture_*: a one-shot `xrpm capture` has
// no capture of its own) or, before any, its runtime's forecast (Welcome.forecast_*), its
// references bounded at kMaxHintRefsPerObject per object (the
// agent's figures are a hint; Prepare bounds the objects at the host's capture limit). Values
// are reserved only from the host's own capture: the agent does not count their bytes.
inline constexpr uint64_t kMaxHintRefsPerObject = 64;
CaptureSizes ExpectedSizes(const CaptureSizes& own_last, uint64_t agent_objects,
                           uint64_t agent_refs, bool agent_fields);
// The same from the agent's Welcome: its last capture, else its runtime's forecast (with a
// slot per reference when the agent reports fields).
CaptureSizes ExpectedSizes(const CaptureSizes& own_last, const wire::Welcome& agent);

struct CaptureTotalsSeen {
  uint32_t batches = 0;
  uint64_t objects = 0, refs = 0, roots = 0, types = 0, containers = 0, heap_bytes = 0;
  uint64_t wire_bytes = 0;  // serialized bytes of CaptureBegin and the batches
};

class CaptureAssembler {
 public:
  // pointer_bytes: the device's (RuntimeInfo), for IntPtr values.
  explicit CaptureAssembler(uint64_t max_objects = 1'000'000'000, uint32_t pointer_bytes = 4);
  ~CaptureAssembler();

  // Before the first batch: reserves the columns for `expected` (objects capped at max_objects,
  // all of it at half of `memory_available`, AvailableMemoryBytes()) and starts faulting their
  // pages in. prepared(): it did (the forecast had objects). May be called again before the
  // first batch with better figures: the columns grow to them (never shrink), and the warming
  // starts over.
  void Prepare(const CaptureSizes& expected, uint64_t memory_available);
  bool prepared() const { return warmer_ != nullptr; }
  // Each returns false with *error ("batch 12: ...") when the capture cannot be completed.
  bool Begin(const wire::CaptureBegin& m, size_t wire_bytes, std::string* error);
  bool Batch(const wire::HeapBatch& m, size_t wire_bytes, std::string* error);
  bool End(const wire::CaptureEnd& m, std::string* error);

  uint32_t capture_id() const { return capture_id_; }
  uint64_t expected_heap_bytes() const { return expected_heap_bytes_; }
  // CaptureBegin.last_marker: its text ("" and age -1 when none) and its age when the world
  // stopped.
  const std::string& last_marker() const { return last_marker_; }
  int64_t marker_age_us() const { return marker_age_us_; }
  const CaptureTotalsSeen& seen() const { return seen_; }
  // The verified snapshot (after End returned true), its columns' growth room given back.
  Snapshot Take();

 private:
  bool AppendBatch(const protocol::RawBatch& b, std::string* error);
  uint32_t TypeIndex(uint32_t type_id);
  uint32_t OriginOf(const protocol::RawContainer& c);
  bool AppendOrigins(const protocol::RawBatch& b, size_t first_object, const std::string& where,
                     std::string* error);

  uint64_t max_objects_;
  uint32_t pointer_bytes_;
  std::unique_ptr<CaptureFields> fields_;  // from Begin
  uint32_t capture_id_ = 0;
  uint64_t expected_heap_bytes_ = 0;
  std::string last_marker_;
  int64_t marker_age_us_ = -1;
  bool begun_ = false;
  Snapshot snap_;
  protocol::RawBatch raw_;
  uint64_t checksum_ = 0;
  uint64_t pending_refs_ = 0;  // references the last object still owes
  CaptureTotalsSeen seen_;
  std::unordered_map<uint32_t, uint32_t> type_index_;
  // type id -> type index (kNoIndex: unknown), type_index_ behind it.
  protocol::DenseTypeIds<uint32_t> dense_type_{kNoIndex};
  std::vector<protocol::RawContainer> containers_;
  std::vector<uint32_t> container_origin_;
  std::unordered_map<std::string, uint32_t> origin_index_;
  // Allocation origins as defined so far; moved into the snapshot at End when clock_seen_.
  AllocationOrigins alloc_;
  bool clock_seen_ = false;
  // AppDomains as defined so far, and each type's domain (by type index; 0 = the capture's).
  std::vector<std::string> domain_names_;
  std::vector<uint32_t> type_domain_;
  // Declared last, so destroyed (and its thread joined) before the columns it warms.
  std::unique_ptr<PageWarmer> warmer_;
};

// "JIT frame", "statics", ... for a heap_walker.h ContainerType value.
const char* ContainerKindName(uint32_t kind);

}  // namespace xrpm::client
