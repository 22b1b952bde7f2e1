#include "xrpm/model/type_histogram.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace xrpm {

std::vector<TypeHistogramRow> ComputeTypeHistogram(const Snapshot& snap,
                                                   const TypeHistogramOptions& opts) {
  std::vector<uint64_t> count(snap.types.size(), 0), bytes(snap.types.size(), 0);
  uint64_t b = 0, e = snap.object_count();
  if (opts.section) {
    if (*opts.section >= snap.sections.size()) return {};
    b = snap.sections[*opts.section].objects_begin;
    e = snap.sections[*opts.section].objects_end;
  }
  const uint32_t* type = snap.object_type.data();
  const uint32_t* size = snap.object_size.data();
  for (uint64_t i = b; i < e; ++i) {
    if (type[i] >= count.size()) continue;  // not a valid type index; nothing to attribute
    ++count[type[i]];
    bytes[type[i]] += size[i];
  }

  std::vector<TypeHistogramRow> rows;
  std::unordered_map<std::string_view, size_t> by_name;
  for (uint32_t t = 0; t < snap.types.size(); ++t) {
    const TypeInfo& ti = snap.types[t];
    if (opts.section && ti.section != *opts.section) continue;
    if (!opts.include_empty && count[t] == 0) continue;
    if (opts.merge_by_name) {
      auto [it, fresh] = by_name.try_emplace(ti.name, rows.size());
      if (!fresh) {
        TypeHistogramRow& r = rows[it->second];
        r.count += count[t];
        r.bytes += bytes[t];
        r.placeholder = r.placeholder && ti.placeholder;
        ++r.type_count;
        continue;
      }
    }
    rows.push_back(TypeHistogramRow{ti.name, t, 1, count[t], bytes[t], ti.placeholder});
  }
  return rows;
}

void SortTypeHistogram(std::vector<TypeHistogramRow>& rows, TypeSort by) {
  auto key = [by](const TypeHistogramRow& r) {
    return by == TypeSort::kBytes ? std::pair(r.bytes, r.count) : std::pair(r.count, r.bytes);
  };
  if (by == TypeSort::kName) {
    std::stable_sort(
        rows.begin(), rows.end(),
        [](const TypeHistogramRow& a, const TypeHistogramRow& b) { return a.name < b.name; });
    return;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const TypeHistogramRow& a, const TypeHistogramRow& b) {
                     auto ka = key(a), kb = key(b);
                     if (ka != kb) return ka > kb;
                     return a.name < b.name;
                   });
}

std::optional<TypeSort> ParseTypeSort(std::string_view s) {
  if (s == "count") return TypeSort::kCount;
  if (s == "bytes") return TypeSort::kBytes;
  if (s == "name") return TypeSort::kName;
  return std::nullopt;
}

}  // namespace xrpm
