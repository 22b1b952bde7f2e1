#include "xrpm/analysis/site_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "retained_by_key.h"
#include "xrpm/protocol/sampling.h"

namespace xrpm::analysis {
namespace {

// The object's site, kUnknownSite when not recorded (or out of range: a reader validates, but
// the analyses never index past the site table).
uint32_t SiteOf(const Snapshot& s, size_t i) {
  if (!s.origin_known(i)) return kUnknownSite;
  const uint32_t site = s.object_alloc_site[i];
  return site < s.origins->sites.size() ? site : kUnknownSite;
}

template <class Row>
void AddTo(const Snapshot& s, Row& r, size_t i) {
  const uint32_t size = s.object_size[i];
  ++r.count;
  r.bytes += size;
  const double w = r.site == kUnknownSite ? 1.0 : OriginWeight(s, size);
  r.est_count += w;
  r.est_bytes += w * size;
}

// Largest first: bytes, count; unknown last among equals, then by site.
template <class Row>
bool Larger(const Row& a, const Row& b) {
  if (a.bytes != b.bytes) return a.bytes > b.bytes;
  if (a.count != b.count) return a.count > b.count;
  return a.site < b.site;  // kUnknownSite is the largest index
}

template <class Each>
std::vector<SiteRow> CountSites(const Snapshot& s, Each each) {
  const size_t n_sites = s.origins ? s.origins->sites.size() : 0;
  std::vector<SiteRow> by_site(n_sites + 1);  // the last one is the unknown row
  for (size_t k = 0; k < n_sites; ++k) by_site[k].site = static_cast<uint32_t>(k);
  by_site[n_sites].site = kUnknownSite;
  each([&](size_t i) {
    const uint32_t site = SiteOf(s, i);
    AddTo(s, by_site[site == kUnknownSite ? n_sites : site], i);
  });
  std::erase_if(by_site, [](const SiteRow& r) { return r.count == 0; });
  std::sort(by_site.begin(), by_site.end(), Larger<SiteRow>);
  return by_site;
}

template <class Each>
std::vector<TypeSiteRow> CountTypeSites(const Snapshot& s, Each each) {
  // Types of one name share the first type index of that name.
  std::vector<uint32_t> canon(s.types.size());
  std::unordered_map<std::string_view, uint32_t> first;
  for (uint32_t t = 0; t < s.types.size(); ++t)
    canon[t] = first.try_emplace(s.types[t].name, t).first->second;

  std::vector<TypeSiteRow> rows;
  std::unordered_map<uint64_t, uint32_t> row_of;
  each([&](size_t i) {
    const uint32_t type = canon[s.object_type[i]];
    const uint32_t site = SiteOf(s, i);
    auto [it, fresh] =
        row_of.try_emplace(uint64_t(type) << 32 | site, static_cast<uint32_t>(rows.size()));
    if (fresh) rows.push_back({.type = s.types[type].name, .type_index = type, .site = site});
    AddTo(s, rows[it->second], i);
  });
  std::sort(rows.begin(), rows.end(), [](const TypeSiteRow& a, const TypeSiteRow& b) {
    if (a.bytes != b.bytes || a.count != b.count) return Larger(a, b);
    if (a.type != b.type) return a.type < b.type;
    return a.site < b.site;
  });
  return rows;
}

auto AllObjects(const Snapshot& s) {
  return [&s](auto&& f) {
    for (size_t i = 0; i < s.object_count(); ++i) f(i);
  };
}

auto Listed(std::span<const uint32_t> objects) {
  return [objects](auto&& f) {
    for (const uint32_t i : objects) f(i);
  };
}

}  // namespace

double OriginWeight(const Snapshot& s, uint32_t size) {
  if (!s.origins || s.origins->sample_bytes == 0) return 1.0;
  const double p = protocol::SampleProbability(size, s.origins->sample_bytes);
  return p > 0 ? 1.0 / p : 1.0;
}

std::vector<SiteRow> SiteStats(const Snapshot& s) {
  return CountSites(s, AllObjects(s));
}

std::vector<SiteRow> SiteStatsOf(const Snapshot& s, std::span<const uint32_t> objects) {
  return CountSites(s, Listed(objects));
}

std::vector<SiteRow> SiteStatsOfGroup(const GraphIndex& g, uint32_t group) {
  if (group >= g.group_count()) return {};
  return SiteStatsOf(g.snapshot(), g.Instances(group));
}

std::vector<TypeSiteRow> TypeSiteStats(const Snapshot& s) {
  return CountTypeSites(s, AllObjects(s));
}

std::vector<TypeSiteRow> TypeSiteStatsOf(const Snapshot& s, std::span<const uint32_t> objects) {
  return CountTypeSites(s, Listed(objects));
}

std::vector<uint64_t> SiteRetained(const GraphIndex& g, const DominatorTree& dom,
                                   const Progress& progress) {
  const Snapshot& s = g.snapshot();
  const uint32_t unknown = s.origins ? static_cast<uint32_t>(s.origins->sites.size()) : 0;
  std::vector<uint64_t> retained;
  AddRetainedByKey(
      dom, g.node_count(), unknown + 1,
      [&](uint32_t v) {
        const uint32_t site = SiteOf(s, v);
        return site == kUnknownSite ? unknown : site;
      },
      retained, progress, "sites: retained sizes");
  return retained;
}

std::vector<std::string> SiteMethods(const Snapshot& s, uint32_t site) {
  std::vector<std::string> out;
  if (!s.origins || site >= s.origins->sites.size()) return out;
  const AllocationOrigins& o = *s.origins;
  for (const uint32_t m : o.sites[site].methods)
    out.push_back(m < o.methods.size() ? o.methods[m] : "(method " + std::to_string(m) + ")");
  return out;
}

std::string SiteLabel(const Snapshot& s, uint32_t site, size_t max_methods,
                      std::string_view arrow) {
  if (!s.origins || site >= s.origins->sites.size()) return std::string(kUnknownSiteLabel);
  const std::vector<std::string> methods = SiteMethods(s, site);
  if (methods.empty()) return std::string(kNoManagedFrameLabel);
  const size_t shown = max_methods == 0 ? methods.size() : std::min(max_methods, methods.size());
  std::string out;
  for (size_t k = 0; k < shown; ++k) {
    if (k) out += arrow;
    out += methods[k];
  }
  if (shown < methods.size()) {
    out += arrow;
    out += "\xE2\x80\xA6";  // "…"
  }
  return out;
}

}  // namespace xrpm::analysis
