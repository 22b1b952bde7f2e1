// DocOrigins: what the monitor's views show about where and when a snapshot's objects were
// allocated — per-site and per-(type, site) rows and the age histogram, computed once on the
// worker with the rest of DocAnalysis — plus the small helpers the views share: the note shown
// when a snapshot has no origins, an object's age line, the contents of an age range, and the
// view modes that group by allocation site.
//
// Never invents: when the snapshot has no origins `present` is false and the rows are empty;
// the views then show NoOriginsNote. Sampled captures (Mono) count the recorded objects and say
// so (`sampled`).
//
// Algorithm: ComputeDocOrigins is O(objects + sites) (site_stats.h, age_histogram.h);
// ContentsOfAge is one pass over the objects, O(objects), run when the user picks a bar.
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/age_histogram.h"
#include "xrpm/analysis/site_stats.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

// How the Types, Instances and Dominator tree views group: by type only (the classic views),
// by allocation site, or by (type, site).
enum class SiteGrouping { kType, kSite, kTypeSite };
const char* SiteGroupingName(SiteGrouping g);  // "type", "site", "type-site"
std::optional<SiteGrouping> SiteGroupingFromName(std::string_view name);

struct DocOrigins {
  bool present = false;  // the snapshot recorded origins
  bool sampled = false;  // only sampled objects have one (origins->sample_bytes > 0)
  uint64_t known_objects = 0;
  std::vector<analysis::SiteRow> sites;           // all objects by site, largest first
  std::vector<analysis::TypeSiteRow> type_sites;  // by (type, site), largest first
  analysis::AgeHistogram ages;                    // log2 bins
};

DocOrigins ComputeDocOrigins(const Snapshot& s);

// Why a snapshot shows no sites and ages, in plain words, naming where it came from: e.g.
// "This capture has no allocation sites and ages — .gclog files cannot hold them; capture from
// a device or open an .xrpm". `path`: the file it was read from ("" for captures).
std::string NoOriginsNote(const Snapshot& s, std::string_view path);

// "(unknown — not sampled)" style note for an object without an origin in a snapshot with
// origins; "" when the object's origin is known.
std::string UnknownOriginNote(const Snapshot& s, uint32_t object);
// "age 1,234 frames (allocated in frame 5,678 of 6,912)" for a known origin.
std::string AgeText(const Snapshot& s, uint32_t object);
// "1,234 frames" / "1 frame".
std::string FramesText(uint64_t frames);
// A bin's age range: "0 frames", "4–7 frames", "≥ 4,096 frames".
std::string AgeRangeText(const analysis::AgeBin& bin);

// What an age range holds: the objects whose age is in [first, last], by (type, site).
struct AgeRangeContents {
  uint64_t first = 0, last = 0;
  uint64_t count = 0, bytes = 0;
  std::vector<analysis::TypeSiteRow> rows;  // largest first
};
AgeRangeContents ContentsOfAge(const Snapshot& s, uint64_t first, uint64_t last);

// The Types view's filter on site rows: a case-insensitive substring of the type name (empty
// for site-only rows) or of any method of the site. O(label length).
bool SiteRowMatches(const Snapshot& s, std::string_view type, uint32_t site,
                    std::string_view filter);

// The object's site when known and in range, else kUnknownSite.
uint32_t SiteOfObject(const Snapshot& s, uint32_t object);

}  // namespace xrpm::app
