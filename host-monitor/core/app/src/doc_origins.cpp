#include "xrpm/app/doc_origins.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "xrpm/model/human_format.h"

namespace xrpm::app {

const char* SiteGroupingName(SiteGrouping g) {
  switch (g) {
    case SiteGrouping::kSite:
      return "site";
    case SiteGrouping::kTypeSite:
      return "type-site";
    default:
      return "type";
  }
}

std::optional<SiteGrouping> SiteGroupingFromName(std::string_view name) {
  for (SiteGrouping g : {SiteGrouping::kType, SiteGrouping::kSite, SiteGrouping::kTypeSite})
    if (name == SiteGroupingName(g)) return g;
  return std::nullopt;
}

DocOrigins ComputeDocOrigins(const Snapshot& s) {
  DocOrigins o;
  o.ages = analysis::ComputeAgeHistogram(s);
  if (!s.has_origins()) return o;
  o.present = true;
  o.sampled = s.origins->sample_bytes > 0;
  o.known_objects = o.ages.known_count;
  o.sites = analysis::SiteStats(s);
  o.type_sites = analysis::TypeSiteStats(s);
  return o;
}

std::string NoOriginsNote(const Snapshot& s, std::string_view path) {
  if (s.has_origins()) return {};
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  std::string why;
  if (path.empty())
    why = s.capture ? "the device's agent did not send them (an agent older than allocation "
                      "origins)"
                    : "its source did not record them";
  else if (ext == ".xrpm")
    why = "this .xrpm file was saved without them";
  else if (!ext.empty())
    why = ext + " files cannot hold them";
  else
    why = "its file format cannot hold them";
  return "This capture has no allocation sites and ages \xE2\x80\x94 " + why +
         "; capture from a device or open an .xrpm that has them.";
}

namespace {
bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != hay.end();
}
}  // namespace

bool SiteRowMatches(const Snapshot& s, std::string_view type, uint32_t site,
                    std::string_view filter) {
  if (filter.empty() || ContainsNoCase(type, filter)) return true;
  return ContainsNoCase(analysis::SiteLabel(s, site, 0), filter);
}

uint32_t SiteOfObject(const Snapshot& s, uint32_t object) {
  if (!s.origin_known(object)) return kUnknownSite;
  const uint32_t site = s.object_alloc_site[object];
  return site < s.origins->sites.size() ? site : kUnknownSite;
}

std::string UnknownOriginNote(const Snapshot& s, uint32_t object) {
  if (!s.has_origins() || s.origin_known(object)) return {};
  return s.origins->sample_bytes > 0
             ? "(unknown) \xE2\x80\x94 this object's allocation was not sampled (one sample per " +
                   FormatBytes(s.origins->sample_bytes) + " allocated)"
             : "(unknown) \xE2\x80\x94 the runtime did not record this object's allocation";
}

std::string FramesText(uint64_t frames) {
  return FormatCount(frames) + (frames == 1 ? " frame" : " frames");
}

std::string AgeText(const Snapshot& s, uint32_t object) {
  if (!s.origin_known(object)) return UnknownOriginNote(s, object);
  return "age " + FramesText(s.age_frames(object)) + " (allocated in frame " +
         FormatCount(s.object_alloc_frame[object]) + "; captured at frame " +
         FormatCount(s.origins->capture_frame) + ")";
}

std::string AgeRangeText(const analysis::AgeBin& bin) {
  if (bin.last == UINT64_MAX) return "\xE2\x89\xA5 " + FramesText(bin.first);
  if (bin.first == bin.last) return FramesText(bin.first);
  return FormatCount(bin.first) + "\xE2\x80\x93" + FramesText(bin.last);
}

AgeRangeContents ContentsOfAge(const Snapshot& s, uint64_t first, uint64_t last) {
  AgeRangeContents c;
  c.first = first;
  c.last = last;
  if (!s.has_origins()) return c;
  std::vector<uint32_t> objects;
  for (uint32_t i = 0; i < s.object_count(); ++i) {
    if (!s.origin_known(i)) continue;
    const uint64_t age = s.age_frames(i);
    if (age < first || age > last) continue;
    objects.push_back(i);
    c.bytes += s.object_size[i];
  }
  c.count = objects.size();
  c.rows = analysis::TypeSiteStatsOf(s, objects);
  return c;
}

}  // namespace xrpm::app
