// GC kinds: which generation each collection of a game frame collected and why, packed into one
// 32-bit word, one byte per collection, for the first kMaxGcKinds collections of the frame (a
// frame with more keeps the first four; FrameRow.gcs still counts them all). The same word
// travels in the agent's FrameRecord, the wire's FrameRow.gc_kinds and a recording's frame rows.
//
// Byte i (bits 8i..8i+7), the i-th collection: 0 = absent (fewer collections, or not known);
// otherwise bit 7 set, bits 4-6 its reason (GcReason), bits 0-3 the highest generation it
// collected (0-15; NETCF has one generation, 0). Bytes are filled from byte 0, with no gaps.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xrpm {
namespace protocol {

enum class GcReason : uint8_t {
  kUnknown = 0,     // the runtime does not say (Mono)
  kAllocation = 1,  // the allocation budget ran out (NETCF's 1 MB)
  kInduced = 2,     // GC.Collect or a tool's forced collection (a capture's)
  kLowMemory = 3,   // the runtime or the system ran low on memory
  kOther = 4,       // a reason the runtime names but xrpm does not distinguish
};
constexpr uint8_t kMaxGcReason = 4;
constexpr size_t kMaxGcKinds = 4;
constexpr uint8_t kMaxGcGeneration = 15;

struct GcKind {
  uint8_t generation = 0;
  GcReason reason = GcReason::kUnknown;
};

inline const char* GcReasonName(GcReason r) {
  switch (r) {
    case GcReason::kAllocation:
      return "allocation";
    case GcReason::kInduced:
      return "induced";
    case GcReason::kLowMemory:
      return "low memory";
    case GcReason::kOther:
      return "other";
    case GcReason::kUnknown:
      break;
  }
  return "unknown";
}

// How many collections `packed` describes (its leading present bytes).
inline size_t GcKindCount(uint32_t packed) {
  size_t n = 0;
  while (n < kMaxGcKinds && ((packed >> (8 * n)) & 0x80u) != 0) ++n;
  return n;
}

inline GcKind GcKindAt(uint32_t packed, size_t i) {
  const uint32_t b = (packed >> (8 * i)) & 0xFFu;
  GcKind k;
  k.generation = static_cast<uint8_t>(b & 0x0Fu);
  k.reason = static_cast<GcReason>((b >> 4) & 0x07u);
  return k;
}

// `packed` with one more collection; unchanged when it holds kMaxGcKinds already.
inline uint32_t AppendGcKind(uint32_t packed, uint8_t generation, GcReason reason) {
  const size_t n = GcKindCount(packed);
  if (n >= kMaxGcKinds) return packed;
  const uint32_t gen = generation > kMaxGcGeneration ? kMaxGcGeneration : generation;
  const uint32_t b = 0x80u | (static_cast<uint32_t>(reason) & 0x07u) << 4 | gen;
  return packed | b << (8 * n);
}

// True when `packed` is well formed for a frame with `gcs` collections: present bytes first,
// no gaps, each reason known, and no more kinds than collections.
inline bool GcKindsValid(uint32_t packed, uint32_t gcs) {
  const size_t n = GcKindCount(packed);
  if (n > gcs) return false;
  if (n < kMaxGcKinds && (packed >> (8 * n)) != 0) return false;  // bytes after the first absent
  for (size_t i = 0; i < n; ++i)
    if (static_cast<uint8_t>(GcKindAt(packed, i).reason) > kMaxGcReason) return false;
  return true;
}

}  // namespace protocol
}  // namespace xrpm
