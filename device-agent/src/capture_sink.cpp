#include "capture_sink.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "utf8.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/hex_id.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm {
namespace agent {
namespace {

// The NETCF counter that holds the live heap size after a collection, if the runtime has it.
uint64_t HeapBytesAfterGc(RuntimePort& rt) {
  const size_t n = rt.CounterCount();
  for (size_t i = 0; i < n; ++i) {
    const CounterInfo c = rt.DescribeCounter(i);
    if (c.name &&
        std::strcmp(c.name, protocol::CounterName(
                                protocol::NetcfCounter::kManagedBytesInUseAfterGc)) == 0) {
      std::vector<CounterValue> v(i + 1);
      if (rt.SampleCounters(v.data(), v.size()) > i && v[i].last > 0)
        return static_cast<uint64_t>(v[i].last);
      return 0;
    }
  }
  return 0;
}

}  // namespace

CaptureSink::CaptureSink(RuntimePort& runtime, CaptureJob& job)
    : runtime_(runtime),
      job_(job),
      writer_(
          job.id, [this](wire::Envelope* env) { return Emit(*env); },
          /*background_sealing=*/false, Streaming(job) ? kStreamingBatchBytes : kSmallBatchBytes),
      full_batches_(Streaming(job)),
      fields_(job.detail, runtime.Info().pointer_bytes) {
  if (job.detail.fields) writer_.EnableFields(job.detail.values);
}

CaptureSink::~CaptureSink() {
  writer_.Stop();  // no Emit may run after this
  job_.queue.ReleaseFixed();
}

size_t CaptureSink::BufferBytes() const {
  return writer_.FootprintBytes() + origin_bytes_.load(std::memory_order_relaxed) +
         field_bytes_.load(std::memory_order_relaxed);
}

// Serializes `env` and queues it; any thread, one at a time (the walk thread before the first
// batch, then the sealer thread).
bool CaptureSink::Emit(const wire::Envelope& env) {
  std::string out;
  if (!protocol::SerializeEnvelope(env, protocol::kMaxAgentMessageBytes, &out)) {
    emit_failed_ = true;
    return false;
  }
  wire_bytes_ += out.size();
  uint64_t stalled = 0;
  // The queue charges the message and the buffers' growth together, once both fit the bound.
  const bool ok = job_.queue.Push(std::move(out), BufferBytes(), &stalled);
  stalled_us_ += stalled;
  return ok;
}

bool CaptureSink::Begin() {
  if (begun_) {  // parts_left_: another call came before an object's last part
    if (error_.empty())
      error_ = "agent error: object " + protocol::HexId(parts_object_) + " broken off after " +
               std::to_string(parts_total_ - parts_left_) + " of its " +
               std::to_string(parts_total_) + " references (ObjectReferencesPart) by another call";
    return false;
  }
  begun_ = true;
  const uint64_t heap_bytes = HeapBytesAfterGc(runtime_);
  if (!Streaming(job_)) {
    // A small heap's capture holds at most a 1/kResumedLimitHeapShare of the heap in messages
    // once the game runs again, not the whole resumed limit (which a large heap needs to keep
    // the network thread busy).
    const uint64_t share =
        std::max<uint64_t>(heap_bytes / kResumedLimitHeapShare, kMinResumedLimit);
    const bool small_heap = heap_bytes == 0 || share < job_.queue.resumed_limit();
    if (heap_bytes != 0 && small_heap) job_.queue.LowerResumedLimit(static_cast<size_t>(share));
    // A walk in the stopped world, or of a heap known to be large, seals on the sealer thread
    // from the start (the game's pause holds only the walk; a large heap's encoding overlaps
    // its walk); a walk of a small (or unknown) heap after the game resumed seals inline until
    // it is large.
    const bool resumed = job_.world_resumed_ns.load(std::memory_order_acquire) != 0;
    if ((!resumed || !small_heap) && !writer_.StartBackgroundSealing()) {
      Fail("agent error: cannot start the batch sealer thread");
      return false;
    }
  }
  const RuntimeInfo info = runtime_.Info();
  start_ms_ = runtime_.BootMillis();
  wire::Envelope env;
  wire::CaptureBegin* b = env.mutable_capture_begin();
  b->set_capture_id(job_.id);
  b->set_request_id(job_.request_id);
  b->set_section_version(info.dump_version);
  b->set_section_name(SanitizeUtf8(info.app_name, protocol::kMaxShortString));
  b->set_start_ms(start_ms_);
  b->set_expected_heap_bytes(heap_bytes);
  uint64_t walk_objects = 0, walk_refs = 0;
  if (runtime_.WalkSizes(&walk_objects, &walk_refs)) {
    b->set_expected_objects(walk_objects);
    b->set_expected_refs(walk_refs);
  }
  b->set_fields(job_.detail.fields);
  b->set_values(job_.detail.values);
  if (job_.detail.values) b->set_string_cap(job_.detail.string_cap);
  if (job_.has_marker) FillMarkerRow(job_.last_marker, b->mutable_last_marker());
  return Emit(env);
}

WalkResult CaptureSink::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  return WalkResult::kAbort;
}

