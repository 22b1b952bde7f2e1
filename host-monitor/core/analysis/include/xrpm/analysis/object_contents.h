// What objects contain, for `xrpm show`, `xrpm instances` and the monitor:
//  - DescribeContents: one object's fields with their values or the objects they reference
//    (string text alongside), its string text or array length, its type's static fields, and its
//    referrers with the field of each that holds it.
//  - ListInstances: the instances of a type group that pass field filters ("IsAlive=false"),
//    in object order, with the matching count; the caller reads the columns it wants per row
//    (ReadFieldByName).
// Filters compare a field's displayed value (FormatValue: "false", "42", "Popped", "'A'"), a
// number numerically (so "1.50" matches 1.5), an enum by member name or number, a reference by
// the referenced string's text or by id ("1ce056", "null").
//
// Cost: DescribeContents O(fields + references in and out of the object), or O(E) to find the
// referrers without a reverse CSR (GraphIndex::Referrers); ListInstances
// O(instances x filters) after one field lookup per type.
// Thread-safety: pure functions over an immutable index and snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::analysis {

struct FieldRow {
  std::string name;  // "position.X"
  std::string type;  // declared type name, canonical (xrpm/model/type_name.h)
  FieldKind kind = FieldKind::kReference;
  FieldValue value;                 // kRef / kNull for references
  uint32_t ref_node = kNoIndex;     // the referenced object's node (kRef that resolves)
  std::optional<StringValue> text;  // the referenced object's text when it is a string
};

struct Referrer {
  uint32_t node = kNoIndex;
  std::string field;  // "_target", "[12]", "" when unknown
};

struct ObjectContents {
  uint32_t node = kNoIndex;
  bool has_layout = false;                 // the snapshot knows the type's layout
  std::vector<FieldRow> fields;            // instance fields in layout order
  std::optional<StringValue> text;         // a string's text
  std::optional<uint32_t> length;          // an array's length
  std::vector<StaticFieldLayout> statics;  // the type's static fields (canonical type names)
  std::vector<Referrer> referrers;         // in source order
};

// `referrers`: v's referrers as GraphIndex::Referrers lists them (one per reference, by
// source), for a caller that already has them; without, they are looked up (a scan of every
// reference when the index has no reverse CSR).
ObjectContents DescribeContents(const GraphIndex& g, uint32_t v);
ObjectContents DescribeContents(const GraphIndex& g, uint32_t v,
                                std::span<const uint32_t> referrers);

// A field filter "FIELD=VALUE".
struct FieldFilter {
  std::string field;
  std::string value;
};
// Parses "IsAlive=false"; nullopt when there is no '=' or no field name.
std::optional<FieldFilter> ParseFieldFilter(std::string_view text);

// Does object v's field match `value` (as described above)?
bool FieldMatches(const GraphIndex& g, uint32_t v, uint32_t field, std::string_view value);

// Object i's field `name`: {kMissing} when its type has no such field.
FieldValue ReadFieldByName(const Snapshot& s, size_t object, std::string_view name);

struct InstanceList {
  uint32_t group = kNoIndex;
  uint64_t count = 0;          // instances that pass the filters
  std::vector<uint32_t> rows;  // the first max_rows of them, in object order
};

// Throws std::invalid_argument naming the field and the type's fields when a filter names a
// field no instance's type has.
InstanceList ListInstances(const GraphIndex& g, uint32_t group, std::span<const FieldFilter> where,
                           size_t max_rows);

// Sorts object indices by field `name`: numbers (and booleans, chars, enums) numerically,
// references to strings by their text, other references by id; objects whose type lacks the
// field or whose value was not captured go last. Stable; O(n log n) after one read per object.
void SortByField(const GraphIndex& g, std::span<uint32_t> objects, std::string_view name,
                 bool descending);

// The union of the instance field names of a group's types, in layout order ("" types without
// a layout add nothing).
std::vector<std::string> GroupFieldNames(const GraphIndex& g, uint32_t group);

}  // namespace xrpm::analysis
