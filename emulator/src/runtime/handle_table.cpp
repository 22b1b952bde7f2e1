#include "xrpm/emulator/handle_table.h"

namespace xrpm::emulator {

uint8_t HandleRootFlags(HandleType t) {
  switch (t) {
    case HandleType::kPinned:
      return kRootFlagPinned;
    case HandleType::kWeak:
    case HandleType::kWeakTrackResurrection:
      return kRootFlagWeak;
    case HandleType::kNormal:
      return 0;
  }
  return 0;
}

uint32_t HandleTable::Alloc(Addr target, HandleType type) {
  uint32_t h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
  } else {
    slots_.emplace_back();
    h = static_cast<uint32_t>(slots_.size());
  }
  slots_[h - 1] = HandleSlot{target, type, true};
  return h;
}

void HandleTable::Free(uint32_t handle) {
  if (!Valid(handle)) return;
  slots_[handle - 1] = HandleSlot{};
  free_.push_back(handle);
}

}  // namespace xrpm::emulator