void CaptureSink::WorldResumed() {
  int64_t expected = 0;
  job_.world_resumed_ns.compare_exchange_strong(expected, NowNs());
  job_.queue.Resume();  // from now on the walk waits for the network, not the game
  job_.hold_sends.store(false, std::memory_order_release);
}

void CaptureSink::WalkFailed(const char* reason, size_t len) {
  try {
    Fail(len ? std::string(reason, len) : std::string("the runtime's walk failed"));
  } catch (const std::exception&) {  // bad_alloc: the capture fails all the same
    Fail("walk failed");
  }
}

WalkResult CaptureSink::Stopped() {
  if (job_.cancelled()) {
    aborted_by_cancel_ = true;
    return WalkResult::kAbort;
  }
  if (emit_failed_) return Fail("internal: a heap batch exceeded the message limit");
  return Fail(error_.empty() ? "the capture was stopped" : error_);
}

WalkResult CaptureSink::DoBeginContainer(ContainerType type, uint64_t id1, uint64_t id2) {
  if (type == ContainerType::kEnd) {  // always delivered, even after an abort
    end_ms_ = runtime_.BootMillis();
    if (origin_pending_) ++origins_dropped_;  // no object followed the last origin
    origin_pending_ = false;
    if (error_.empty() && !aborted_by_cancel_ && !job_.cancelled())
      ended_ = EnsureBegun() && writer_.Flush();
    return WalkResult::kOk;
  }
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  container_sent_ = false;
  container_type_ = type;
  descriptor_ = RootDescriptorFor(type);
  switch (type) {
    case ContainerType::kBegin:
    case ContainerType::kHeap:
      return WalkResult::kOk;
    case ContainerType::kThread:
      have_thread_ = true;
      thread_id_ = id1;
      return WalkResult::kOk;
    default:
      break;
  }
  container_ = protocol::RawContainer{static_cast<uint32_t>(type),
                                      id1,
                                      id2,
                                      static_cast<uint32_t>(descriptor_ < 0 ? 0 : descriptor_),
                                      false,
                                      0};
  if (descriptor_ == 1) {  // a frame: it belongs to the thread whose container preceded it
    auto it = frame_thread_.find(id1);
    if (it != frame_thread_.end()) {
      container_.has_thread = true;
      container_.thread_id = it->second;
    } else if (have_thread_) {
      container_.has_thread = true;
      container_.thread_id = thread_id_;
      frame_thread_.emplace(id1, thread_id_);
    }
  }
  return WalkResult::kOk;
}

