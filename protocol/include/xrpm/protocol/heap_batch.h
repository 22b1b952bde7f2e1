// Heap batches: the columnar encoding of a heap walk (wire.proto HeapBatch).
//
// RawBatch is the decoded content of one batch, in walk order; it is what both ends agree on.
// BatchEncoder (device side) accumulates walk callbacks into a RawBatch under a size budget and
// seals it into a HeapBatch message; DecodeHeapBatch (host side) turns a received HeapBatch
// back into the identical RawBatch, validating every count against the limits in
// constants.h before it allocates. ChecksumBatch chains XXH3-64 over the RawBatch in a fixed
// little-endian layout, so a CaptureEnd checksum proves the host decoded exactly what the agent
// walked, in the same order.
//
// Encoding per batch (O(values), two passes over data that is already in cache):
//   shift   = trailing zero bits common to every address, size and reference (object
//             alignment), so deltas are in units of 2^shift bytes;
//   ids     = ZigZag(id - end of the previous object): 0 for a compacted heap walked in order;
//   refs    = ZigZag(ref - id of the referencing object);
//   roots   = ZigZag deltas of root objects and of container indices;
//   origins = (optional) site id per object, and for objects with a known site the ZigZag
//             delta of the allocation frame against the previous such object's (the first
//             against frame_base): a compacted heap is walked in allocation order, so ~0;
//   slots   = (optional, fields captures) per root and per reference, 0 unknown, else 1 +
//             ZigZag(slot - expected) with expected = the object's previous known slot + 1:
//             fields reported in layout order cost 1 bit each once bit-packed;
//   values  = (optional, values captures) per object its word count, and the words (fields.h);
//   each column then goes through the column codec (varint or bit-packed, whichever is smaller).
//
// Thread-safety: BatchEncoder is single-threaded (the walk thread). The free functions are
// reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/fields.h"
#include "xrpm/protocol/pod_column.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace protocol {

struct RawType {
  uint32_t id = 0;
  std::string name;
  uint32_t domain = 0;         // 0: the capture's section; k: the k-th domain name of the capture
  bool has_finalizer = false;  // the type overrides Finalize (TypeEntry.has_finalizer)
  // Traits (TypeEntry.kind ...): kUnknown when the runtime does not say.
  TypeKind kind = TypeKind::kUnknown;
  FieldKind enum_underlying = FieldKind::kUnknown;  // kEnum
  uint32_t array_rank = 0;                          // kArray: 1..kMaxArrayRank
  std::string element_type;                         // kArray
};

struct RawContainer {
  uint32_t kind = 0;  // agent::ContainerType value
  uint64_t id1 = 0;
  uint64_t id2 = 0;
  uint32_t descriptor = 0;  // NETCF root descriptor 0..5
  bool has_thread = false;
  uint64_t thread_id = 0;
  std::string label;  // fields captures: a frame's method ("Bubbles.Game1.Update"), or empty
};

struct RawBatch {
  std::vector<RawType> types;
  std::vector<RawContainer> containers;
  PodColumn<uint64_t> root_object;
  PodColumn<uint32_t> root_flags;
  PodColumn<uint32_t> root_container;  // capture-wide container index
  uint64_t cont_object = 0;            // owner of refs[0..cont_refs)
  uint32_t cont_refs = 0;
  PodColumn<uint64_t> object_id;
  PodColumn<uint32_t> object_type;
  PodColumn<uint32_t> object_size;
  PodColumn<uint32_t> object_ref_count;  // total refs of each object (the last may continue)
  PodColumn<uint64_t> refs;              // cont_refs continued refs, then each object's refs

  // ---- allocation origins (optional; all empty / false in batches without them) ----
  bool has_clock = false;  // this batch announces the capture's clock
  uint64_t capture_frame = 0;
  uint32_t sample_bytes = 0;
  std::vector<std::string> origin_methods;  // new methods (capture-wide ids continue: 1, 2, ...)
  PodColumn<uint32_t> site_depth;           // new sites (capture-wide ids continue: 1, 2, ...)
  PodColumn<uint32_t> site_method;          // their method ids, concatenated, innermost first
  // Either empty (no origin columns) or one entry per object: site id (0 unknown) and the
  // allocation frame (0 where the site is unknown).
  PodColumn<uint32_t> object_site;
  PodColumn<uint64_t> object_frame;

