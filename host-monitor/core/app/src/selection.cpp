// Selection (selection.h): what is selected in the active snapshot: type, object, site, age bin.
// Thread-safety: UI thread only.
#include "xrpm/app/selection.h"

#include "xrpm/app/documents.h"
#include "xrpm/app/inspection_rows.h"
#include "xrpm/model/type_name.h"

namespace xrpm::app {

bool Selection::SelectType(const std::string& name) {
  SnapshotDoc* d = docs_.active();
  if (!d || !d->snapshot) return false;
  const auto& types = d->snapshot->types;
  // Either form of the name: canonical (or another source's form of it) or as written.
  const std::string canonical = CanonicalTypeName(name);
  auto named = [&](const TypeInfo& t) { return t.name == canonical || t.written_name() == name; };
  int64_t found = -1;
  if (d->types)
    for (const auto& row : d->types->rows)  // prefer a type that has instances
      if (named(types[row.type])) {
        found = row.type;
        break;
      }
  if (found < 0)
    for (size_t t = 0; t < types.size(); ++t)
      if (named(types[t])) {
        found = static_cast<int64_t>(t);
        break;
      }
  if (found < 0) return false;
  d->selection.type = found;
  d->selection.object = -1;
  d->selection.site.reset();
  return true;
}

bool Selection::SelectObject(uint64_t object_index) {
  SnapshotDoc* d = docs_.active();
  if (!d || !d->snapshot || object_index >= d->snapshot->object_count()) return false;
  d->selection.object = static_cast<int64_t>(object_index);
  return true;
}

bool Selection::SelectFinding(const std::string& name, size_t n) {
  SnapshotDoc* d = docs_.active();
  if (!d || !d->analysis) return false;
  const std::optional<InspectionRow> r = FindInspectionRow(*d->analysis, name, n);
  if (!r || r->object == kNoIndex) return false;
  d->selection.type = r->type;
  d->selection.site.reset();
  d->selection.object = r->object;
  return true;
}

bool Selection::SelectSite(const std::string& text) {
  SnapshotDoc* d = docs_.active();
  if (!d || !d->snapshot || !d->snapshot->has_origins()) return false;
  if (text == "all") {
    d->selection.site.reset();
    return true;
  }
  if (text == "unknown") {
    d->selection.site = kUnknownSite;
    return true;
  }
  const Snapshot& s = *d->snapshot;
  std::vector<analysis::SiteRow> rows;
  if (d->selection.type >= 0 && d->analysis)
    rows = analysis::SiteStatsOfGroup(d->analysis->index(),
                                      d->analysis->index().group_of_type(d->selection.type));
  else if (d->analysis)
    rows = d->analysis->origins.sites;
  for (const auto& r : rows)
    if (r.site != kUnknownSite &&
        analysis::SiteLabel(s, r.site, 0).find(text) != std::string::npos) {
      d->selection.site = r.site;
      return true;
    }
  return false;
}

bool Selection::SelectAgeBin(const std::string& what) {
  SnapshotDoc* d = docs_.active();
  if (!d || !d->analysis || !d->analysis->origins.present) return false;
  const auto& bins = d->analysis->origins.ages.bins;
  int64_t pick = -1;
  for (size_t i = 0; i < bins.size(); ++i) {
    if (bins[i].count == 0) continue;
    if (what == "oldest" || (what == "largest" && (pick < 0 || bins[i].bytes > bins[pick].bytes)))
      pick = int64_t(i);
    else if (what != "largest" && what != "oldest") {
      uint64_t age = 0;
      try {
        age = std::stoull(what);
      } catch (const std::exception&) {
        return false;
      }
      if (bins[i].first <= age && age <= bins[i].last) pick = int64_t(i);
    }
  }
  if (pick < 0) return false;
  d->selection.age_bin = pick;
  return true;
}

}  // namespace xrpm::app