WalkResult CaptureSink::DoDescribeType(uint32_t type_id, const char* name, size_t name_len,
                                       uint32_t domain, const TypeTraits& traits) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  if (name_len > protocol::kMaxTypeNameBytes)
    return Fail("the runtime described type " + std::to_string(type_id) + " with a " +
                std::to_string(name_len) + "-byte name (limit " +
                std::to_string(protocol::kMaxTypeNameBytes) + ")");
  if (domain > writer_.totals().domains)
    return Fail("the runtime described type " + std::to_string(type_id) + " in AppDomain " +
                std::to_string(domain) + " before describing that domain (walker contract)");
  if (job_.detail.fields) fields_.NoteType(type_id);
  protocol::RawType t;
  t.id = type_id;
  t.name.assign(name, name_len);
  t.domain = domain;
  t.has_finalizer = traits.has_finalizer;
  if (static_cast<uint32_t>(traits.kind) > protocol::kMaxTypeKind)
    return Fail("the runtime described type " + std::to_string(type_id) + " with kind " +
                std::to_string(static_cast<uint32_t>(traits.kind)) + " (walker contract)");
  t.kind = traits.kind;
  if (t.kind == TypeKind::kEnum) {
    if (!protocol::IsValueKind(traits.enum_underlying))
      return Fail("the runtime described enum " + std::to_string(type_id) +
                  " without an underlying integer kind (walker contract)");
    t.enum_underlying = traits.enum_underlying;
  }
  if (t.kind == TypeKind::kArray) {
    if (traits.array_rank < 1 || traits.array_rank > protocol::kMaxArrayRank ||
        traits.element_type_name_len > protocol::kMaxTypeNameBytes)
      return Fail("the runtime described array type " + std::to_string(type_id) + " with rank " +
                  std::to_string(traits.array_rank) + " and a " +
                  std::to_string(traits.element_type_name_len) +
                  "-byte element type name (limits 1.." + std::to_string(protocol::kMaxArrayRank) +
                  ", " + std::to_string(protocol::kMaxTypeNameBytes) + " bytes)");
    t.array_rank = traits.array_rank;
    if (traits.element_type_name)
      t.element_type.assign(traits.element_type_name, traits.element_type_name_len);
  }
  return writer_.Type(t) ? WalkResult::kOk : Stopped();
}

WalkResult CaptureSink::DoDescribeDomain(uint32_t domain, const char* name, size_t name_len) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  const uint64_t expected = writer_.totals().domains + 1;
  if (domain != expected)
    return Fail("the runtime described AppDomain " + std::to_string(domain) + " where domain " +
                std::to_string(expected) + " was expected (walker contract: 1, 2, 3, ...)");
  if (domain > protocol::kMaxCaptureDomains)
    return Fail("the runtime described more than " + std::to_string(protocol::kMaxCaptureDomains) +
                " AppDomains");
  const std::string n =
      SanitizeUtf8(std::string(name, name_len).c_str(), protocol::kMaxShortString);
  return writer_.Domain(n) ? WalkResult::kOk : Stopped();
}

WalkResult CaptureSink::DoDescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                       FieldKind underlying, const EnumMemberInfo* members,
                                       size_t count) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  if (!job_.detail.fields ||
      !fields_.MapEnum(enum_id, name, name_len, underlying, members, count, &enum_scratch_))
    return WalkResult::kOk;
  field_bytes_.store(fields_.FootprintBytes(), std::memory_order_relaxed);
  return writer_.Enum(enum_scratch_) ? WalkResult::kOk : Stopped();
}

WalkResult CaptureSink::DoDescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  if (!job_.detail.fields || !fields_.MapLayout(type_id, layout, &layout_scratch_))
    return WalkResult::kOk;
  field_bytes_.store(fields_.FootprintBytes(), std::memory_order_relaxed);
  return writer_.Layout(layout_scratch_) ? WalkResult::kOk : Stopped();
}

WalkResult CaptureSink::DoContainerLabel(const char* label, size_t len) {
  if (job_.cancelled() || (parts_left_ != 0 && !EnsureBegun())) return Stopped();
  // Only a frame's label (its method) is sent, with the container's entry.
  if (job_.detail.fields && descriptor_ == 1 && !container_sent_ && label)
    container_.label.assign(label, std::min<size_t>(len, protocol::kMaxMethodNameBytes));
  return WalkResult::kOk;
}

WalkResult CaptureSink::DoRootReferences(const RootRef* roots, size_t count) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  if (count == 0) return WalkResult::kOk;
  if (descriptor_ < 0)
    return Fail("the runtime reported roots outside a root container (walker contract)");
  if (!container_sent_) {
    container_index_ = writer_.next_container_index();
    if (!writer_.Container(container_)) return Stopped();
    container_sent_ = true;
  }
  const bool fields = job_.detail.fields;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t slot =
        fields ? fields_.RootSlot(container_type_, container_.id1, roots[i].slot) : kNoSlot;
    if (!writer_.Root(roots[i].object, roots[i].flags, container_index_, slot)) return Stopped();
  }
  return WalkResult::kOk;
}

