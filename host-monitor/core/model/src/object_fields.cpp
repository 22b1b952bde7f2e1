#include "xrpm/model/object_fields.h"
#include "xrpm/model/human_format.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "xrpm/model/fork_join.h"

namespace xrpm {
namespace {

template <class T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Decodes one code point at s[i] (well-formed input); advances i.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  uint32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (int k = 1; k < n && i + k < s.size(); ++k)
    cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return cp;
}

}  // namespace

const TypeLayout* LayoutOf(const Snapshot& s, size_t object) {
  if (object >= s.object_count()) return nullptr;
  return s.fields.layout_of_type(s.object_type[object]);
}

FieldValue ReadField(const Snapshot& s, size_t object, uint32_t field) {
  FieldValue v;
  const TypeLayout* t = LayoutOf(s, object);
  if (!t || field >= t->fields.size()) return v;
  const FieldLayout& f = t->fields[field];
  if (f.kind == FieldKind::kReference) {
    if (!s.fields.has_slots()) return v;
    const uint64_t b = s.ref_begin(object), e = s.ref_end[object];
    for (uint64_t r = b; r < e; ++r)
      if (s.fields.ref_slot[r] == field) {
        v.kind = FieldValue::Kind::kRef;
        v.ref = s.refs[r];
        return v;
      }
    v.kind = FieldValue::Kind::kNull;
    return v;
  }
  const std::span<const uint8_t> bytes = s.fields.values_of(object);
  const uint32_t w = FieldLayoutWidth(f);
  if (bytes.size() != t->value_bytes || f.value_offset + w > bytes.size()) return v;
  const uint8_t* p = bytes.data() + f.value_offset;
  const FieldKind k = f.kind == FieldKind::kEnum ? f.underlying : f.kind;
  using K = FieldValue::Kind;
  switch (k) {
    case FieldKind::kBoolean:
      v.kind = K::kBool, v.b = p[0] != 0;
      break;
    case FieldKind::kChar:
      v.kind = K::kChar, v.u = Load<uint16_t>(p);
      break;
    case FieldKind::kSByte:
      v.kind = K::kSigned, v.i = Load<int8_t>(p);
      break;
    case FieldKind::kByte:
      v.kind = K::kUnsigned, v.u = p[0];
      break;
    case FieldKind::kInt16:
      v.kind = K::kSigned, v.i = Load<int16_t>(p);
      break;
    case FieldKind::kUInt16:
      v.kind = K::kUnsigned, v.u = Load<uint16_t>(p);
      break;
    case FieldKind::kInt32:
      v.kind = K::kSigned, v.i = Load<int32_t>(p);
      break;
    case FieldKind::kUInt32:
      v.kind = K::kUnsigned, v.u = Load<uint32_t>(p);
      break;
    case FieldKind::kInt64:
    case FieldKind::kIntPtr:
      v.kind = K::kSigned, v.i = Load<int64_t>(p);
      break;
    case FieldKind::kUInt64:
    case FieldKind::kUIntPtr:
      v.kind = K::kUnsigned, v.u = Load<uint64_t>(p);
      break;
    case FieldKind::kSingle:
      v.kind = K::kFloat, v.d = Load<float>(p), v.single = true;
      break;
    case FieldKind::kDouble:
      v.kind = K::kFloat, v.d = Load<double>(p);
      break;
    default:
      return v;
  }
  if (f.kind == FieldKind::kEnum) {
    const int64_t raw = v.kind == K::kSigned ? v.i : static_cast<int64_t>(v.u);
    v = FieldValue{};
    v.kind = K::kEnum;
    v.i = raw;
    if (f.enum_type < s.fields.enums.size())
      for (const EnumMember& m : s.fields.enums[f.enum_type].members)
        if (m.value == raw) {
          v.enum_name = m.name;
          break;
        }
  }
  return v;
}

std::string FormatValue(const FieldValue& v) {
  using K = FieldValue::Kind;
  switch (v.kind) {
    case K::kMissing:
      return "?";
    case K::kBool:
      return v.b ? "true" : "false";
    case K::kSigned:
    case K::kEnum:
      if (v.kind == K::kEnum && !v.enum_name.empty()) return std::string(v.enum_name);
      return std::to_string(v.i);
    case K::kUnsigned:
      return std::to_string(v.u);
    case K::kChar: {
      std::string s = "'";
      const char16_t c = static_cast<char16_t>(v.u);
      s += Utf16ToUtf8(std::u16string_view(&c, 1));
      return s + "'";
    }
    case K::kFloat: {
      char b[40];
      const auto r = v.single ? std::to_chars(b, b + sizeof b, static_cast<float>(v.d))
                              : std::to_chars(b, b + sizeof b, v.d);
      return std::string(b, r.ptr);
    }
    case K::kRef:
      return FormatHex(v.ref);
    case K::kNull:
      return "null";
  }
  return "?";
}

