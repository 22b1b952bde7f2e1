#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm {
namespace protocol {

HeapBatchWriter::HeapBatchWriter(uint32_t capture_id, Sink sink)
    : capture_id_(capture_id), sink_(std::move(sink)) {}

bool HeapBatchWriter::Seal() {
  if (stopped_) return false;
  if (enc_.empty()) return true;
  enc_.Seal(capture_id_, totals_.batches, env_.mutable_heap_batch(), &totals_.checksum);
  ++totals_.batches;
  if (!sink_(&env_)) stopped_ = true;
  return !stopped_;
}

bool HeapBatchWriter::Type(uint32_t id, const char* name, size_t len) {
  if (stopped_) return false;
  if (!enc_.AddType(id, name, len) && (!Seal() || !enc_.AddType(id, name, len))) return false;
  ++totals_.types;
  return true;
}

bool HeapBatchWriter::Container(const RawContainer& c) {
  if (stopped_) return false;
  if (!enc_.AddContainer(c) && (!Seal() || !enc_.AddContainer(c))) return false;
  ++totals_.containers;
  return true;
}

bool HeapBatchWriter::Root(uint64_t object, uint32_t flags, uint32_t container_index) {
  if (stopped_) return false;
  if (!enc_.AddRoot(object, flags, container_index) &&
      (!Seal() || !enc_.AddRoot(object, flags, container_index)))
    return false;
  ++totals_.roots;
  return true;
}

bool HeapBatchWriter::Object(uint64_t id, uint32_t type, uint32_t size, const uint64_t* refs,
                             size_t n) {
  if (stopped_) return false;
  if (n > 0xFFFFFFFFu) return false;
  const uint32_t count = static_cast<uint32_t>(n);
  if (!enc_.AddObject(id, type, size, count) && (!Seal() || !enc_.AddObject(id, type, size, count)))
    return false;
  size_t done = 0;
  while (done < n) {
    const size_t k = enc_.AddRefs(refs + done, n - done);
    done += k;
    if (done < n && !Seal()) return false;
  }
  ++totals_.objects;
  totals_.refs += n;
  totals_.heap_bytes += size;
  return true;
}

bool HeapBatchWriter::Flush() {
  return Seal();
}

size_t HeapBatchWriter::FootprintBytes() const {
  const wire::HeapBatch& b = env_.heap_batch();
  return enc_.FootprintBytes() + b.root_objects().capacity() + b.root_flags().capacity() +
         b.root_containers().capacity() + b.object_gaps().capacity() +
         b.object_types().capacity() + b.object_sizes().capacity() +
         b.object_ref_counts().capacity() + b.refs().capacity();
}

}  // namespace protocol
}  // namespace xrpm
