#include "xrpm/emulator/threads.h"

namespace xrpm::emulator {

ManagedThread& ThreadTable::Create(std::string name) {
  ManagedThread& t = threads_.emplace_back();
  t.id = static_cast<uint32_t>(threads_.size());
  t.name = std::move(name);
  return t;
}

const ManagedThread* ThreadTable::Find(uint64_t id) const {
  for (const ManagedThread& t : threads_)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace xrpm::emulator
