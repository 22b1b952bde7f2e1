// SplitIntoDomainSections: a capture whose runtime named its AppDomains (wire.proto
// HeapBatch.domain_names, TypeEntry.domain) becomes one AppDomain section per domain, as a
// NETCF dump has one `a ... c` section per AppDomain.
//
// Input: a snapshot assembled in walk order with a single section (the capture's: its version,
// start and end times, its name the app's), the domain names in the order the runtime created
// the domains (domain k = names[k - 1]) and each type's domain (0: the capture's own section).
// Output, in place: sections for domain 0 (only if some type belongs to it) and then every
// named domain in order, each with the capture's version and times; within a section its
// types, objects and roots keep their walk order. An object belongs to its type's domain, a
// root to its object's (a root whose object is not in the capture: to the first section).
// Allocation-origin columns and object contents (fields) move with their objects.
//
// Algorithm: counting sort by section (stable), O(types + objects + refs + roots); memory: a
// second copy of the columns while they are rebuilt, plus a seeded hash map of the rooted
// objects (SeededHash: crafted ids cannot force collisions).
//
// Thread-safety: plain function on a value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::client {

// type_domain[i] is the domain of snap->types[i]; every value <= names.size() (the caller has
// checked). With no names the snapshot is left as it is.
void SplitIntoDomainSections(Snapshot* snap, const std::vector<std::string>& names,
                             const std::vector<uint32_t>& type_domain);

}  // namespace xrpm::client
