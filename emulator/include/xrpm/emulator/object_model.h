// Object model of the emulated NETCF device: 32-bit addresses and the object header layout.
//
// Every managed object lives at an address in the managed heap (ManagedHeap) and starts with an
// 8-byte header, as on a 32-bit NETCF device:
//   word 0: type index (bits 0-23) | GC bits: mark (31), pinned (30), walker-visited (29)
//   word 1: sync block word; the compactor stores the forwarding address here while it runs,
//           the heap walker the object's index in the origin table (object_origins.h), a free
//           block stores its size here
//   word 2: element count, for arrays and strings only
// Instance fields follow the header (4-byte aligned); array elements follow the count. Object
// ids in heap dumps are these addresses, so a compacting collection changes them.
//
// Two pseudo-types keep the heap linearly parsable between objects: kFreeType (a free block of
// word-1 bytes) and kFree4Type (a 4-byte gap).
//
// Thread-safety: constants and pure functions only.
#pragma once

#include <cstdint>

namespace xrpm::emulator {

using Addr = uint32_t;  // a device address; 0 is null
using TypeIndex = uint32_t;

inline constexpr Addr kNull = 0;

inline constexpr uint32_t kHeaderBytes = 8;
inline constexpr uint32_t kArrayHeaderBytes = 12;  // header + element count
inline constexpr uint32_t kPointerBytes = 4;

inline constexpr uint32_t kTypeMask = 0x00FFFFFFu;
inline constexpr uint32_t kMarkBit = 1u << 31;
inline constexpr uint32_t kPinnedBit = 1u << 30;
inline constexpr uint32_t kVisitedBit = 1u << 29;

inline constexpr TypeIndex kFreeType = 0;
inline constexpr TypeIndex kFree4Type = 1;
inline constexpr TypeIndex kFirstRealType = 2;

// NETCF root flags (the 4th element of an `r` record).
inline constexpr uint8_t kRootFlagPinned = 1;
inline constexpr uint8_t kRootFlagWeak = 2;
inline constexpr uint8_t kRootFlagInterior = 4;

inline constexpr uint32_t AlignObject(uint32_t bytes) {
  return (bytes + 3u) & ~3u;
}

}  // namespace xrpm::emulator
