#include "xrpm_fields.h"

#include <stdexcept>

#include "xrpm_layout.h"

namespace xrpm::formats {
namespace {

constexpr uint8_t kFieldLayoutsVersion = 1;
// Smallest encodings, for BlobReader::Count: a field (two empty strings, offset, kind,
// underlying, enum index), a static field, an enum member, an enum type, a type layout.
constexpr size_t kMinFieldBytes = 4 + 4 + 4 + 1 + 1 + 4;
constexpr size_t kMinStaticBytes = 8;
constexpr size_t kMinMemberBytes = 8 + 4;
constexpr size_t kMinEnumBytes = 4 + 1 + 4;
constexpr size_t kMinLayoutBytes = 1 + 4 + 4;

}  // namespace

std::string EncodeFieldLayouts(const HeapFields& f) {
  BlobWriter w;
  w.U8(kFieldLayoutsVersion);
  w.U32(f.string_cap);
  w.U8(f.values_captured ? 1 : 0);
  w.U32(static_cast<uint32_t>(f.enums.size()));
  for (const EnumTypeInfo& e : f.enums) {
    w.Str(e.name);
    w.U8(e.flags ? 1 : 0);
    w.U32(static_cast<uint32_t>(e.members.size()));
    for (const EnumMember& m : e.members) {
      w.U64(static_cast<uint64_t>(m.value));
      w.Str(m.name);
    }
  }
  w.U32(static_cast<uint32_t>(f.layouts.size()));
  for (const TypeLayout& t : f.layouts) {
    w.U8(static_cast<uint8_t>(t.shape));
    w.U32(static_cast<uint32_t>(t.fields.size()));
    for (const FieldLayout& fl : t.fields) {
      w.Str(fl.name);
      w.Str(fl.type_name);
      w.U32(fl.offset);
      w.U8(static_cast<uint8_t>(fl.kind));
      w.U8(static_cast<uint8_t>(fl.underlying));
      w.U32(fl.enum_type);
    }
    w.U32(static_cast<uint32_t>(t.statics.size()));
    for (const StaticFieldLayout& s : t.statics) {
      w.Str(s.name);
      w.Str(s.type_name);
    }
  }
  return std::move(w.bytes());
}

void DecodeFieldLayouts(std::string_view blob, size_t type_count, HeapFields& f) {
  BlobReader r(blob);
  const uint8_t version = r.U8();
  if (version == 0) BadBlob("field layouts version 0 does not exist");
  f.string_cap = r.U32();
  const uint8_t values = r.U8();
  if (values > 1) BadBlob("values flag " + std::to_string(values) + ", expected 0 or 1");
  f.values_captured = values != 0;
  const uint32_t enums = r.Count(kMinEnumBytes);
  f.enums.resize(enums);
  for (EnumTypeInfo& e : f.enums) {
    e.name = r.Str();
    const uint8_t flags = r.U8();
    if (flags > 1)
      BadBlob("enum '" + e.name + "': flags byte " + std::to_string(flags) + ", expected 0 or 1");
    e.flags = flags != 0;
    const uint32_t n = r.Count(kMinMemberBytes);
    e.members.resize(n);
    for (EnumMember& m : e.members) {
      m.value = static_cast<int64_t>(r.U64());
      m.name = r.Str();
    }
  }
  const size_t at = r.pos();
  const uint32_t types = r.Count(kMinLayoutBytes);
  if (types != type_count)
    BadBlob("layouts of " + std::to_string(types) + " types at blob offset " + std::to_string(at) +
            ", but the file has " + std::to_string(type_count) + " types");
  f.layouts.resize(types);
  for (uint32_t t = 0; t < types; ++t) {
    TypeLayout& l = f.layouts[t];
    const uint8_t shape = r.U8();
    if (shape > static_cast<uint8_t>(TypeShape::kString))
      BadBlob("type " + std::to_string(t) + ": shape " + std::to_string(shape) + ", expected 0-3");
    l.shape = static_cast<TypeShape>(shape);
    const uint32_t fields = r.Count(kMinFieldBytes);
    l.fields.resize(fields);
    for (FieldLayout& fl : l.fields) {
      const size_t field_at = r.pos();
      fl.name = r.Str();
      fl.type_name = r.Str();
      fl.offset = r.U32();
      const uint8_t kind = r.U8(), underlying = r.U8();
      if (kind >= kFieldKindCount || underlying >= kFieldKindCount)
        BadBlob("type " + std::to_string(t) + " field '" + fl.name + "' (blob offset " +
                std::to_string(field_at) + "): kind " + std::to_string(kind) + " / " +
                std::to_string(underlying) + ", expected 0-15");
      fl.kind = static_cast<FieldKind>(kind);
      fl.underlying = static_cast<FieldKind>(underlying);
      if (fl.kind == FieldKind::kEnum && !IsIntegerKind(fl.underlying))
        BadBlob("type " + std::to_string(t) + " field '" + fl.name + "': an enum of kind " +
                std::string(FieldKindName(fl.underlying)) + ", expected an integer kind");
      fl.enum_type = r.U32();
      if (fl.enum_type != kNoSlot && fl.enum_type >= enums)
        BadBlob("type " + std::to_string(t) + " field '" + fl.name + "' names enum " +
                std::to_string(fl.enum_type) + " of " + std::to_string(enums));
    }
    const uint32_t statics = r.Count(kMinStaticBytes);
    l.statics.resize(statics);
    for (StaticFieldLayout& s : l.statics) {
      s.name = r.Str();
      s.type_name = r.Str();
    }
    PackLayout(l);
  }
  // Later versions append fields, which this version ignores.
  if (version == kFieldLayoutsVersion && r.left())
    BadBlob(std::to_string(r.left()) + " unexpected bytes after the field layouts");
}

std::string EncodeRootLabels(const HeapFields& f) {
  BlobWriter w;
  w.U32(static_cast<uint32_t>(f.root_labels.size()));
  for (const std::string& l : f.root_labels) w.Str(l);
  return std::move(w.bytes());
}

void DecodeRootLabels(std::string_view blob, HeapFields& f) {
  BlobReader r(blob);
  const uint32_t n = r.Count(kMinBlobStringBytes);
  f.root_labels.reserve(n);
  for (uint32_t i = 0; i < n; ++i) f.root_labels.push_back(r.Str());
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the root labels");
}

}  // namespace xrpm::formats
