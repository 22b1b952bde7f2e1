#include "xrpm/analysis/diff.h"

#include <algorithm>
#include <map>

namespace xrpm::analysis {

HeapDiff DiffSummaries(std::span<const HeapSummary> snaps) {
  HeapDiff d;
  const size_t k = snaps.size();
  for (const auto& s : snaps) {
    d.sources.push_back(s.source);
    d.totals.push_back(s.totals);
  }
  for (size_t i = 1; i < k; ++i) {
    if (!snaps[i].apps.empty() && !snaps[0].apps.empty() && snaps[i].apps != snaps[0].apps)
      d.warnings.push_back("snapshot " + std::to_string(i + 1) + " (" + snaps[i].source +
                           ") is of " + snaps[i].apps.front() + ", snapshot 1 of " +
                           snaps[0].apps.front());
  }
  std::map<std::string_view, size_t> row_of;
  for (size_t i = 0; i < k; ++i) {
    for (const TypeSummary& t : snaps[i].types) {
      auto [it, fresh] = row_of.emplace(t.name, d.rows.size());
      if (fresh) {
        TypeSeries r;
        r.name = t.name;
        r.at.resize(k);
        r.present.assign(k, false);
        d.rows.push_back(std::move(r));
      }
      TypeSeries& r = d.rows[it->second];
      TypeSummary& cell = r.at[i];
      if (!r.present[i]) cell.name = t.name;
      cell.count += t.count;  // a name listed twice in one summary adds up
      cell.shallow_bytes += t.shallow_bytes;
      cell.retained_bytes += t.retained_bytes;
      r.present[i] = true;
    }
  }
  for (TypeSeries& r : d.rows) {
    if (k == 0) break;
    const TypeSummary &first = r.at.front(), &last = r.at.back();
    r.count_delta = int64_t(last.count) - int64_t(first.count);
    r.shallow_delta = int64_t(last.shallow_bytes) - int64_t(first.shallow_bytes);
    r.retained_delta = int64_t(last.retained_bytes) - int64_t(first.retained_bytes);
    r.is_new = !r.present.front() && r.present.back();
    r.vanished = r.present.front() && !r.present.back();
    r.grows_steadily = k > 1 && last.count > first.count;
    for (size_t i = 1; i < k; ++i) r.grows_steadily &= r.at[i].count >= r.at[i - 1].count;
  }
  std::sort(d.rows.begin(), d.rows.end(), [](const TypeSeries& a, const TypeSeries& b) {
    if (a.retained_delta != b.retained_delta) return a.retained_delta > b.retained_delta;
    if (a.shallow_delta != b.shallow_delta) return a.shallow_delta > b.shallow_delta;
    if (a.count_delta != b.count_delta) return a.count_delta > b.count_delta;
    return a.name < b.name;
  });
  return d;
}

}  // namespace xrpm::analysis
