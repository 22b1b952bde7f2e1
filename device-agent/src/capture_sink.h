// CaptureSink: the HeapInfoCallback the agent walks the heap into. It maps the walk onto the
// wire: types once, a container entry (descriptor, ids, owning thread) for each container that
// reports roots, roots, and objects as a flat list (it always answers kPostponeReferences, so
// the runtime reports every live object exactly once, in heap order, which is what makes the
// id-gap encoding nearly free). Sealed batches go to the job's queue. Below a memory limit of
// 8 MiB (streaming) they are small and encoded inline. Otherwise a walk in the stopped world has
// them encoded on a second thread (HeapBatchWriter background mode), so the game's pause holds
// only the walk and the appending; a walk of a small heap (or one of unknown size) after the
// game resumed (a snapshot walk) encodes them inline, one batch's buffers instead of three,
// until the capture is large (kFullBatchesAfterObjects: then the batches grow and the sealer
// thread starts); a heap known to be large (its resumed bound not lowered, below) gets the
// sealer thread from the start.
//
// Allocation origins (optional): AllocationClock, DescribeSite and ObjectOrigin become the
// batches' origin fields (wire.proto HeapBatch 20-27) through an OriginInterner (bounded,
// charged to the job's memory). What the runtime gets wrong costs the origin, never the
// capture: an invalid or undefined site, an origin before the clock, or an ObjectOrigin not
// followed by the ObjectReferences of the same object leaves that object's origin unknown and
// counts it in origins_dropped() (CaptureEnd.origins_dropped).
//
// Fields and values (optional): with job.detail.fields the sink asks the runtime for them
// (Detail()) and turns layouts, enums, labels, slots and values into the batches' field columns
// through a FieldMapper (bounded, charged to the job's memory); what the runtime gets wrong
// costs that detail, never the capture (fields_dropped(), CaptureEnd.fields_dropped).
//
// AppDomains (optional): DescribeDomain names go out as the batches' domain_names, each type
// with its domain (wire.proto TypeEntry.domain); domains must be numbered 1, 2, 3, ... and
// described before their types, at most kMaxCaptureDomains of them.
//
// Any cancel makes the next callback return kAbort; so does a runtime that breaks the walker
// contract (roots outside a root container, an oversized type name, a domain out of order or
// not yet described), recorded in error().
//
// Thread-safety: the callbacks come from the walk thread; sealed batches are encoded and queued
// on the walk thread (inline) or on the writer's sealer thread (HeapBatchWriter background
// mode), which is what Emit and BufferBytes run on.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "capture_job.h"
#include "field_mapper.h"
#include "origin_interner.h"
#include "xrpm/agent/heap_walker.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm {
namespace agent {

class CaptureSink : public HeapInfoCallback {
 public:
  // Below this memory limit the agent streams: batches are smaller and sealed on the walk
  // thread, so the encoder's buffers (~2 batches' worth, vs ~6 with a sealer thread) leave most
  // of the bound to batches in flight.
  static constexpr size_t kStreamingBelowLimit = size_t{8} << 20;
  static constexpr size_t kStreamingBatchBytes = 16 * 1024;
  // Otherwise batches start at kSmallBatchBytes and grow to kTargetBatchBytes once the
  // capture has kFullBatchesAfterObjects objects (a walk after the game resumed also starts
  // the sealer thread then). The encoder's buffers scale with the batch (raw columns hold ~5x
  // the wire bytes of small objects or roots, three batches of them with a sealer thread): on
  // the csharp shell's heap (66 k objects, 18 k classes) 1.9-2.7 MiB for 64 KiB batches with
  // the sealer, 0.85-1.3 MiB for 16 KiB ones, 0.3-0.6 MiB for 16 KiB ones sealed inline with
  // each phase's columns given back, about half that for 8 KiB ones (the idle shell's agent
  // peak 16-19 -> 11-15 B/object, docs/PERFORMANCE.md; the small batches' extra messages cost
  // no measurable time). Past 128 k objects the large batches' buffers cost <= ~21 B/object,
  // less as the heap grows, and save a large heap's per-batch work (each batch is one more
  // hand-off to the sealer thread and message).
  static constexpr size_t kSmallBatchBytes = 8 * 1024;
  static constexpr uint64_t kFullBatchesAfterObjects = uint64_t{1} << 17;
  // Once the game runs again, the messages held are bounded by the job's resumed limit, or by
  // a 1/kResumedLimitHeapShare of the live heap (the runtime's Managed Bytes In Use After GC
  // counter, when it has one) if that is lower, but not below kMinResumedLimit: on the csharp
  // shell's heap of 66 k objects and 18 k classes (Mono counts 8.2-9.0 MB in use), 256-280 KiB
  // instead of 4 MiB.
  static constexpr uint64_t kResumedLimitHeapShare = 32;
  static constexpr size_t kMinResumedLimit = size_t{256} << 10;
  static bool Streaming(const CaptureJob& job) { return job.queue.limit() < kStreamingBelowLimit; }

