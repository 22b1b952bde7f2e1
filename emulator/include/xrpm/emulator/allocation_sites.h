// SiteTable: the runtime-wide table of allocation sites. A site is the allocating managed
// thread's stack of method frames, innermost (allocating) method first, at most
// agent::kMaxSampleStackDepth (32) innermost frames, frames without a method (runtime-internal
// frames) left out. Each distinct stack is interned once and keeps its id for the runtime's life:
// ids are dense, >= 1, in order of first use; id 1 is the empty stack (allocated outside any
// managed frame), interned at construction. kNoSite (0) names no site.
//
// Ids, the bound and the fallback past it are the protocol's (xrpm/protocol/allocation_sites.h).
// Bound: at most `max_sites` stacks (default kMaxSites = 65,536) are interned in full. When the
// table is full, an allocation from a stack not seen yet is recorded under a shorter stack of its
// innermost methods: Intern keeps only the allocating method (a one-frame stack, interned past
// the bound), and Push builds on its caller's site as recorded, so frames called from such a
// site keep their innermost methods and lose the outer ones. The table holds at most
// protocol::SiteCapacity(max_sites) sites; past that a new stack gets kNoSite (no recorded
// origin) and a frame above it its method alone. truncated() counts the lookups that found the
// table full. Memory: about 130 B per site for a 10-deep stack (the method ids, once in a flat
// pool and once as the hash key, the hash nodes, the caller link).
//
// Algorithm: a hash map from the stack's method ids (as bytes) to the id: Intern is O(depth).
// Push(caller, method), the site of a frame called from a frame whose site is known, is one
// hash lookup of the (caller site, method) pair once that pair has been seen; the first time it
// is an Intern. The runtime calls Push once per frame that allocates (Frame::alloc_site caches
// the result for the frame's lifetime, since the frames below a frame never change while it
// lives), not once per allocation.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/emulator/method_table.h"
#include "xrpm/protocol/allocation_sites.h"

namespace xrpm::emulator {

using protocol::kNoSite;
using protocol::kOutsideManagedCode;  // the empty stack
using protocol::SiteId;

class SiteTable {
 public:
  static constexpr size_t kMaxSites = protocol::kMaxAllocationSites;

  explicit SiteTable(size_t max_sites = kMaxSites);

  // The id of the stack `methods[0..depth)`, innermost first (depth <= kMaxSampleStackDepth;
  // deeper stacks are cut to their innermost frames). Interns it on first use.
  SiteId Intern(const MethodId* methods, uint32_t depth);
  // The id of the stack `method` called from the stack of site `caller` (cut to the innermost
  // kMaxSampleStackDepth frames).
  SiteId Push(SiteId caller, MethodId method);

  // Number of sites; valid ids are 1..size().
  size_t size() const { return offsets_.size() - 1; }
  uint32_t depth(SiteId s) const { return offsets_[s] - offsets_[s - 1]; }
  // The site's methods, innermost first (depth(s) of them).
  const MethodId* methods(SiteId s) const { return pool_.data() + offsets_[s - 1]; }
  // Lookups of a new stack that found the table full (recorded under their innermost method).
  uint64_t truncated() const { return truncated_; }
  size_t MemoryBytes() const;

 private:
  SiteId Add(std::string key, const MethodId* methods, uint32_t depth);

  size_t max_sites_;
  std::vector<MethodId> pool_;     // every site's methods back to back
  std::vector<uint32_t> offsets_;  // site s spans pool_[offsets_[s-1], offsets_[s]); [0] = 0
  std::unordered_map<std::string, SiteId> by_stack_;
  std::unordered_map<uint64_t, SiteId> by_caller_;  // (caller << 32 | method) -> site
  uint64_t truncated_ = 0;
};

}  // namespace xrpm::emulator