  // ---- fields and values (optional; fields.h; all empty in batches without them) ----
  std::vector<RawLayout> layouts;
  std::vector<RawEnum> enums;
  // Either empty (no slot column) or one per root / per entry of `refs`: the static field
  // index (roots of a kClass container) or field / element index (refs); kNoSlot unknown.
  PodColumn<uint32_t> root_slot;
  PodColumn<uint32_t> ref_slot;
  // With ref_slot: cont_object's last known slot in the earlier batches (kNoSlot: none), what
  // its continued slots are coded against.
  uint32_t cont_prev_slot = kNoSlot;
  // Either empty (no values) or one per object: how many of `values` are its words (0 none).
  PodColumn<uint32_t> object_value_count;
  PodColumn<uint64_t> values;  // wire words (fields.h WordToValue), objects in order
  // ---- AppDomains (optional; empty in batches of runtimes that do not name them) ----
  std::vector<std::string> domain_names;  // new domains (capture-wide ids continue: 1, 2, ...)

  void Clear();
  // Clear(), and the columns this batch left empty give their buffers back (the encoder's
  // columns grow to a batch's size while they are used, and only then).
  void ClearReleasingUnused();
  bool Empty() const;
  bool HasOriginColumns() const { return !object_site.empty(); }
  bool HasValueColumns() const { return !object_value_count.empty(); }
  uint64_t HeapBytes() const;    // sum of object sizes
  size_t CapacityBytes() const;  // memory the columns and type names hold (capacity, not size)
};

// Reusable buffer of EncodeRawBatch (the root columns).
struct EncodeScratch {
  std::vector<uint64_t> roots;
  std::vector<uint64_t> frames;  // the origin frame deltas
  std::vector<uint64_t> slots;   // the slot words
};

// Per-object extras of a fields / values capture (BatchEncoder::AddObject).
struct ObjectDetail {
  const uint32_t* slots = nullptr;   // one per reference (kNoSlot unknown), or null: all unknown
  const uint64_t* values = nullptr;  // value words (fields.h), or null
  uint32_t value_count = 0;          // <= kMaxObjectValues
  // A string's words without widening them first: with `units` set (and `values` null) the
  // words are string_length, then value_count - 1 code units, each a word of its own.
  const uint16_t* units = nullptr;
  uint32_t string_length = 0;
};

// Encodes one batch (the per-batch shift, deltas, columns) into *out. O(values). The object and
// reference columns of `b` are transformed in place to save a copy: take the checksum first;
// afterwards `b` is only good for Clear().
void EncodeRawBatch(RawBatch& b, uint32_t capture_id, uint32_t seq, wire::HeapBatch* out,
                    EncodeScratch* scratch);

// Accumulates one batch of walk output. Add* return false (and add nothing) when the item does
// not fit in the current batch; the caller then seals it and retries on the empty batch, where
// every single item fits. AddRefs may take only part of a long list.
class BatchEncoder {
 public:
  // Seals batches at about `batch_bytes` encoded (an upper bound, 4 KiB at least).
  explicit BatchEncoder(size_t batch_bytes = kTargetBatchBytes);
  // From now on (this batch included) seals at about `batch_bytes` instead.
  void SetBatchBytes(size_t batch_bytes) { budget_ = Budget(batch_bytes); }

