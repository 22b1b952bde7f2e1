#include "xrpm/emulator/allocation_sites.h"

#include <algorithm>

#include "xrpm/agent/frame_events.h"

namespace xrpm::emulator {
namespace {
std::string KeyOf(const MethodId* methods, uint32_t depth) {
  return std::string(reinterpret_cast<const char*>(methods), depth * sizeof(MethodId));
}
}  // namespace

SiteTable::SiteTable(size_t max_sites) : max_sites_(std::max<size_t>(max_sites, 1)) {
  offsets_.push_back(0);
  Add(std::string(), nullptr, 0);  // id 1: outside any managed frame
}

SiteId SiteTable::Add(std::string key, const MethodId* methods, uint32_t depth) {
  pool_.insert(pool_.end(), methods, methods + depth);
  offsets_.push_back(static_cast<uint32_t>(pool_.size()));
  const auto id = static_cast<SiteId>(size());
  by_stack_.emplace(std::move(key), id);
  return id;
}

SiteId SiteTable::Intern(const MethodId* methods, uint32_t depth) {
  depth = std::min<uint32_t>(depth, agent::kMaxSampleStackDepth);
  std::string key = KeyOf(methods, depth);
  if (auto it = by_stack_.find(key); it != by_stack_.end()) return it->second;
  if (size() < max_sites_) return Add(std::move(key), methods, depth);
  // Full: the allocating method alone (depth >= 1 here: the empty stack is always interned).
  ++truncated_;
  std::string one = KeyOf(methods, 1);
  if (auto it = by_stack_.find(one); it != by_stack_.end()) return it->second;
  if (size() >= protocol::SiteCapacity(static_cast<uint32_t>(max_sites_))) return kNoSite;
  return Add(std::move(one), methods, 1);
}

SiteId SiteTable::Push(SiteId caller, MethodId method) {
  const uint64_t key = (uint64_t{caller} << 32) | method;
  if (auto it = by_caller_.find(key); it != by_caller_.end()) return it->second;
  MethodId stack[agent::kMaxSampleStackDepth];
  stack[0] = method;
  // An unknown caller (a table past its capacity) leaves the method alone.
  const uint32_t outer =
      caller == kNoSite ? 0 : std::min<uint32_t>(depth(caller), agent::kMaxSampleStackDepth - 1);
  if (outer > 0) std::copy_n(methods(caller), outer, stack + 1);  // kNoSite has no methods()
  const SiteId id = Intern(stack, outer + 1);
  by_caller_.emplace(key, id);
  return id;
}

size_t SiteTable::MemoryBytes() const {
  size_t b = pool_.capacity() * sizeof(MethodId) + offsets_.capacity() * sizeof(uint32_t) +
             by_stack_.bucket_count() * sizeof(void*) + by_caller_.bucket_count() * sizeof(void*) +
             by_caller_.size() * (sizeof(uint64_t) + sizeof(SiteId) + 2 * sizeof(void*));
  for (const auto& [key, id] : by_stack_)
    b += sizeof(std::string) + sizeof(SiteId) + 2 * sizeof(void*) +
         (key.size() > 15 ? key.capacity() : 0);
  return b;
}

}  // namespace xrpm::emulator
