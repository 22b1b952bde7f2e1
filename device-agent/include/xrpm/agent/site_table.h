// SiteTable: the interned allocation sites of a port's allocation origins (Mono's origin_tracker.h,
// .NET's dotnet_origins.h): a managed stack
// (up to agent::kMaxSampleStackDepth methods, innermost first) -> a site id >= 1, and each
// method's name ("Namespace.Class.Method", UTF-8) for DescribeSite.
//
// Interning is O(depth) expected (a hash of the stack's method keys); names are computed by the
// caller's function, outside the table's lock, once per method. Sites are immutable once
// published and never removed. Ids, the bound and the fallback past it are the agent's
// (xrpm/protocol/allocation_sites.h), as in the emulator: id 1 is the empty stack; `max_sites`
// stacks (kMaxAllocationSites) are interned in full, then a new stack is recorded under its
// allocating method alone (truncated() counts these), and only when max_sites / 4 such
// one-method sites more are taken too does a stack get no id (kNoSite: the caller counts the
// sample as not recorded). Memory: 8 B of site pointer per possible site (640 KiB), then per
// site 264 B plus its map entry (8 B per method), per method its name.
//
// Thread-safety: Intern from any mutator thread (a mutex only mutators take, never held while
// calling into the runtime, so a mutator the runtime suspends while holding it blocks nobody the
// GC waits for). count() and site() read published sites lock-free, from any thread, including the
// GC thread while the world is stopped (a site is published with a release store after it is
// complete).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/agent/frame_events.h"
#include "xrpm/protocol/allocation_sites.h"

namespace xrpm {
namespace agent {

class SiteTable {
 public:
  struct Site {
    uint32_t depth = 0;
    const std::string* names[kMaxSampleStackDepth] = {};
  };
  // The name of a method key (called without the table's lock held, with Intern's `ctx`).
  using NameOf = std::string (*)(void* ctx, uint64_t method_key);

  explicit SiteTable(uint32_t max_sites = protocol::kMaxAllocationSites);
  SiteTable(const SiteTable&) = delete;
  SiteTable& operator=(const SiteTable&) = delete;

  // The id (>= 1) of the stack `keys[0..depth)` (innermost first; depth is clamped to
  // kMaxSampleStackDepth), interning it; past the bound the id of `keys[0]` alone; kNoSite
  // when even that finds no room.
  uint32_t Intern(const uint64_t* keys, uint32_t depth, NameOf name_of, void* ctx = nullptr);
  // New stacks recorded under their allocating method alone (the table was full).
  uint64_t truncated() const { return truncated_.load(std::memory_order_relaxed); }

  // Published sites are 1..count().
  uint32_t count() const { return count_.load(std::memory_order_acquire); }
  const Site& site(uint32_t id) const { return *sites_[id - 1].load(std::memory_order_acquire); }

 private:
  std::mutex mu_;                                      // Intern only
  std::unordered_map<std::string, uint32_t> ids_;      // stack bytes -> id
  std::unordered_map<uint64_t, std::string> methods_;  // nodes are stable: Site points in
  std::vector<std::unique_ptr<Site>> owned_;           // Intern only
  // With mu_ held: the id of `stack` if interned, else 0; past the bound, cuts *depth to 1
  // (and `stack` to its first key) first.
  uint32_t FindLocked(std::string* stack, uint32_t* depth);

  const uint32_t max_sites_;  // full stacks
  const uint32_t capacity_;   // max_sites_ + one-method stacks past the bound
  std::unique_ptr<std::atomic<const Site*>[]> sites_;  // capacity_
  std::atomic<uint32_t> count_{0};
  std::atomic<uint64_t> truncated_{0};
};

}  // namespace agent
}  // namespace xrpm
