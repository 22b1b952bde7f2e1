#include "xrpm/protocol/heap_batch_writer.h"

#include <system_error>

namespace xrpm {
namespace protocol {
namespace {

template <class V>
size_t Cap(const V& v) {
  return v.capacity() * sizeof(typename V::value_type);
}

size_t MessageBytes(const wire::HeapBatch& b) {
  return b.root_objects().capacity() + b.root_flags().capacity() + b.root_containers().capacity() +
         b.object_gaps().capacity() + b.object_types().capacity() + b.object_sizes().capacity() +
         b.object_ref_counts().capacity() + b.refs().capacity() + b.site_depths().capacity() +
         b.site_methods().capacity() + b.object_sites().capacity() + b.object_frames().capacity() +
         b.root_slots().capacity() + b.ref_slots().capacity() + b.object_value_counts().capacity() +
         b.values().capacity();
}

}  // namespace

HeapBatchWriter::HeapBatchWriter(uint32_t capture_id, Sink sink, bool background_sealing,
                                 size_t batch_bytes)
    : capture_id_(capture_id), sink_(std::move(sink)), enc_(batch_bytes), background_(false) {
  NoteWalkBytes();
  if (background_sealing) StartBackgroundSealing();
}

bool HeapBatchWriter::StartBackgroundSealing() {
  if (background_) return true;
  // Inline seals are complete (Seal returns after the sink): the sealer starts on an empty
  // pipeline and continues sealed_ / checksum_, which the thread's start makes visible to it.
  try {
    sealer_ = std::thread([this] { SealerLoop(); });
  } catch (const std::system_error&) {
    return false;
  }
  background_ = true;
  return true;
}

void HeapBatchWriter::Stop() {
  if (!sealer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    exit_ = true;
    handoff_full_ = false;  // drop what was not flushed
  }
  cv_.notify_all();
  sealer_.join();
}

bool HeapBatchWriter::Emit(RawBatch& raw) {
  checksum_ = ChecksumBatch(raw, checksum_);  // before the encoding transforms `raw`
  EncodeRawBatch(raw, capture_id_, sealed_, env_.mutable_heap_batch(), &scratch_);
  ++sealed_;
  const bool ok = sink_(&env_);
  if (!ok) stopped_.store(true, std::memory_order_release);
  return ok;
}

void HeapBatchWriter::SealerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return handoff_full_ || exit_; });
    if (!handoff_full_) return;  // exit
    std::swap(handoff_, sealing_);
    handoff_full_ = false;
    sealer_busy_ = true;
    lock.unlock();
    cv_.notify_all();  // the walk may hand over the next batch now
    if (!stopped_.load(std::memory_order_acquire)) Emit(sealing_);
    lock.lock();  // handoff_ belongs to the walk thread while the lock is free
    sealer_bytes_.store(handoff_.CapacityBytes() + sealing_.CapacityBytes() + Cap(scratch_.roots) +
                            Cap(scratch_.frames) + Cap(scratch_.slots) +
                            MessageBytes(env_.heap_batch()),
                        std::memory_order_relaxed);
    sealer_busy_ = false;
    cv_.notify_all();
  }
}

bool HeapBatchWriter::Seal() {
  if (stopped_.load(std::memory_order_acquire)) return false;
  if (enc_.empty()) return true;
  ++totals_.batches;
  if (!background_) {
    enc_.Seal(capture_id_, sealed_++, env_.mutable_heap_batch(), &checksum_);
    NoteWalkBytes();
    sealer_bytes_.store(MessageBytes(env_.heap_batch()), std::memory_order_relaxed);
    if (!sink_(&env_)) stopped_.store(true, std::memory_order_release);
    return !stopped_.load(std::memory_order_acquire);
  }
  NoteWalkBytes();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !handoff_full_ || stopped_.load(std::memory_order_acquire); });
  if (stopped_.load(std::memory_order_acquire)) return false;
  enc_.TakeBatch(&handoff_);  // the walk continues in the buffers the sealer last used
  handoff_full_ = true;
  lock.unlock();
  cv_.notify_all();
  return true;
}

