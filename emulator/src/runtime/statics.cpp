#include "xrpm/emulator/statics.h"

namespace xrpm::emulator {

StaticId Statics::Define(TypeIndex owner, std::string name, std::string type_name) {
  uint32_t index = 0;
  for (const StaticSlot& s : slots_) index += s.owner == owner;
  slots_.push_back(StaticSlot{owner, std::move(name), kNull, index, std::move(type_name)});
  return static_cast<StaticId>(slots_.size() - 1);
}

}  // namespace xrpm::emulator