std::optional<StringValue> StringOf(const Snapshot& s, size_t object) {
  const TypeLayout* t = LayoutOf(s, object);
  StringValue v;
  if (!t || t->shape != TypeShape::kString || !DecodeStringValue(s.fields.values_of(object), &v))
    return std::nullopt;
  return v;
}

std::optional<uint32_t> ArrayLengthOf(const Snapshot& s, size_t object) {
  const TypeLayout* t = LayoutOf(s, object);
  uint32_t n = 0;
  if (!t || t->shape != TypeShape::kArray || !DecodeArrayLength(s.fields.values_of(object), &n))
    return std::nullopt;
  return n;
}

std::string SlotName(const Snapshot& s, size_t holder, uint32_t slot) {
  const TypeLayout* t = LayoutOf(s, holder);
  if (!t || slot == kNoSlot) return {};
  if (t->shape == TypeShape::kArray) return "[" + std::to_string(slot) + "]";
  if (slot < t->fields.size()) return t->fields[slot].name;
  return {};
}

uint32_t SlotOfEdge(const Snapshot& s, size_t holder, ObjectId target) {
  if (!s.fields.has_slots() || holder >= s.object_count()) return kNoSlot;
  const uint64_t b = s.ref_begin(holder), e = s.ref_end[holder];
  for (uint64_t r = b; r < e; ++r)
    if (s.refs[r] == target) return s.fields.ref_slot[r];
  return kNoSlot;
}

std::string EdgeName(const Snapshot& s, size_t holder, ObjectId target) {
  return SlotName(s, holder, SlotOfEdge(s, holder, target));
}

uint32_t FindField(const TypeLayout& t, std::string_view name) {
  for (size_t k = 0; k < t.fields.size(); ++k)
    if (t.fields[k].name == name) return static_cast<uint32_t>(k);
  return kNoSlot;
}

std::string QuoteString(std::string_view utf8, size_t max_chars, bool cut) {
  std::string out = "\"";
  size_t i = 0, n = 0;
  while (i < utf8.size() && n < max_chars) {
    const size_t start = i;
    const uint32_t cp = NextCodePoint(utf8, i);
    ++n;
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (cp < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\x%02x", cp);
          out += b;
        } else {
          out.append(utf8.substr(start, i - start));
        }
    }
  }
  out += '"';
  if (i < utf8.size() || cut) out += "…";
  return out;
}

