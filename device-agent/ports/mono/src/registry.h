// Registry: what the runtime told the module over time, indexed for a capture: loaded classes
// (MonoClass* -> type id and name), registered root ranges (address range -> MonoGCRootSource
// and key) and live GC handles (handle -> MonoGCHandleType). Filled by draining the EventLog.
//
// Memory: one entry per loaded class, per registered root range and per live GC handle.
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
  // Registers a class the walk met without a load event (name computed by the caller).
  uint32_t AddClass(uintptr_t klass, std::string name);
  // Type ids are 1..names().size(); names()[id - 1], keys()[id - 1] (a MonoClass*, or a
  // synthetic key <= kMaxSyntheticKey for the walk's made-up containers).
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<uintptr_t>& keys() const { return keys_; }
  static constexpr uintptr_t kMaxSyntheticKey = 15;
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
};

}  // namespace mono
}  // namespace xrpm
