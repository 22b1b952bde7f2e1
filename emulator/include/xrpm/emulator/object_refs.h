// Reference fields of a heap object, from its type's layout: the slots the collector traces and
// rewrites and the walker reports. A class has the fixed ref_offsets of its type; an array of
// references has one slot per element; strings and value arrays have none.
//
// Thread-safety: pure functions over memory owned by the caller.
#pragma once

#include <cstdint>

#include "xrpm/emulator/type_table.h"

namespace xrpm::emulator {

// Number of reference slots (null or not) of the object with header words `h`.
inline uint32_t RefSlotCount(const TypeDesc& t, const uint32_t* h) {
  if (t.kind == TypeKind::kClass) return static_cast<uint32_t>(t.ref_offsets.size());
  if (t.kind == TypeKind::kArray && t.element_is_ref) return h[2];
  return 0;
}

// The i-th reference slot of the object with header words `h`.
inline uint32_t* RefSlotAt(const TypeDesc& t, uint32_t* h, uint32_t i) {
  if (t.kind == TypeKind::kClass) return h + t.ref_offsets[i] / 4;
  return h + 3 + i;
}

// Calls fn(uint32_t* slot) for every reference slot of the object (null ones included).
template <class Fn>
inline void ForEachRefSlot(const TypeTable& types, uint32_t* h, Fn&& fn) {
  const TypeDesc& t = types[h[0] & kTypeMask];
  if (t.kind == TypeKind::kClass) {
    for (uint16_t off : t.ref_offsets) fn(h + off / 4);
  } else if (t.kind == TypeKind::kArray && t.element_is_ref) {
    uint32_t* p = h + 3;
    for (uint32_t i = 0, n = h[2]; i < n; ++i) fn(p + i);
  }
}

}  // namespace xrpm::emulator
