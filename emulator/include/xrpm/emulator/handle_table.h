// HandleTable: GCHandles (System.Runtime.InteropServices.GCHandle), roots of descriptor 3.
//
// Types follow GCHandleType: Weak and WeakTrackResurrection do not keep their target alive (the
// collector clears them when the target dies; before finalization for Weak, after it for
// WeakTrackResurrection), Normal does, Pinned does and also keeps the target from moving.
// Root flags: Pinned -> 1, Weak and WeakTrackResurrection -> 2, Normal -> 0.
// Handle values are 1-based (0 is an invalid handle, as in .NET); freed values are reused.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

enum class HandleType : uint8_t { kWeak = 0, kWeakTrackResurrection = 1, kNormal = 2, kPinned = 3 };

struct HandleSlot {
  Addr target = kNull;
  HandleType type = HandleType::kNormal;
  bool in_use = false;
};

uint8_t HandleRootFlags(HandleType t);
inline bool IsWeak(HandleType t) {
  return t == HandleType::kWeak || t == HandleType::kWeakTrackResurrection;
}

class HandleTable {
 public:
  uint32_t Alloc(Addr target, HandleType type);
  void Free(uint32_t handle);
  Addr Target(uint32_t handle) const { return slots_[handle - 1].target; }
  void SetTarget(uint32_t handle, Addr target) { slots_[handle - 1].target = target; }
  bool Valid(uint32_t handle) const {
    return handle >= 1 && handle <= slots_.size() && slots_[handle - 1].in_use;
  }
  std::vector<HandleSlot>& slots() { return slots_; }
  const std::vector<HandleSlot>& slots() const { return slots_; }
  size_t in_use() const { return slots_.size() - free_.size(); }

 private:
  std::vector<HandleSlot> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace xrpm::emulator
