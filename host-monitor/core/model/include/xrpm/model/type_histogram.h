// Type histogram: how many objects of each type a snapshot holds and their shallow bytes.
// Shared by the CLI (`xrpm types`) and the GUI's types view. A row is a TypeHistogramRow (the
// analysis engine's per-type figures, retained sizes included, are analysis::TypeStat).
//
// Algorithm: one pass over the object columns counting per type index (O(objects)), then,
// when merging by name, one hash-map pass over the type table (O(types)).
//
// Thread-safety: pure functions of a const Snapshot; safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm {

struct TypeHistogramRow {
  std::string name;
  uint32_t type_index = 0;   // the first type (in type-table order) counted in this row
  uint32_t type_count = 1;   // how many type-table entries were merged into this row
  uint64_t count = 0;        // objects
  uint64_t bytes = 0;        // sum of their shallow sizes
  bool placeholder = false;  // the type had no `t` record
};

struct TypeHistogramOptions {
  // Merge types with the same name across AppDomain sections (type ids are per section).
  bool merge_by_name = true;
  std::optional<uint32_t> section;  // only objects of this section
  bool include_empty = false;       // also types without objects
};

enum class TypeSort { kCount, kBytes, kName };

// Rows in type-table order (first occurrence when merging).
std::vector<TypeHistogramRow> ComputeTypeHistogram(const Snapshot& snap,
                                                   const TypeHistogramOptions& opts = {});
// kCount / kBytes: descending, ties by the other figure then by name; kName: ascending.
void SortTypeHistogram(std::vector<TypeHistogramRow>& rows, TypeSort by);
// "count" / "bytes" / "name" -> TypeSort; nullopt for anything else.
std::optional<TypeSort> ParseTypeSort(std::string_view s);

}  // namespace xrpm