bool CaptureSink::StartObject(uint64_t object, uint32_t type_id, uint32_t size,
                              const uint32_t* slots, size_t n, size_t total,
                              const uint32_t** mapped_slots) {
  uint32_t site = 0;
  uint64_t frame = 0;
  if (origin_pending_) {
    origin_pending_ = false;
    if (pending_object_ == object) {
      site = pending_site_;
      frame = pending_frame_;
    } else {
      ++origins_dropped_;  // the origin named another object: trust neither
    }
  }
  protocol::ObjectDetail detail;
  if (job_.detail.fields) detail = fields_.Take(object, type_id, size, slots, n);
  *mapped_slots = detail.slots;
  return writer_.ObjectBegin(object, type_id, size, total, site, frame, detail);
}

WalkResult CaptureSink::ObjectDone() {
  if (!full_batches_ && writer_.totals().objects >= kFullBatchesAfterObjects) {
    writer_.SetBatchBytes(protocol::kTargetBatchBytes);  // a large heap
    full_batches_ = true;
    if (!writer_.StartBackgroundSealing())
      return Fail("agent error: cannot start the batch sealer thread");
  }
  return WalkResult::kPostponeReferences;
}

WalkResult CaptureSink::DoObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                           const uint64_t* refs, const uint32_t* slots,
                                           size_t ref_count) {
  // One relaxed load per object: a cancel stops the walk within one object.
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  const uint32_t* mapped = nullptr;
  if (!StartObject(object, type_id, size, slots, ref_count, ref_count, &mapped) ||
      !writer_.ObjectRefs(refs, mapped, ref_count))
    return Stopped();
  return ObjectDone();
}

WalkResult CaptureSink::DoObjectReferencesPart(uint64_t object, uint32_t type_id, uint32_t size,
                                               size_t total, const uint64_t* refs,
                                               const uint32_t* slots, size_t n) {
  if (job_.cancelled()) return Stopped();
  const uint32_t* mapped = nullptr;
  if (parts_left_ == 0) {  // the first part
    if (!EnsureBegun()) return Stopped();
    if (n == 0 || n > total)
      return Fail("agent error: object " + protocol::HexId(object) + " reported in a part of " +
                  std::to_string(n) + " of its " + std::to_string(total) + " references");
    if (!StartObject(object, type_id, size, slots, n, total, &mapped)) return Stopped();
    parts_object_ = object;
    parts_type_ = type_id;
    parts_size_ = size;
    parts_total_ = total;
    parts_left_ = total;
  } else {
    if (object != parts_object_ || type_id != parts_type_ || size != parts_size_ ||
        total != parts_total_ || n == 0 || n > parts_left_)
      return Fail("agent error: object " + protocol::HexId(parts_object_) + " broken off after " +
                  std::to_string(parts_total_ - parts_left_) + " of its " +
                  std::to_string(parts_total_) + " references by a part of object " +
                  protocol::HexId(object) + " (" + std::to_string(n) + " references)");
    if (job_.detail.fields) mapped = fields_.TakePart(slots, n);
  }
  if (!writer_.ObjectRefs(refs, mapped, n)) return Stopped();
  parts_left_ -= n;
  if (parts_left_ != 0) return WalkResult::kPostponeReferences;
  return ObjectDone();
}

WalkResult CaptureSink::DoAllocationClock(uint64_t frame, uint32_t sample_bytes) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  if (clock_seen_) return WalkResult::kOk;  // once per walk: keep the first
  clock_seen_ = true;
  return writer_.Clock(frame, sample_bytes) ? WalkResult::kOk : Stopped();
}

WalkResult CaptureSink::DoDescribeSite(uint32_t site_id, const char* const* method_names,
                                       const size_t* name_lens, uint32_t depth) {
  if (job_.cancelled() || !EnsureBegun()) return Stopped();
  const char* why = nullptr;
  const uint32_t wire =
      origins_.Intern(site_id, method_names, name_lens, depth, &new_methods_, &site_methods_, &why);
  origin_bytes_.store(origins_.FootprintBytes(), std::memory_order_relaxed);
  if (wire == 0) return WalkResult::kOk;  // its objects' origins are dropped (counted there)
  for (const std::string& m : new_methods_)
    if (!writer_.OriginMethod(m)) return Stopped();
  return writer_.Site(site_methods_.data(), depth) ? WalkResult::kOk : Stopped();
}

