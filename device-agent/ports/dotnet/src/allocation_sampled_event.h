// AllocationSampledEvent: CoreCLR's randomized allocation sample (.NET 10 and later), as an
// EventPipe session delivers it: the Microsoft-Windows-DotNETRuntime provider's AllocationSampled
// event (id 303, version 0, keyword AllocationSamplingKeyword 0x80000000000, informational), and
// the parser of its payload, which the profiler reads inside the runtime (untrusted bytes).
//
// The runtime's sampling (docs/design/features/RandomizedAllocationSampling.md in dotnet/runtime):
// each thread runs Bernoulli trials on every allocated byte with p = 1/102,400 (fixed by the
// runtime, not configurable); the first success in an object emits one event with the object's
// type, size and the byte offset of that success. An object of s bytes is therefore sampled with
// probability 1 - (1 - p)^s, which equals the agent's Poisson model (xrpm/protocol/sampling.h,
// 1 - exp(-s / mean)) with mean = 102,400 bytes to within 1e-5 relative: the host's weighted
// estimate (bytes = sum of s / p(s)) is the design document's "weighted samples" estimator.
//
// Payload (little-endian, packed): AllocationKind u32, ClrInstanceID u16, TypeID pointer,
// TypeName NUL-terminated UTF-16, then [HeapIndex u32 in some builds], Address pointer,
// ObjectSize u64, SampledByteOffset u64. The manifest's published layout has no HeapIndex but
// earlier .NET 10 previews wrote it, so the fixed fields after the name are read from the end.
//
// Thread-safety: plain functions on values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm {
namespace dotnet {

constexpr uint32_t kAllocationSampledEventId = 303;
constexpr uint64_t kAllocationSamplingKeyword = 0x80000000000ull;
constexpr uint32_t kEventLevelInformational = 4;
// The runtime's mean sampling interval (1 / p).
constexpr uint32_t kRuntimeSampleBytes = 102400;

struct AllocationSampledEvent {
  uint32_t kind = 0;         // 0 small object heap, 1 large, 2 pinned
  uint64_t type_id = 0;      // the runtime's type handle (a ClassID)
  uint64_t address = 0;      // the object (an ObjectID until the next collection)
  uint64_t object_size = 0;  // bytes
  uint64_t sampled_offset = 0;
  size_t type_name_units = 0;  // UTF-16 units of the name (not read: the port names types)
};

// Parses `size` bytes of payload (pointer_bytes 4 or 8). False with *error ("byte N: expected
// ...") when they are not one AllocationSampled payload.
bool ParseAllocationSampled(const uint8_t* data, size_t size, size_t pointer_bytes,
                            AllocationSampledEvent* out, std::string* error);

}  // namespace dotnet
}  // namespace xrpm
