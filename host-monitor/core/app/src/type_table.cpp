#include "xrpm/app/type_table.h"

#include <algorithm>
#include <cctype>

#include "xrpm/model/type_histogram.h"

namespace xrpm::app {

TypeTable BuildTypeTable(const Snapshot& snap, std::span<const uint64_t> retained_by_type) {
  TypeTable table;
  table.has_retained = !retained_by_type.empty() && retained_by_type.size() == snap.type_count();
  for (const TypeHistogramRow& h : ComputeTypeHistogram(snap, {.merge_by_name = true})) {
    TypeRow r{h.type_index, h.count, h.bytes,
              table.has_retained ? retained_by_type[h.type_index] : kUnknown};
    table.rows.push_back(r);
    table.total_objects += h.count;
    table.total_bytes += h.bytes;
  }
  return table;
}

TypeTable WithRetained(const TypeTable& t, std::span<const uint64_t> retained_by_type) {
  TypeTable out = t;
  out.has_retained = true;
  for (TypeRow& r : out.rows)
    r.retained = r.type < retained_by_type.size() ? retained_by_type[r.type] : kUnknown;
  return out;
}

std::vector<uint32_t> InstancesOfType(const Snapshot& snap, uint32_t type) {
  // Every type index with this name (one per AppDomain section, or listed twice) counts.
  std::vector<uint8_t> match(snap.type_count(), 0);
  if (type < snap.type_count())
    for (size_t t = 0; t < snap.type_count(); ++t)
      match[t] = snap.types[t].name == snap.types[type].name;
  std::vector<uint32_t> out;
  const uint32_t* types = snap.object_type.data();
  for (uint32_t i = 0, n = snap.object_count(); i < n; ++i)
    if (types[i] < match.size() && match[types[i]]) out.push_back(i);
  return out;
}

void SortInstances(const Snapshot& snap, std::span<uint32_t> objects, InstanceOrder order,
                   bool descending, std::span<const uint64_t> retained) {
  if (order == InstanceOrder::kRetained && retained.size() != snap.object_count())
    order = InstanceOrder::kSize;
  auto key = [&](uint32_t o) -> uint64_t {
    switch (order) {
      case InstanceOrder::kSize:
        return snap.object_size[o];
      case InstanceOrder::kRetained:
        return retained[o];
      case InstanceOrder::kRefs:
        return snap.ref_end[o] - snap.ref_begin(o);
      case InstanceOrder::kIndex:
        return o;
    }
    return o;
  };
  std::stable_sort(objects.begin(), objects.end(), [&](uint32_t a, uint32_t b) {
    const uint64_t ka = key(a), kb = key(b);
    if (ka != kb) return descending ? ka > kb : ka < kb;
    return a < b;
  });
}

bool ContainsIgnoreCase(std::string_view h, std::string_view n) {
  if (n.empty()) return true;
  if (n.size() > h.size()) return false;
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  for (size_t i = 0; i + n.size() <= h.size(); ++i) {
    size_t k = 0;
    while (k < n.size() && lower(h[i + k]) == lower(n[k])) ++k;
    if (k == n.size()) return true;
  }
  return false;
}

const std::vector<uint32_t>& TypeListView::Update(const Snapshot& snap,
                                                  std::shared_ptr<const TypeTable> table,
                                                  std::string_view filter, TypeColumn column,
                                                  bool descending) {
  if (valid_ && table == table_ && filter == filter_ && column == column_ &&
      descending == descending_)
    return order_;
  table_ = std::move(table);
  filter_.assign(filter);
  column_ = column;
  descending_ = descending;
  valid_ = true;
  ++recomputes_;
  order_.clear();
  if (!table_) return order_;
  const auto& rows = table_->rows;
  for (uint32_t i = 0; i < rows.size(); ++i)
    if (ContainsIgnoreCase(snap.types[rows[i].type].name, filter_)) order_.push_back(i);

  auto key = [&](const TypeRow& r) -> uint64_t {
    switch (column_) {
      case TypeColumn::kCount:
        return r.count;
      case TypeColumn::kShallow:
        return r.shallow;
      case TypeColumn::kRetained:
        return r.retained == kUnknown ? r.shallow : r.retained;
      case TypeColumn::kName:
        return 0;
    }
    return 0;
  };
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    const TypeRow& ra = rows[a];
    const TypeRow& rb = rows[b];
    const std::string& na = snap.types[ra.type].name;
    const std::string& nb = snap.types[rb.type].name;
    if (column_ != TypeColumn::kName) {
      uint64_t ka = key(ra), kb = key(rb);
      if (ka != kb) return descending_ ? ka > kb : ka < kb;
      return na < nb;
    }
    if (na != nb) return descending_ ? na > nb : na < nb;
    return ra.type < rb.type;
  });
  return order_;
}

}  // namespace xrpm::app