// The callbacks run inside the runtime's walk: no exception may escape into it.
WalkResult CaptureSink::BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) {
  try {
    return DoBeginContainer(type, id1, id2);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeType(uint32_t type_id, const char* name, size_t name_len) {
  try {
    return DoDescribeType(type_id, name, name_len);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::RootReferences(const RootRef* roots, size_t count) {
  try {
    return DoRootReferences(roots, count);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                         const uint64_t* refs, size_t ref_count) {
  try {
    return DoObjectReferences(object, type_id, size, refs, nullptr, ref_count);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::AllocationClock(uint64_t frame, uint32_t sample_bytes) {
  try {
    return DoAllocationClock(frame, sample_bytes);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeSite(uint32_t site_id, const char* const* method_names,
                                     const size_t* name_lens, uint32_t depth) {
  try {
    return DoDescribeSite(site_id, method_names, name_lens, depth);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeDomain(uint32_t domain, const char* name, size_t name_len) {
  try {
    return DoDescribeDomain(domain, name, name_len);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                             size_t name_len) {
  try {
    return DoDescribeType(type_id, name, name_len, domain);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                               size_t name_len, const TypeTraits& traits) {
  try {
    return DoDescribeType(type_id, name, name_len, domain, traits);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::ObjectReferencesPart(uint64_t object, uint32_t type_id, uint32_t size,
                                             size_t total, const uint64_t* refs,
                                             const uint32_t* slots, size_t n) {
  try {
    return DoObjectReferencesPart(object, type_id, size, total, refs, slots, n);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                                  const uint64_t* refs, const uint32_t* slots,
                                                  size_t ref_count) {
  try {
    return DoObjectReferences(object, type_id, size, refs, slots, ref_count);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                     FieldKind underlying, const EnumMemberInfo* members,
                                     size_t count) {
  try {
    return DoDescribeEnum(enum_id, name, name_len, underlying, members, count);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::DescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) {
  try {
    return DoDescribeLayout(type_id, layout);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

WalkResult CaptureSink::ContainerLabel(const char* label, size_t len) {
  try {
    return DoContainerLabel(label, len);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
}

// Values are copied (bounded: kMaxObjectValues words) for the next ObjectReferences.
WalkResult CaptureSink::ObjectValues(uint64_t object, const uint64_t* bits, size_t count) {
  if (job_.cancelled() || (parts_left_ != 0 && !EnsureBegun())) return Stopped();
  if (!job_.detail.values) return WalkResult::kOk;
  try {
    if (fields_.SetValues(object, bits, count))
      field_bytes_.store(fields_.FootprintBytes(), std::memory_order_relaxed);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
  return WalkResult::kOk;
}

WalkResult CaptureSink::StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                                    size_t count) {
  if (job_.cancelled() || (parts_left_ != 0 && !EnsureBegun())) return Stopped();
  if (!job_.detail.values) return WalkResult::kOk;
  try {
    if (fields_.SetString(object, length, units, count))
      field_bytes_.store(fields_.FootprintBytes(), std::memory_order_relaxed);
  } catch (const std::exception& e) {
    return Fail(std::string("agent error: ") + e.what());
  }
  return WalkResult::kOk;
}

// Cheap and allocation-free: it only remembers the origin for the next ObjectReferences.
WalkResult CaptureSink::ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) {
  if (job_.cancelled() || (parts_left_ != 0 && !EnsureBegun())) return Stopped();
  if (origin_pending_) ++origins_dropped_;  // two origins in a row: the first had no object
  const uint32_t wire = clock_seen_ ? origins_.WireSite(site_id) : 0;
  origin_pending_ = wire != 0;
  if (wire == 0) {
    ++origins_dropped_;  // before the clock, or a site never (validly) described
    return WalkResult::kOk;
  }
  pending_object_ = object;
  pending_frame_ = alloc_frame;
  pending_site_ = wire;
  return WalkResult::kOk;
}

}  // namespace agent
}  // namespace xrpm