  // `domain`: 0, or a domain id given by an earlier AddDomain (the caller checks).
  bool AddType(uint32_t id, const char* name, size_t len, uint32_t domain = 0,
               bool has_finalizer = false);
  // With traits (t.kind ...); the caller checks the limits (name, element_type, rank).
  bool AddType(RawType t);
  // An AppDomain's name; it gets the next capture-wide domain id (1, 2, ...).
  bool AddDomain(const std::string& name);
  bool AddContainer(const RawContainer& c);
  // `slot`: a static root's static field index (fields captures), kNoSlot unknown.
  bool AddRoot(uint64_t object, uint32_t flags, uint32_t container_index, uint32_t slot = kNoSlot);
  // Allocation origins. AddClock once per capture: from then on every object carries a site
  // (0 unknown) and a frame, and this batch and every later one with objects has the origin
  // columns. Methods and sites get the next capture-wide id (1, 2, ...) in the order added;
  // the caller defines them before use and keeps to the capture limits (constants.h).
  bool AddClock(uint64_t capture_frame, uint32_t sample_bytes);
  bool AddOriginMethod(const std::string& name);
  bool AddSite(const uint32_t* method_ids, uint32_t depth);
  // Fields and values: EnableFields once, before anything is added, makes every batch carry the
  // slot columns (and, with values, the value columns). Layouts and enums are capture-wide
  // definitions: the caller keeps to the limits (constants.h; at most kMaxLayoutBytes of names).
  void EnableFields(bool values);
  bool fields_enabled() const { return fields_on_; }
  bool values_enabled() const { return values_on_; }
  bool AddLayout(const RawLayout& layout);
  bool AddEnum(const RawEnum& e);
  // Begins an object that owns `ref_count` references, to be given with AddRefs; site and
  // frame are its origin (ignored before AddClock; site 0 = unknown). `values` is ignored
  // unless values are enabled.
  bool AddObject(uint64_t id, uint32_t type, uint32_t size, uint32_t ref_count, uint32_t site = 0,
                 uint64_t frame = 0, const uint64_t* values = nullptr, uint32_t value_count = 0);
  // The same with the value words in `detail` (its slots are AddRefs'); a string's code units
  // go straight into the value column.
  bool AddObject(uint64_t id, uint32_t type, uint32_t size, uint32_t ref_count, uint32_t site,
                 uint64_t frame, const ObjectDetail& detail);
  // Adds up to n references of the current object; returns how many were taken (0 means seal
  // and call again: the next batch continues the object). `slots` (fields captures; null: all
  // unknown) goes with `refs`.
  size_t AddRefs(const uint64_t* refs, size_t n, const uint32_t* slots = nullptr);

  bool empty() const { return raw_.Empty() && pending_refs_ == 0; }
  uint64_t pending_refs() const { return pending_refs_; }  // the current object's, still to add
  size_t estimated_bytes() const { return estimate_; }
  const RawBatch& raw() const { return raw_; }
  // Heap memory the encoder holds (column and scratch capacities).
  size_t FootprintBytes() const;

  // Encodes the current batch into *out, updates the running checksum and starts a new batch.
  void Seal(uint32_t capture_id, uint32_t seq, wire::HeapBatch* out, uint64_t* checksum);
  // Moves the current batch into *out (its old contents are cleared and its buffers reused
  // here) and starts a new batch; the caller encodes it (EncodeRawBatch, ChecksumBatch).
  void TakeBatch(RawBatch* out);

 private:
  bool Fits(size_t more_bytes) const { return estimate_ + more_bytes <= budget_; }
  // An item larger than a small batch (a layout, an object with many values: at most ~40 KiB,
  // far below kMaxAgentMessageBytes) still goes alone into an empty one.
  bool FitsOrFirst(size_t more_bytes) const { return estimate_ == 0 || Fits(more_bytes); }

  static size_t Budget(size_t batch_bytes) { return batch_bytes > 4096 ? batch_bytes - 512 : 3584; }

  size_t budget_;  // batch_bytes minus the message's framing
  RawBatch raw_;
  size_t estimate_ = 0;    // upper bound of the encoded size (varints at shift 0)
  uint64_t prev_end_ = 0;  // end of the previous object in this batch
  uint64_t prev_root_ = 0;
  uint32_t prev_container_ = 0;
  bool origins_on_ = false;     // AddClock was called (capture-wide)
  bool frame_started_ = false;  // a known-site object is in this batch (frame_base set)
  uint64_t prev_frame_ = 0;
  uint64_t owner_ = 0;         // the object whose refs AddRefs appends
  uint64_t pending_refs_ = 0;  // refs the current object still expects
  bool fields_on_ = false;     // EnableFields (capture-wide)
  bool values_on_ = false;
  uint32_t prev_slot_ = kNoSlot;  // the current object's last known slot in this batch
  EncodeScratch scratch_;

  void Reset();
};

// Decodes and validates one HeapBatch. On failure returns false and sets *error to what was
// wrong ("objects column: expected 812 values ..."); *out is then unspecified.
bool DecodeHeapBatch(const wire::HeapBatch& in, RawBatch* out, std::string* error);

// Chained checksum: returns XXH3-64 of the batch's canonical bytes, seeded with `seed` (the
// previous batch's result, 0 for the first batch).
uint64_t ChecksumBatch(const RawBatch& b, uint64_t seed);

}  // namespace protocol
}  // namespace xrpm
