// Allocation sites as every runtime numbers them for the agent's walker API (heap_walker.h:
// DescribeSite, ObjectOrigin) and the frame events: a site is an allocating thread's managed
// stack, at most kMaxStackDepth (constants.h) innermost methods, innermost first,
// interned once per runtime's life under a dense id. The emulator's table
// (xrpm/emulator/allocation_sites.h) and the Mono port's (xrpm/agent/site_table.h) differ
// only in their threading; the ids, the bound and what happens past it are these.
//
// Bound: kMaxAllocationSites stacks are interned in full. Past it, a stack not seen yet is
// recorded under the one-frame stack of its allocating method, interned past the bound (the
// caller of that method is lost, the method is not); a table counts these as truncated. Such
// one-frame stacks fill the table up to SiteCapacity; past that, a new stack gets kNoSite (its
// objects have no recorded origin).
//
// Thread-safety: constants only.
#pragma once

#include <cstdint>

namespace xrpm {
namespace protocol {

using SiteId = uint32_t;
// No site: the object has no recorded origin.
constexpr SiteId kNoSite = 0;
// The empty stack (allocated outside any managed frame): interned first by every table.
constexpr SiteId kOutsideManagedCode = 1;
constexpr uint32_t kMaxAllocationSites = 1u << 16;
// Every id a table with `max_sites` full stacks may hand out: a quarter more (at least one) for
// the one-frame stacks past the bound.
constexpr uint32_t SiteCapacity(uint32_t max_sites) {
  return max_sites + (max_sites / 4 > 0 ? max_sites / 4 : 1);
}

}  // namespace protocol
}  // namespace xrpm