namespace {

// Per type: the field reaching furthest into the object (fields must lie inside it), and the
// one non-empty value length that needs no further look (a class's packed width; kNoSlot for
// strings and arrays, whose bytes are decoded).
struct TypeExtent {
  uint32_t extent = 0;
  uint32_t widest = kNoSlot;
  uint32_t class_values = kNoSlot;
};

// The per-object part of CheckFields over objects [begin, end): the first problem, or "".
std::string CheckObjects(const Snapshot& s, const std::vector<TypeExtent>& extents, size_t begin,
                         size_t end, FieldsPart& in) {
  const HeapFields& f = s.fields;
  const bool values = f.has_values(), slots = f.has_slots();
  for (size_t i = begin; i < end; ++i) {
    const uint32_t type = s.object_type[i];
    const TypeLayout& l = f.layouts[type];
    const uint32_t size = s.object_size[i];
    auto where = [&] {
      return "object " + FormatHex(s.object_id[i]) + " (type " + std::to_string(type) + "): ";
    };
    in = FieldsPart::kLayouts;
    if (l.shape == TypeShape::kClass && extents[type].extent > size) {
      const FieldLayout& fl = l.fields[extents[type].widest];
      return where() + "field '" + fl.name + "' at offset " + std::to_string(fl.offset) +
             " lies outside the object's " + std::to_string(size) + " bytes";
    }
    in = FieldsPart::kValues;
    std::optional<uint32_t> length;
    if (values) {
      // The ranges follow each other inside the bytes (true of every ValueRanges built by
      // Append or FinishLengths; within a chunk by construction, so only a chunk's first range
      // is compared with the previous chunk's last).
      const ValueRanges& vr = f.values;
      const size_t c = i >> ValueRanges::kChunkShift;
      const uint64_t b = vr.base[c], to = b + vr.end[i];
      uint64_t from = b;
      bool follows = true;
      if (i & (ValueRanges::kChunk - 1))
        from += vr.end[i - 1];
      else if (i)
        follows = vr.base[c - 1] + vr.end[i - 1] == b;
      if (!follows || to < from || to > vr.data.size())
        return where() + "values at bytes " + std::to_string(from) + ".." + std::to_string(to) +
               ", expected a range right after the previous object's within the " +
               std::to_string(vr.data.size()) + " value bytes";
      const std::span<const uint8_t> v(vr.data.data() + from, vr.data.data() + to);
      if (v.size() == extents[type].class_values) {
        // A class object's values of its layout's width: nothing more to check.
      } else if (!v.empty())
        switch (l.shape) {
          case TypeShape::kClass:
            if (v.size() != l.value_bytes)
              return where() + std::to_string(v.size()) + " value bytes, expected " +
                     std::to_string(l.value_bytes);
            break;
          case TypeShape::kString: {
            StringValue sv;
            if (!DecodeStringValue(v, &sv))
              return where() + "a malformed string value of " + std::to_string(v.size()) +
                     " bytes, expected a length, a flag (0 or 1) and UTF-8 text";
            if (!IsWellFormedUtf8(sv.text)) return where() + "string text that is not UTF-8";
            if (uint64_t{sv.full_length} * 2 > size)
              return where() + "string length " + std::to_string(sv.full_length) +
                     " beyond the object's " + std::to_string(size) + " bytes";
            if (!sv.cut && sv.text.size() > uint64_t{sv.full_length} * 3)
              return where() + "string text of " + std::to_string(sv.text.size()) +
                     " bytes, longer than its length " + std::to_string(sv.full_length) + " allows";
            break;
          }
          case TypeShape::kArray: {
            uint32_t n = 0;
            if (!DecodeArrayLength(v, &n))
              return where() + std::to_string(v.size()) + " value bytes, expected 4 (a length)";
            length = n;
            break;
          }
          case TypeShape::kUnknown:
            return where() + std::to_string(v.size()) + " value bytes for a type without a layout";
        }
    }
    if (!slots) continue;
    in = FieldsPart::kSlots;
    const uint64_t b = s.ref_begin(i), e = s.ref_end[i];
    for (uint64_t r = b; r < e; ++r) {
      const uint32_t slot = f.ref_slot[r];
      if (slot == kNoSlot) continue;
      if (l.shape == TypeShape::kArray) {
        if (length && slot >= *length)
          return where() + "reference " + std::to_string(r - b) + " names element " +
                 std::to_string(slot) + ", beyond the array's length " + std::to_string(*length);
      } else if (l.shape == TypeShape::kClass) {
        if (slot >= l.fields.size() || l.fields[slot].kind != FieldKind::kReference)
          return where() + "reference " + std::to_string(r - b) + " names field " +
                 std::to_string(slot) + ", expected a reference field of the " +
                 std::to_string(l.fields.size()) + " fields of its type";
      } else {
        return where() + "reference " + std::to_string(r - b) + " names slot " +
               std::to_string(slot) + ", but its type has no fields or elements";
      }
    }
  }
  return {};
}

}  // namespace

