// Registry: what the runtime told the module over time, indexed for a capture: loaded classes
// (MonoClass* -> type id and name), registered root ranges (address range -> MonoGCRootSource
// and key), live GC handles (handle -> MonoGCHandleType) and live AppDomains in creation order
// (MonoDomain* and friendly name; a domain leaves the list when its unloading begins). Filled
// by draining the EventLog.
//
// Types: a loaded class has one type id (its instances in the first, root, domain); the same
// class in another AppDomain gets a type id of its own on first use (AddClassIn), since a
// NETCF dump's types belong to one AppDomain section.
//
// A load event for a known address with another name means the first class was freed (its
// image closed with an unloaded AppDomain) and a new class took its memory: it gets a new type id.
//
// Memory: one entry per loaded class, per (class, other domain) used, per registered root range,
// per live GC handle and per live AppDomain.
// Thread-safety: the module's own threads only (the bookkeeper and the capture thread), under
// the registry's mutex (which no Mono thread ever takes; see event_log.h).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "event_log.h"

namespace xrpm {
namespace mono {

struct RootRange {
  uintptr_t size;
  int source;  // MonoGCRootSource
  uintptr_t key;
  uintptr_t start = 0;  // the range's first address
};

struct DomainInfo {
  uintptr_t domain;  // MonoDomain*
  std::string name;  // friendly name ("" until Mono names it)
};

class Registry {
 public:
  // Replays the events pushed since the last drain. O(events * log ranges).
  void Drain(EventLog& log);

  std::mutex& mutex() { return mu_; }

  // ---- with mutex() held ----
  // The type id of `klass`, or 0 if its load was never reported.
  uint32_t TypeId(uintptr_t klass) const {
    auto it = class_ids_.find(klass);
    return it == class_ids_.end() ? 0 : it->second;
  }
  // MonoClass* addresses that a newly loaded class of another name took over from a freed one
  // since the last call (each got a new type id; the old id keeps the old name, unused): what
  // is cached per class under them is stale.
  std::vector<uintptr_t> TakeReplaced() { return std::move(replaced_); }
  // Registers a class the walk met without a load event (name computed by the caller).
  uint32_t AddClass(uintptr_t klass, std::string name);
  // The type id of `klass` in AppDomain `domain` other than the root one, or 0 if never used.
  uint32_t TypeIdIn(uintptr_t klass, uintptr_t domain) const {
    auto it = domain_class_ids_.find(DomainClass{klass, domain});
    return it == domain_class_ids_.end() ? 0 : it->second;
  }
  uint32_t AddClassIn(uintptr_t klass, uintptr_t domain, std::string name);
  // Type ids are 1..names().size(); names()[id - 1], keys()[id - 1] (a MonoClass*, or a
  // synthetic key <= kMaxSyntheticKey for the walk's made-up containers), and
  // type_domains()[id - 1] the MonoDomain* of a type made by AddClassIn (0: a loaded class, in
  // the root domain; kGoneDomain: the type's domain has unloaded).
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<uintptr_t>& keys() const { return keys_; }
  const std::vector<uintptr_t>& type_domains() const { return type_domains_; }
  static constexpr uintptr_t kMaxSyntheticKey = 15;
  static constexpr uintptr_t kGoneDomain = ~uintptr_t{0};
  // Live AppDomains in the order Mono created them (the first is the root domain).
  const std::vector<DomainInfo>& domains() const { return domains_; }
  // The registered range holding `address`, or null. O(log ranges).
  const RootRange* FindRange(uintptr_t address) const;
  const std::unordered_map<uint32_t, int>& handles() const { return handles_; }

 private:
  std::mutex mu_;
  std::unordered_map<uintptr_t, uint32_t> class_ids_;
  std::vector<std::string> names_;
  std::vector<uintptr_t> keys_;
  std::map<uintptr_t, RootRange> ranges_;  // by start
  std::unordered_map<uint32_t, int> handles_;
  struct DomainClass {
    uintptr_t klass, domain;
    bool operator==(const DomainClass& o) const { return klass == o.klass && domain == o.domain; }
  };
  struct DomainClassHash {
    size_t operator()(const DomainClass& k) const {
      return std::hash<uintptr_t>()(k.klass) ^
             (std::hash<uintptr_t>()(k.domain) * 0x9e3779b97f4a7c15ull);
    }
  };
  std::unordered_map<DomainClass, uint32_t, DomainClassHash> domain_class_ids_;
  std::vector<uintptr_t> type_domains_;
  std::vector<DomainInfo> domains_;
  std::vector<uintptr_t> replaced_;  // see TakeReplaced
  void RemoveDomain(uintptr_t domain);
};

}  // namespace mono
}  // namespace xrpm
