#include "registry.h"

namespace xrpm {
namespace mono {

void Registry::Drain(EventLog& log) {
  std::lock_guard<std::mutex> lock(mu_);
  log.Drain([this](const Event& e) {
    switch (e.kind) {
      case EventKind::kClassLoaded:
        if (class_ids_.find(e.a) == class_ids_.end()) AddClass(e.a, e.name);
        break;
      case EventKind::kRootRegister:
        ranges_[e.a] = RootRange{e.b, static_cast<int>(e.c), e.d, e.a};
        break;
      case EventKind::kRootUnregister:
        ranges_.erase(e.a);
        break;
      case EventKind::kHandleCreated:
        handles_[static_cast<uint32_t>(e.a)] = static_cast<int>(e.b);
        break;
      case EventKind::kHandleDeleted:
        handles_.erase(static_cast<uint32_t>(e.a));
        break;
    }
  });
}

uint32_t Registry::AddClass(uintptr_t klass, std::string name) {
  names_.push_back(std::move(name));
  keys_.push_back(klass);
  const auto id = static_cast<uint32_t>(names_.size());
  class_ids_[klass] = id;
  return id;
}

const RootRange* Registry::FindRange(uintptr_t address) const {
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return address - it->first < it->second.size ? &it->second : nullptr;
}

}  // namespace mono
}  // namespace xrpm
