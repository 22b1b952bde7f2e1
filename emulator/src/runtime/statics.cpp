#include "xrpm/emulator/statics.h"

namespace xrpm::emulator {

StaticId Statics::Define(TypeIndex owner, std::string name) {
  slots_.push_back(StaticSlot{owner, std::move(name), kNull});
  return static_cast<StaticId>(slots_.size() - 1);
}

}  // namespace xrpm::emulator