  CaptureSink(RuntimePort& runtime, CaptureJob& job);
  ~CaptureSink() override;  // gives its buffers' share of the job's memory account back

  WalkResult BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) override;
  WalkResult DescribeType(uint32_t type_id, const char* name, size_t name_len) override;
  WalkResult RootReferences(const RootRef* roots, size_t count) override;
  WalkResult ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                              const uint64_t* refs, size_t ref_count) override;
  WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override;
  WalkResult DescribeSite(uint32_t site_id, const char* const* method_names,
                          const size_t* name_lens, uint32_t depth) override;
  WalkResult ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) override;
  WalkDetail Detail() const override { return job_.detail; }
  WalkResult DescribeEnum(uint32_t enum_id, const char* name, size_t name_len, FieldKind underlying,
                          const EnumMemberInfo* members, size_t count) override;
  WalkResult DescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) override;
  WalkResult ContainerLabel(const char* label, size_t len) override;
  WalkResult ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                       const uint64_t* refs, const uint32_t* slots,
                                       size_t ref_count) override;
  bool TakesReferenceParts() const override { return true; }
  WalkResult ObjectReferencesPart(uint64_t object, uint32_t type_id, uint32_t size, size_t total,
                                  const uint64_t* refs, const uint32_t* slots, size_t n) override;
  WalkResult ObjectValues(uint64_t object, const uint64_t* bits, size_t count) override;
  WalkResult StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                         size_t count) override;
  WalkResult DescribeDomain(uint32_t domain, const char* name, size_t name_len) override;
  WalkResult DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                  size_t name_len) override;
  WalkResult DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                    size_t name_len, const TypeTraits& traits) override;
  // A snapshot walk: the game runs again (the job's pause ends, its sends are no longer held
  // and the job's queue bounds the messages held by its resumed limit).
  void WorldResumed() override;
  bool Cancelled() const override { return job_.cancelled(); }
  void WalkFailed(const char* reason, size_t len) override;

  bool ended() const { return ended_; }  // kEnd seen and the last batch flushed
  const std::string& error() const { return error_; }
  bool aborted_by_cancel() const { return aborted_by_cancel_; }
  const protocol::CaptureTotals& totals() const { return writer_.totals(); }
  uint64_t start_ms() const { return start_ms_; }
  uint64_t end_ms() const { return end_ms_; }
  uint64_t wire_bytes() const { return wire_bytes_.load(); }
  uint64_t stalled_us() const { return stalled_us_.load(); }
  uint64_t origins_dropped() const { return origins_dropped_; }
  uint64_t fields_dropped() const { return fields_.dropped(); }

 private:
  WalkResult DoBeginContainer(ContainerType type, uint64_t id1, uint64_t id2);
  WalkResult DoDescribeType(uint32_t type_id, const char* name, size_t name_len,
                            uint32_t domain = 0, const TypeTraits& traits = {});
  WalkResult DoDescribeDomain(uint32_t domain, const char* name, size_t name_len);
  WalkResult DoRootReferences(const RootRef* roots, size_t count);
  WalkResult DoObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                const uint64_t* refs, const uint32_t* slots, size_t ref_count);
  WalkResult DoDescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                            FieldKind underlying, const EnumMemberInfo* members, size_t count);
  WalkResult DoDescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout);
  WalkResult DoContainerLabel(const char* label, size_t len);
  bool Emit(const wire::Envelope& env);
  size_t BufferBytes() const;  // the encoder's buffers now (the queue charges their growth)
  // Inline: it runs for every callback. False also when an object in parts was broken off.
  bool EnsureBegun() { return (begun_ && parts_left_ == 0) || Begin(); }
  bool Begin();  // CaptureBegin, once
  WalkResult DoObjectReferencesPart(uint64_t object, uint32_t type_id, uint32_t size, size_t total,
                                    const uint64_t* refs, const uint32_t* slots, size_t n);
  // After an object's last reference: large heaps get full batches and the sealer thread.
  WalkResult ObjectDone();
  // The start of an object, whole or in parts: its origin, detail and header.
  bool StartObject(uint64_t object, uint32_t type_id, uint32_t size, const uint32_t* slots,
                   size_t n, size_t total, const uint32_t** mapped_slots);
  WalkResult DoAllocationClock(uint64_t frame, uint32_t sample_bytes);
  WalkResult DoDescribeSite(uint32_t site_id, const char* const* method_names,
                            const size_t* name_lens, uint32_t depth);
  WalkResult Fail(const std::string& why);
  WalkResult Stopped();

  RuntimePort& runtime_;
  CaptureJob& job_;
  protocol::HeapBatchWriter writer_;
  bool begun_ = false;
  bool full_batches_;  // the writer seals at its final batch size
  bool ended_ = false;
  bool aborted_by_cancel_ = false;
  std::string error_;
  uint64_t start_ms_ = 0, end_ms_ = 0;
  // Written by Emit, which runs on the writer's sealer thread.
  std::atomic<uint64_t> wire_bytes_{0};
  std::atomic<uint64_t> stalled_us_{0};
  std::atomic<bool> emit_failed_{false};  // a batch over the message limit (cannot happen)
  // The current container; its entry is sent with its first root.
  protocol::RawContainer container_;
  int descriptor_ = -1;
  bool container_sent_ = false;
  uint32_t container_index_ = 0;
  bool have_thread_ = false;
  uint64_t thread_id_ = 0;
  // Frame (stack id) -> its thread, from the frame's first container: a frame container may be
  // reported again later, after other threads' containers. One entry per frame with roots.
  std::unordered_map<uint64_t, uint64_t> frame_thread_;
  // ---- allocation origins (walk thread) ----
  OriginInterner origins_;
  std::atomic<size_t> origin_bytes_{0};  // origins_.FootprintBytes(), read by BufferBytes
  bool clock_seen_ = false;
  // An object in parts (ObjectReferencesPart): which, and how many references it still owes.
  uint64_t parts_object_ = 0;
  uint32_t parts_type_ = 0, parts_size_ = 0;
  size_t parts_total_ = 0, parts_left_ = 0;
  bool origin_pending_ = false;  // an ObjectOrigin waits for its ObjectReferences
  uint64_t pending_object_ = 0, pending_frame_ = 0;
  uint32_t pending_site_ = 0;  // wire id
  uint64_t origins_dropped_ = 0;
  std::vector<std::string> new_methods_;  // scratch of DescribeSite
  std::vector<uint32_t> site_methods_;
  // ---- fields and values (walk thread) ----
  FieldMapper fields_;
  std::atomic<size_t> field_bytes_{0};  // fields_.FootprintBytes(), read by BufferBytes
  ContainerType container_type_ = ContainerType::kBegin;
  protocol::RawLayout layout_scratch_;
  protocol::RawEnum enum_scratch_;
};

}  // namespace agent
}  // namespace xrpm
