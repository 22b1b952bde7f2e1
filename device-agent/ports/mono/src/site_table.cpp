#include "site_table.h"

#include <algorithm>
#include <vector>

namespace xrpm {
namespace mono {

SiteTable::SiteTable() : sites_(new std::atomic<const Site*>[kMaxSites]()) {}

uint32_t SiteTable::Intern(const uint64_t* keys, uint32_t depth, NameOf name_of) {
  depth = std::min(depth, agent::kMaxSampleStackDepth);
  const std::string stack(reinterpret_cast<const char*>(keys), depth * sizeof(uint64_t));
  std::vector<uint64_t> unnamed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ids_.find(stack);
    if (it != ids_.end()) return it->second;
    if (count_.load(std::memory_order_relaxed) >= kMaxSites) return 0;
    for (uint32_t i = 0; i < depth; ++i)
      if (!methods_.count(keys[i])) unnamed.push_back(keys[i]);
  }
  // Names outside the lock: computing one calls into the runtime, which may take its own locks.
  std::vector<std::string> names;
  names.reserve(unnamed.size());
  for (uint64_t k : unnamed) names.push_back(name_of(k));

  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < unnamed.size(); ++i) methods_.emplace(unnamed[i], std::move(names[i]));
  auto it = ids_.find(stack);  // another thread may have interned it meanwhile
  if (it != ids_.end()) return it->second;
  const uint32_t n = count_.load(std::memory_order_relaxed);
  if (n >= kMaxSites) return 0;
  auto site = std::make_unique<Site>();
  site->depth = depth;
  for (uint32_t i = 0; i < depth; ++i) site->names[i] = &methods_.at(keys[i]);
  owned_.push_back(std::move(site));
  ids_.emplace(stack, n + 1);
  sites_[n].store(owned_.back().get(), std::memory_order_release);
  count_.store(n + 1, std::memory_order_release);
  return n + 1;
}

}  // namespace mono
}  // namespace xrpm
