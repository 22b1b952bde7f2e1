#include "xrpm/emulator/runtime_roots.h"

namespace xrpm::emulator {

long RuntimeRoots::FindInterned(std::string_view s) const {
  auto it = interned_.find(std::string(s));
  return it == interned_.end() ? -1 : static_cast<long>(it->second);
}

size_t RuntimeRoots::AddInterned(std::string_view s, Addr str) {
  gc_specific_.push_back(str);
  interned_.emplace(std::string(s), gc_specific_.size() - 1);
  return gc_specific_.size() - 1;
}

long RuntimeRoots::FindTypeObject(TypeIndex t) const {
  auto it = type_objects_.find(t);
  return it == type_objects_.end() ? -1 : static_cast<long>(it->second);
}

size_t RuntimeRoots::AddTypeObject(TypeIndex t, Addr obj) {
  gc_specific_.push_back(obj);
  type_objects_.emplace(t, gc_specific_.size() - 1);
  return gc_specific_.size() - 1;
}

}  // namespace xrpm::emulator
