#include "xrpm/analysis/object_contents.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "xrpm/analysis/paths.h"
#include "xrpm/model/human_format.h"
#include "xrpm/model/type_name.h"

namespace xrpm::analysis {
namespace {

std::optional<double> ParseNumber(std::string_view s) {
  double d = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return d;
}

std::string_view Unquote(std::string_view v) {
  if (v.size() >= 2 &&
      ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
    return v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

ObjectContents DescribeContents(const GraphIndex& g, uint32_t v) {
  if (v >= g.node_count()) return DescribeContents(g, v, {});
  const std::vector<uint32_t> in = g.Referrers(v);
  return DescribeContents(g, v, in);
}

ObjectContents DescribeContents(const GraphIndex& g, uint32_t v, std::span<const uint32_t> in) {
  const Snapshot& s = g.snapshot();
  ObjectContents c;
  c.node = v;
  if (v >= g.node_count()) return c;
  const TypeLayout* t = LayoutOf(s, v);
  c.has_layout = t && t->shape != TypeShape::kUnknown;
  if (t) {
    c.statics = t->statics;
    for (StaticFieldLayout& st : c.statics) st.type_name = CanonicalTypeName(st.type_name);
    for (uint32_t k = 0; k < t->fields.size(); ++k) {
      const FieldLayout& f = t->fields[k];
      FieldRow row{f.name,   CanonicalTypeName(f.type_name),
                   f.kind,   ReadField(s, v, k),
                   kNoIndex, std::nullopt};
      if (row.value.kind == FieldValue::Kind::kRef) {
        row.ref_node = g.Find(row.value.ref);
        if (row.ref_node != kNoIndex) row.text = StringOf(s, row.ref_node);
      }
      c.fields.push_back(std::move(row));
    }
  }
  c.text = StringOf(s, v);
  c.length = ArrayLengthOf(s, v);
  for (size_t k = 0; k < in.size(); ++k) {
    if (k > 0 && in[k] == in[k - 1]) continue;  // one row per referrer (sorted by source)
    c.referrers.push_back({in[k], HoldingField(g, in[k], v)});
  }
  return c;
}

std::optional<FieldFilter> ParseFieldFilter(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  return FieldFilter{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

FieldValue ReadFieldByName(const Snapshot& s, size_t object, std::string_view name) {
  const TypeLayout* t = LayoutOf(s, object);
  if (!t) return {};
  const uint32_t f = FindField(*t, name);
  return f == kNoSlot ? FieldValue{} : ReadField(s, object, f);
}

bool FieldMatches(const GraphIndex& g, uint32_t v, uint32_t field, std::string_view value) {
  const Snapshot& s = g.snapshot();
  const FieldValue x = ReadField(s, v, field);
  using K = FieldValue::Kind;
  const std::string_view want = Unquote(value);
  switch (x.kind) {
    case K::kMissing:
      return false;
    case K::kNull:
      return want == "null";
    case K::kRef: {
      if (want == FormatHexDigits(x.ref) || want == "0x" + FormatHexDigits(x.ref)) return true;
      const uint32_t n = g.Find(x.ref);
      const std::optional<StringValue> text = n == kNoIndex ? std::nullopt : StringOf(s, n);
      return text && !text->cut && text->text == want;
    }
    case K::kEnum:
      if (!x.enum_name.empty() && x.enum_name == want) return true;
      return want == std::to_string(x.i);
    case K::kChar:
      return FormatValue(x) == "'" + std::string(want) + "'" || FormatValue(x) == value;
    case K::kFloat: {
      const std::optional<double> d = ParseNumber(want);
      // Singles compare at single precision: "0.1" matches the float nearest 0.1.
      return d ? *d == x.d || static_cast<float>(*d) == static_cast<float>(x.d)
               : FormatValue(x) == want;
    }
    case K::kSigned:
    case K::kUnsigned:
    case K::kBool:
      return FormatValue(x) == want;
  }
  return false;
}

void SortByField(const GraphIndex& g, std::span<uint32_t> objects, std::string_view name,
                 bool descending) {
  const Snapshot& s = g.snapshot();
  struct Key {
    int cls;  // 0 number, 1 text, 2 missing
    double num;
    std::string text;
    uint32_t object;
  };
  std::vector<Key> keys;
  keys.reserve(objects.size());
  using K = FieldValue::Kind;
  for (const uint32_t o : objects) {
    const FieldValue v = ReadFieldByName(s, o, name);
    Key k{2, 0, {}, o};
    switch (v.kind) {
      case K::kBool:
        k = {0, v.b ? 1.0 : 0.0, {}, o};
        break;
      case K::kSigned:
      case K::kEnum:
        k = {0, static_cast<double>(v.i), {}, o};
        break;
      case K::kUnsigned:
      case K::kChar:
        k = {0, static_cast<double>(v.u), {}, o};
        break;
      case K::kFloat:
        k = {0, v.d, {}, o};
        break;
      case K::kNull:
        k = {1, 0, {}, o};
        break;
      case K::kRef: {
        const uint32_t n = g.Find(v.ref);
        const std::optional<StringValue> t = n == kNoIndex ? std::nullopt : StringOf(s, n);
        k = t ? Key{1, 0, std::string(t->text), o} : Key{0, static_cast<double>(v.ref), {}, o};
        break;
      }
      case K::kMissing:
        break;
    }
    keys.push_back(std::move(k));
  }
  std::stable_sort(keys.begin(), keys.end(), [descending](const Key& a, const Key& b) {
    if (a.cls != b.cls) return a.cls < b.cls;  // missing values last either way
    if (a.cls == 0 && a.num != b.num) return descending ? a.num > b.num : a.num < b.num;
    if (a.cls == 1 && a.text != b.text) return descending ? a.text > b.text : a.text < b.text;
    return false;
  });
  for (size_t i = 0; i < keys.size(); ++i) objects[i] = keys[i].object;
}

std::vector<std::string> GroupFieldNames(const GraphIndex& g, uint32_t group) {
  const Snapshot& s = g.snapshot();
  std::vector<std::string> names;
  for (uint32_t t = 0; t < s.fields.layouts.size() && t < s.type_count(); ++t) {
    if (g.group_of_type(t) != group) continue;
    for (const FieldLayout& f : s.fields.layouts[t].fields)
      if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  }
  return names;
}

InstanceList ListInstances(const GraphIndex& g, uint32_t group, std::span<const FieldFilter> where,
                           size_t max_rows) {
  const Snapshot& s = g.snapshot();
  InstanceList out;
  out.group = group;
  if (group >= g.group_count()) return out;
  // Per type index of the group: each filter's field index (kNoSlot: the type lacks it).
  std::vector<std::vector<uint32_t>> field_of(s.type_count());
  for (uint32_t t = 0; t < s.type_count(); ++t) {
    if (g.group_of_type(t) != group) continue;
    const TypeLayout* l = s.fields.layout_of_type(t);
    for (const FieldFilter& f : where) field_of[t].push_back(l ? FindField(*l, f.field) : kNoSlot);
  }
  for (size_t k = 0; k < where.size(); ++k) {
    bool known = false;
    for (const auto& fs : field_of) known |= !fs.empty() && fs[k] != kNoSlot;
    if (!known) {
      std::string msg = "type " + g.group_name(group) + " has no field '" + where[k].field + "'";
      const std::vector<std::string> names = GroupFieldNames(g, group);
      if (names.empty()) {
        msg += " (the snapshot has no field layouts for it)";
      } else {
        msg += "; its fields:";
        for (const std::string& n : names) msg += " " + n;
      }
      throw std::invalid_argument(msg);
    }
  }
  for (const uint32_t v : g.Instances(group)) {
    const std::vector<uint32_t>& fs = field_of[s.object_type[v]];
    bool ok = true;
    for (size_t k = 0; k < where.size() && ok; ++k)
      ok = fs[k] != kNoSlot && FieldMatches(g, v, fs[k], where[k].value);
    if (!ok) continue;
    ++out.count;
    if (out.rows.size() < max_rows) out.rows.push_back(v);
  }
  return out;
}

}  // namespace xrpm::analysis
