// AllocationSampledEvent: the AllocationSampled payload parser.
#include "allocation_sampled_event.h"

#include <cstring>

namespace xrpm {
namespace dotnet {
namespace {

uint64_t ReadSampledLe(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

bool SampledPayloadError(size_t at, const std::string& expected, std::string* error) {
  if (error) *error = "byte " + std::to_string(at) + ": expected " + expected;
  return false;
}

}  // namespace

bool ParseAllocationSampled(const uint8_t* data, size_t size, size_t pointer_bytes,
                            AllocationSampledEvent* out, std::string* error) {
  if (pointer_bytes != 4 && pointer_bytes != 8)
    return SampledPayloadError(0, "a pointer size of 4 or 8", error);
  if (!data && size) return SampledPayloadError(0, "payload bytes", error);
  const size_t head = 4 + 2 + pointer_bytes;
  if (size < head) return SampledPayloadError(size, "kind, instance id and type id", error);
  AllocationSampledEvent e;
  e.kind = static_cast<uint32_t>(ReadSampledLe(data, 4));
  e.type_id = ReadSampledLe(data + 6, pointer_bytes);
  size_t at = head;
  while (true) {
    if (size - at < 2) return SampledPayloadError(at, "the type name's NUL", error);
    if (data[at] == 0 && data[at + 1] == 0) break;
    at += 2;
    ++e.type_name_units;
  }
  at += 2;
  const size_t tail = size - at;
  const size_t fixed = pointer_bytes + 8 + 8;  // Address, ObjectSize, SampledByteOffset
  if (tail != fixed && tail != fixed + 4)
    return SampledPayloadError(at,
                               std::to_string(fixed) + " or " + std::to_string(fixed + 4) +
                                   " bytes after the type name, found " + std::to_string(tail),
                               error);
  e.address = ReadSampledLe(data + size - 16 - pointer_bytes, pointer_bytes);
  e.object_size = ReadSampledLe(data + size - 16, 8);
  e.sampled_offset = ReadSampledLe(data + size - 8, 8);
  if (e.address == 0)
    return SampledPayloadError(size - 16 - pointer_bytes, "an object address", error);
  if (e.object_size == 0) return SampledPayloadError(size - 16, "an object size > 0", error);
  if (e.sampled_offset >= e.object_size)
    return SampledPayloadError(size - 8, "a sampled offset below the object size", error);
  *out = e;
  return true;
}

}  // namespace dotnet
}  // namespace xrpm
