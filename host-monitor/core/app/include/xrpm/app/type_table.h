// TypeTable and TypeListView: the data behind the Types view, GUI-free.
//
// TypeTable holds one immutable row per type (instance count, shallow bytes and, once the
// analysis has run, retained bytes). TypeListView keeps the visible order for a filter and a
// sort column and recomputes it only when one of them (or the table) changes, so drawing a frame
// costs O(visible rows), not O(types log types) and never O(objects).
//
// Algorithms: BuildTypeTable is core's type histogram, O(objects + types).
// TypeListView::Update is a case-insensitive substring filter plus std::sort, O(T log T) for
// T types, run only on change.
//
// Thread-safety: TypeTable is immutable once built (share it freely); TypeListView belongs to
// one view (UI thread).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::app {

inline constexpr uint64_t kUnknown = ~uint64_t{0};

// One row per type NAME: types of the same name in several AppDomain sections are one row.
struct TypeRow {
  uint32_t type = 0;             // the first type index with this name
  uint64_t count = 0;            // instances
  uint64_t shallow = 0;          // sum of instance sizes
  uint64_t retained = kUnknown;  // bytes freed if every instance died (after analysis)
};

struct TypeTable {
  std::vector<TypeRow> rows;  // types with at least one instance
  uint64_t total_objects = 0;
  uint64_t total_bytes = 0;
  bool has_retained = false;
};

// Counts instances and shallow bytes per type name (core's type histogram).
// `retained_by_type` (indexed by type index, may be empty) fills the retained column.
TypeTable BuildTypeTable(const Snapshot& snap, std::span<const uint64_t> retained_by_type = {});

// A copy of `t` with the retained column filled from `retained_by_type` (per type index).
TypeTable WithRetained(const TypeTable& t, std::span<const uint64_t> retained_by_type);

enum class TypeColumn { kName, kCount, kShallow, kRetained };

// Case-insensitive ASCII substring test (type names are ASCII in practice).
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);

// Object indices of every instance of `type` (and of the other types of the same name), in
// snapshot order. O(types + objects).
std::vector<uint32_t> InstancesOfType(const Snapshot& snap, uint32_t type);

enum class InstanceOrder { kSize, kRetained, kRefs, kIndex };
// Sorts object indices for the Instances view; ties keep snapshot order. O(n log n).
// kRetained needs `retained` (per object index; else it sorts by size).
void SortInstances(const Snapshot& snap, std::span<uint32_t> objects, InstanceOrder order,
                   bool descending, std::span<const uint64_t> retained = {});

class TypeListView {
 public:
  // Returns row indices into table.rows, filtered by `filter` (substring of the type name,
  // case-insensitive; empty = all) and sorted by `column`. Ties break by name.
  const std::vector<uint32_t>& Update(const Snapshot& snap, std::shared_ptr<const TypeTable> table,
                                      std::string_view filter, TypeColumn column, bool descending);
  const std::vector<uint32_t>& rows() const { return order_; }
  uint64_t recomputes() const { return recomputes_; }  // for tests and the benchmark

 private:
  std::shared_ptr<const TypeTable> table_;
  std::string filter_;
  TypeColumn column_ = TypeColumn::kRetained;
  bool descending_ = true;
  bool valid_ = false;
  std::vector<uint32_t> order_;
  uint64_t recomputes_ = 0;
};

}  // namespace xrpm::app
