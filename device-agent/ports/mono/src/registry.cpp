#include "registry.h"

#include <algorithm>
#include <iterator>

namespace xrpm {
namespace mono {

void Registry::Drain(EventLog& log) {
  std::lock_guard<std::mutex> lock(mu_);
  log.Drain([this](const Event& e) {
    switch (e.kind) {
      case EventKind::kClassLoaded: {
        auto it = class_ids_.find(e.a);
        if (it == class_ids_.end()) {
          AddClass(e.a, e.name);
        } else if (names_[it->second - 1] != e.name) {
          // Another class at a known class's address: the first was freed (its image closed
          // with an unloaded AppDomain) and its memory reused. A type of its own, and anything
          // cached under the address is stale (TakeReplaced).
          replaced_.push_back(e.a);
          AddClass(e.a, e.name);
        }
        break;
      }
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
      case EventKind::kDomainLoaded:  // a dead domain's address left the list at its unloading
        if (std::none_of(domains_.begin(), domains_.end(),
                         [&](const DomainInfo& d) { return d.domain == e.a; }))
          domains_.push_back(DomainInfo{e.a, {}});
        break;
      case EventKind::kDomainName: {
        auto it = std::find_if(domains_.begin(), domains_.end(),
                               [&](const DomainInfo& d) { return d.domain == e.a; });
        if (it == domains_.end()) it = domains_.insert(domains_.end(), DomainInfo{e.a, {}});
        it->name = e.name;
        break;
      }
      case EventKind::kDomainUnloading:
        RemoveDomain(e.a);
        break;
    }
  });
}

uint32_t Registry::AddClass(uintptr_t klass, std::string name) {
  names_.push_back(std::move(name));
  keys_.push_back(klass);
  type_domains_.push_back(0);
  const auto id = static_cast<uint32_t>(names_.size());
  class_ids_[klass] = id;
  return id;
}

uint32_t Registry::AddClassIn(uintptr_t klass, uintptr_t domain, std::string name) {
  names_.push_back(std::move(name));
  keys_.push_back(klass);
  type_domains_.push_back(domain);
  const auto id = static_cast<uint32_t>(names_.size());
  domain_class_ids_[DomainClass{klass, domain}] = id;
  return id;
}

// A domain that unloads leaves the list, and the types made for it are forgotten: their ids stay
// unused (never described again).
void Registry::RemoveDomain(uintptr_t domain) {
  domains_.erase(std::remove_if(domains_.begin(), domains_.end(),
                                [&](const DomainInfo& d) { return d.domain == domain; }),
                 domains_.end());
  for (auto it = domain_class_ids_.begin(); it != domain_class_ids_.end();)
    it = it->first.domain == domain ? domain_class_ids_.erase(it) : std::next(it);
  for (uintptr_t& d : type_domains_)  // a later domain may get the same address
    if (d == domain) d = kGoneDomain;
}

const RootRange* Registry::FindRange(uintptr_t address) const {
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return address - it->first < it->second.size ? &it->second : nullptr;
}

}  // namespace mono
}  // namespace xrpm
