// Site statistics: where the live objects of a snapshot were allocated. For a set of objects
// (all of them, the instances of one type group, or any list) one row per allocation site with
// the objects and shallow bytes allocated there, largest first; objects whose origin the
// capture did not record (or all of them, when the snapshot has no origins) fall in one row
// with site kUnknownSite. TypeSiteStats breaks the same figures down by (type, site).
//
// Sampled origins (Mono: origins->sample_bytes > 0): only the sampled objects have a site, so
// count/bytes of a site row are the recorded (sampled) objects; est_count/est_bytes add the
// Horvitz-Thompson estimate of all live objects from that site, each sampled object weighted
// 1/p(size) with p = protocol::SampleProbability (xrpm/protocol/sampling.h). For complete origins
// and for the unknown row the estimate equals the recorded figures.
//
// Algorithm: SiteStats* count into an array indexed by site (O(objects + sites)) and sort the
// non-empty rows (O(k log k)). TypeSiteStats hashes (type name, site) pairs: O(objects)
// expected plus O(types) to merge type names.
//
// Thread-safety: pure functions of a const Snapshot (and GraphIndex); safe to call concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/progress.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::analysis {

struct SiteRow {
  uint32_t site = kUnknownSite;  // index into origins->sites, or kUnknownSite
  uint64_t count = 0;            // recorded objects
  uint64_t bytes = 0;            // their shallow bytes
  double est_count = 0;          // estimate of all live objects (see above)
  double est_bytes = 0;
};

// Rows ordered by bytes, then count, largest first (ties: by site, unknown last).
std::vector<SiteRow> SiteStats(const Snapshot& s);
std::vector<SiteRow> SiteStatsOf(const Snapshot& s, std::span<const uint32_t> objects);
// The instances of one type group of g (all types of one name).
std::vector<SiteRow> SiteStatsOfGroup(const GraphIndex& g, uint32_t group);

struct TypeSiteRow {
  std::string_view type;         // the type name (points into the snapshot's type table)
  uint32_t type_index = 0;       // the first type of that name in type-table order
  uint32_t site = kUnknownSite;  // as in SiteRow
  uint64_t count = 0;
  uint64_t bytes = 0;
  double est_count = 0;
  double est_bytes = 0;
};

// By (type name, site) over all objects, or over `objects` (object indices). Same order as
// SiteStats (ties: by type name).
std::vector<TypeSiteRow> TypeSiteStats(const Snapshot& s);
std::vector<TypeSiteRow> TypeSiteStatsOf(const Snapshot& s, std::span<const uint32_t> objects);

// Retained bytes per allocation site: entry k for site k, the last entry (origins->sites.size(),
// 0 without origins) for objects of unknown origin. A site's retained size counts its objects
// that no other object of the same site dominates (as TypeStats does per type): what the GC
// would free if every object allocated there went away. One dominator tree walk, O(N).
std::vector<uint64_t> SiteRetained(const GraphIndex& g, const DominatorTree& dom,
                                   const Progress& progress = {});

// The estimator weight 1/p(size) of an object with a known origin in s (1 when complete).
double OriginWeight(const Snapshot& s, uint32_t size);

// The site's methods, innermost first; empty for a depth-0 site and for kUnknownSite or an
// index out of range.
std::vector<std::string> SiteMethods(const Snapshot& s, uint32_t site);

// One line: the innermost `max_methods` methods joined by `arrow`, "…" after a final arrow
// when the stack is deeper (max_methods 0: all), e.g.
// "Bubbles.Bubble.OnSpawn ← Bubbles.BubbleField.Spawn ← Game1.Update".
// "(no managed frame)" for a depth-0 site, "(unknown)" for kUnknownSite (or out of range).
std::string SiteLabel(const Snapshot& s, uint32_t site, size_t max_methods = 3,
                      std::string_view arrow = " \xE2\x86\x90 ");

inline constexpr std::string_view kUnknownSiteLabel = "(unknown)";
inline constexpr std::string_view kNoManagedFrameLabel = "(no managed frame)";

}  // namespace xrpm::analysis
