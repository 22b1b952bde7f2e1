#include "xrpm/app/leak_view.h"

#include <algorithm>
#include <map>

namespace xrpm::app {

std::vector<LeakRow> LeakRollup(const analysis::LeakReport& r, SiteGrouping grouping) {
  std::vector<LeakRow> rows;
  std::map<std::pair<std::string_view, uint32_t>, size_t> at;
  for (size_t i = 0; i < r.groups.size(); ++i) {
    const analysis::LeakGroup& g = r.groups[i];
    const std::string_view type = grouping == SiteGrouping::kSite ? std::string_view{} : g.type;
    const uint32_t site = grouping == SiteGrouping::kType ? kUnknownSite : g.site;
    auto [it, fresh] = at.try_emplace({type, site}, rows.size());
    if (fresh) rows.push_back({std::string(type), site, 0, 0, 0, 0, uint32_t(i)});
    LeakRow& row = rows[it->second];
    row.count += g.count;
    row.bytes += g.bytes;
    row.est_bytes += g.est_bytes;
    ++row.groups;  // groups come largest first: `largest` stays the first one seen
  }
  std::stable_sort(rows.begin(), rows.end(), [](const LeakRow& a, const LeakRow& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.count > b.count;
  });
  return rows;
}

}  // namespace xrpm::app
