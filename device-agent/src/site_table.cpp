#include "xrpm/agent/site_table.h"

#include <algorithm>
#include <vector>

namespace xrpm {
namespace agent {

SiteTable::SiteTable(uint32_t max_sites)
    : max_sites_(std::max<uint32_t>(max_sites, 1)),
      capacity_(protocol::SiteCapacity(max_sites_)),
      sites_(new std::atomic<const Site*>[capacity_]()) {
  // The empty stack is protocol::kOutsideManagedCode.
  owned_.push_back(std::make_unique<Site>());
  ids_.emplace(std::string(), protocol::kOutsideManagedCode);
  sites_[0].store(owned_.back().get(), std::memory_order_release);
  count_.store(1, std::memory_order_release);
}

uint32_t SiteTable::FindLocked(std::string* stack, uint32_t* depth) {
  auto it = ids_.find(*stack);
  if (it != ids_.end()) return it->second;
  if (count_.load(std::memory_order_relaxed) < max_sites_ || *depth <= 1) return protocol::kNoSite;
  *depth = 1;  // full: the allocating method alone
  stack->resize(sizeof(uint64_t));
  it = ids_.find(*stack);
  return it != ids_.end() ? it->second : protocol::kNoSite;
}

uint32_t SiteTable::Intern(const uint64_t* keys, uint32_t depth, NameOf name_of, void* ctx) {
  depth = std::min(depth, kMaxSampleStackDepth);
  const uint32_t asked = depth;
  std::string stack(reinterpret_cast<const char*>(keys), depth * sizeof(uint64_t));
  std::vector<uint64_t> unnamed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const uint32_t id = FindLocked(&stack, &depth);
    if (depth < asked) truncated_.fetch_add(1, std::memory_order_relaxed);
    if (id != protocol::kNoSite) return id;
    if (count_.load(std::memory_order_relaxed) >= capacity_) return protocol::kNoSite;
    for (uint32_t i = 0; i < depth; ++i)
      if (!methods_.count(keys[i])) unnamed.push_back(keys[i]);
  }
  // Names outside the lock: computing one calls into the runtime, which may take its own locks.
  std::vector<std::string> names;
  names.reserve(unnamed.size());
  for (uint64_t k : unnamed) names.push_back(name_of(ctx, k));

  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < unnamed.size(); ++i) methods_.emplace(unnamed[i], std::move(names[i]));
  // Another thread may have interned it, or filled the table, meanwhile.
  const uint32_t before = depth;
  const uint32_t id = FindLocked(&stack, &depth);
  if (depth < before) truncated_.fetch_add(1, std::memory_order_relaxed);
  if (id != protocol::kNoSite) return id;
  const uint32_t n = count_.load(std::memory_order_relaxed);
  if (n >= capacity_) return protocol::kNoSite;
  auto site = std::make_unique<Site>();
  site->depth = depth;
  for (uint32_t i = 0; i < depth; ++i) site->names[i] = &methods_.at(keys[i]);
  owned_.push_back(std::move(site));
  ids_.emplace(stack, n + 1);
  sites_[n].store(owned_.back().get(), std::memory_order_release);
  count_.store(n + 1, std::memory_order_release);
  return n + 1;
}

}  // namespace agent
}  // namespace xrpm