bool HeapBatchWriter::Type(uint32_t id, const char* name, size_t len, uint32_t domain,
                           bool has_finalizer) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddType(id, name, len, domain, has_finalizer) &&
      (!Seal() || !enc_.AddType(id, name, len, domain, has_finalizer)))
    return false;
  ++totals_.types;
  return true;
}

bool HeapBatchWriter::Type(const RawType& t) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddType(t) && (!Seal() || !enc_.AddType(t))) return false;
  ++totals_.types;
  return true;
}

bool HeapBatchWriter::Domain(const std::string& name) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddDomain(name) && (!Seal() || !enc_.AddDomain(name))) return false;
  ++totals_.domains;
  return true;
}

bool HeapBatchWriter::Container(const RawContainer& c) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddContainer(c) && (!Seal() || !enc_.AddContainer(c))) return false;
  ++totals_.containers;
  return true;
}

bool HeapBatchWriter::Root(uint64_t object, uint32_t flags, uint32_t container_index,
                           uint32_t slot) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddRoot(object, flags, container_index, slot) &&
      (!Seal() || !enc_.AddRoot(object, flags, container_index, slot)))
    return false;
  ++totals_.roots;
  return true;
}

bool HeapBatchWriter::Layout(const RawLayout& layout) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddLayout(layout) && (!Seal() || !enc_.AddLayout(layout))) return false;
  ++totals_.layouts;
  return true;
}

bool HeapBatchWriter::Enum(const RawEnum& e) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddEnum(e) && (!Seal() || !enc_.AddEnum(e))) return false;
  ++totals_.enums;
  return true;
}

bool HeapBatchWriter::Clock(uint64_t capture_frame, uint32_t sample_bytes) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  return enc_.AddClock(capture_frame, sample_bytes) ||
         (Seal() && enc_.AddClock(capture_frame, sample_bytes));
}

bool HeapBatchWriter::OriginMethod(const std::string& name) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddOriginMethod(name) && (!Seal() || !enc_.AddOriginMethod(name))) return false;
  ++totals_.origin_methods;
  return true;
}

bool HeapBatchWriter::Site(const uint32_t* method_ids, uint32_t depth) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!enc_.AddSite(method_ids, depth) && (!Seal() || !enc_.AddSite(method_ids, depth)))
    return false;
  ++totals_.sites;
  return true;
}

bool HeapBatchWriter::Object(uint64_t id, uint32_t type, uint32_t size, const uint64_t* refs,
                             size_t n, uint32_t site, uint64_t frame, const ObjectDetail& detail) {
  return ObjectBegin(id, type, size, n, site, frame, detail) && ObjectRefs(refs, detail.slots, n);
}

bool HeapBatchWriter::ObjectBegin(uint64_t id, uint32_t type, uint32_t size, size_t n,
                                  uint32_t site, uint64_t frame, const ObjectDetail& detail) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (n > 0xFFFFFFFFu || detail.value_count > kMaxObjectValues) return false;
  const uint32_t count = static_cast<uint32_t>(n);
  if (!enc_.AddObject(id, type, size, count, site, frame, detail) &&
      (!Seal() || !enc_.AddObject(id, type, size, count, site, frame, detail)))
    return false;
  totals_.known_origins += site != 0;
  if (enc_.values_enabled() && (detail.values || detail.units))
    totals_.value_words += detail.value_count;
  ++totals_.objects;
  totals_.heap_bytes += size;
  return true;
}

bool HeapBatchWriter::ObjectRefs(const uint64_t* refs, const uint32_t* slots, size_t n) {
  size_t done = 0;
  while (done < n) {
    const size_t k = enc_.AddRefs(refs + done, n - done, slots ? slots + done : nullptr);
    if (k == 0 && !enc_.pending_refs()) return false;  // more than ObjectBegin announced
    done += k;
    if (done < n && !Seal()) return false;
  }
  totals_.refs += n;
  return true;
}

bool HeapBatchWriter::Flush() {
  if (!Seal()) return false;
  if (background_) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !handoff_full_ && !sealer_busy_; });
  }
  totals_.checksum = checksum_;  // the sealer's writes are visible after the wait
  return !stopped_.load(std::memory_order_acquire);
}

}  // namespace protocol
}  // namespace xrpm