std::string CheckFields(const Snapshot& s, FieldsPart* part, unsigned threads) {
  FieldsPart scratch;
  FieldsPart& in = part ? *part : scratch;
  in = FieldsPart::kLayouts;
  const HeapFields& f = s.fields;
  auto count = [](const char* what, size_t have, size_t want) {
    return std::string(what) + " has " + std::to_string(have) + " entries, expected " +
           std::to_string(want);
  };
  if (f.has_layouts() && f.layouts.size() != s.type_count())
    return count("the type layout list", f.layouts.size(), s.type_count());
  in = FieldsPart::kSlots;
  if (f.has_slots() && f.ref_slot.size() != s.ref_count())
    return count("the reference slot column", f.ref_slot.size(), s.ref_count());
  in = FieldsPart::kLabels;
  if (!f.root_label.empty() && f.root_label.size() != s.root_count())
    return count("the root label column", f.root_label.size(), s.root_count());
  in = FieldsPart::kValues;
  if (f.has_values() && f.values.size() != s.object_count())
    return count("the value column", f.values.size(), s.object_count());
  if (f.has_values() &&
      f.values.base.size() != (f.values.size() + ValueRanges::kChunk - 1) / ValueRanges::kChunk)
    return count("the value chunk bases", f.values.base.size(),
                 (f.values.size() + ValueRanges::kChunk - 1) / ValueRanges::kChunk);
  in = FieldsPart::kLayouts;
  if ((f.has_slots() || f.has_values()) && !f.has_layouts())
    return "reference slots or values without type layouts";
  for (size_t t = 0; t < f.layouts.size(); ++t) {
    const TypeLayout& l = f.layouts[t];
    if (static_cast<uint8_t>(l.shape) > 3)
      return "type " + std::to_string(t) + ": shape " + std::to_string(int(l.shape)) +
             ", expected 0-3";
    uint32_t packed = 0;
    for (size_t k = 0; k < l.fields.size(); ++k) {
      const FieldLayout& fl = l.fields[k];
      const std::string where =
          "type " + std::to_string(t) + " field " + std::to_string(k) + " '" + fl.name + "': ";
      if (static_cast<uint8_t>(fl.kind) >= kFieldKindCount)
        return where + "kind " + std::to_string(int(fl.kind)) + ", expected 0-15";
      if (fl.kind == FieldKind::kEnum && !IsIntegerKind(fl.underlying))
        return where + "an enum of kind " + std::to_string(int(fl.underlying)) +
               ", expected an integer kind";
      if (fl.enum_type != kNoSlot && fl.enum_type >= f.enums.size())
        return where + "enum type " + std::to_string(fl.enum_type) + " of " +
               std::to_string(f.enums.size());
      if (fl.value_offset != packed)
        return where + "value offset " + std::to_string(fl.value_offset) + ", expected " +
               std::to_string(packed);
      packed += FieldLayoutWidth(fl);
    }
    if (packed != l.value_bytes)
      return "type " + std::to_string(t) + ": " + std::to_string(l.value_bytes) +
             " value bytes, expected " + std::to_string(packed);
  }
  in = FieldsPart::kLabels;
  for (size_t r = 0; r < f.root_label.size(); ++r)
    if (f.root_label[r] != kNoSlot && f.root_label[r] >= f.root_labels.size())
      return "root " + std::to_string(r) + " names label " + std::to_string(f.root_label[r]) +
             " of " + std::to_string(f.root_labels.size());
  in = FieldsPart::kValues;
  if (f.has_values() && f.values.size() &&
      f.values.base.back() + f.values.end.back() != f.values.data.size())
    return "the last object's values end at byte " +
           std::to_string(f.values.base.back() + f.values.end.back()) + " of the " +
           std::to_string(f.values.data.size()) + " value bytes, expected the last";
  if (!f.has_layouts()) return {};
  std::vector<TypeExtent> extents(f.layouts.size());
  for (size_t t = 0; t < f.layouts.size(); ++t) {
    if (f.layouts[t].shape == TypeShape::kClass && f.layouts[t].value_bytes)
      extents[t].class_values = f.layouts[t].value_bytes;
    for (size_t k = 0; k < f.layouts[t].fields.size(); ++k) {
      const FieldLayout& fl = f.layouts[t].fields[k];
      const uint64_t end =
          uint64_t{fl.offset} + (fl.kind == FieldKind::kReference ? 1 : FieldLayoutWidth(fl));
      if (end > extents[t].extent)
        extents[t].extent = static_cast<uint32_t>(std::min<uint64_t>(end, ~0u)),
        extents[t].widest = static_cast<uint32_t>(k);
    }
  }
  // Objects in chunks of about equal objects + references, one worker each; the problem of the
  // lowest chunk that has one is the serial check's first problem.
  const std::vector<size_t> bounds = WeightedBounds(s.object_count(), ResolveThreads(threads),
                                                    [&](size_t i) { return s.ref_begin(i); });
  std::vector<std::string> problems(bounds.size() - 1);
  std::vector<FieldsPart> parts(bounds.size() - 1, FieldsPart::kValues);
  RunChunks(bounds, [&](size_t k, size_t begin, size_t end) {
    problems[k] = CheckObjects(s, extents, begin, end, parts[k]);
  });
  for (size_t k = 0; k < problems.size(); ++k)
    if (!problems[k].empty()) {
      in = parts[k];
      return problems[k];
    }
  return {};
}

}  // namespace xrpm
