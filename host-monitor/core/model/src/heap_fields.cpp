#include "xrpm/model/heap_fields.h"

#include <cstring>

namespace xrpm {

uint32_t FieldKindWidth(FieldKind k) {
  switch (k) {
    case FieldKind::kReference:
      return 0;
    case FieldKind::kBoolean:
    case FieldKind::kSByte:
    case FieldKind::kByte:
      return 1;
    case FieldKind::kChar:
    case FieldKind::kInt16:
    case FieldKind::kUInt16:
      return 2;
    case FieldKind::kInt32:
    case FieldKind::kUInt32:
    case FieldKind::kSingle:
      return 4;
    case FieldKind::kInt64:
    case FieldKind::kUInt64:
    case FieldKind::kIntPtr:
    case FieldKind::kUIntPtr:
    case FieldKind::kDouble:
      return 8;
    case FieldKind::kEnum:
      return 0;  // FieldLayoutWidth: the underlying kind's
  }
  return 0;
}

std::string_view FieldKindName(FieldKind k) {
  switch (k) {
    case FieldKind::kReference:
      return "reference";
    case FieldKind::kBoolean:
      return "Boolean";
    case FieldKind::kChar:
      return "Char";
    case FieldKind::kSByte:
      return "SByte";
    case FieldKind::kByte:
      return "Byte";
    case FieldKind::kInt16:
      return "Int16";
    case FieldKind::kUInt16:
      return "UInt16";
    case FieldKind::kInt32:
      return "Int32";
    case FieldKind::kUInt32:
      return "UInt32";
    case FieldKind::kInt64:
      return "Int64";
    case FieldKind::kUInt64:
      return "UInt64";
    case FieldKind::kIntPtr:
      return "IntPtr";
    case FieldKind::kSingle:
      return "Single";
    case FieldKind::kDouble:
      return "Double";
    case FieldKind::kEnum:
      return "enum";
    case FieldKind::kUIntPtr:
      return "UIntPtr";
  }
  return "unknown";
}

bool IsIntegerKind(FieldKind k) {
  switch (k) {
    case FieldKind::kChar:
    case FieldKind::kSByte:
    case FieldKind::kByte:
    case FieldKind::kInt16:
    case FieldKind::kUInt16:
    case FieldKind::kInt32:
    case FieldKind::kUInt32:
    case FieldKind::kInt64:
    case FieldKind::kUInt64:
    case FieldKind::kIntPtr:
    case FieldKind::kUIntPtr:
      return true;
    default:
      return false;
  }
}

uint32_t FieldLayoutWidth(const FieldLayout& f) {
  return FieldKindWidth(f.kind == FieldKind::kEnum ? f.underlying : f.kind);
}

void PackLayout(TypeLayout& t) {
  uint32_t at = 0;
  for (FieldLayout& f : t.fields) {
    f.value_offset = at;
    at += FieldLayoutWidth(f);
  }
  t.value_bytes = at;
}

std::vector<uint8_t> HeapFields::EncodeString(std::string_view utf8, uint32_t full_length,
                                              bool cut) {
  std::vector<uint8_t> b(5 + utf8.size());
  std::memcpy(b.data(), &full_length, 4);  // little-endian host (snapshot columns are native)
  b[4] = cut ? 1 : 0;
  if (!utf8.empty()) std::memcpy(b.data() + 5, utf8.data(), utf8.size());
  return b;
}

std::vector<uint8_t> HeapFields::EncodeArrayLength(uint32_t length) {
  std::vector<uint8_t> b(4);
  std::memcpy(b.data(), &length, 4);
  return b;
}

bool DecodeStringValue(std::span<const uint8_t> bytes, StringValue* out) {
  if (bytes.size() < 5 || bytes[4] > 1) return false;
  std::memcpy(&out->full_length, bytes.data(), 4);
  out->cut = bytes[4] != 0;
  out->text = std::string_view(reinterpret_cast<const char*>(bytes.data()) + 5, bytes.size() - 5);
  return true;
}

bool DecodeArrayLength(std::span<const uint8_t> bytes, uint32_t* length) {
  if (bytes.size() != 4) return false;
  std::memcpy(length, bytes.data(), 4);
  return true;
}

HeapFieldsSummary Summarize(const HeapFields& f) {
  HeapFieldsSummary s;
  for (const TypeLayout& t : f.layouts) s.type_layouts += t.shape != TypeShape::kUnknown;
  for (const uint32_t slot : f.ref_slot) s.known_slots += slot != kNoSlot;
  for (const uint32_t l : f.root_label) s.labelled_roots += l != kNoSlot;
  for (size_t i = 0; i < f.values.size(); ++i) s.objects_with_values += !f.values[i].empty();
  s.value_bytes = f.values.data.size();
  s.model_bytes = f.MemoryBytes();
  return s;
}

size_t HeapFields::MemoryBytes() const {
  size_t b = ref_slot.bytes_reserved() + root_label.bytes_reserved() + values.MemoryBytes();
  for (const TypeLayout& t : layouts) {
    b += sizeof(TypeLayout) + t.fields.capacity() * sizeof(FieldLayout) +
         t.statics.capacity() * sizeof(StaticFieldLayout);
    for (const FieldLayout& f : t.fields) b += f.name.capacity() + f.type_name.capacity();
    for (const StaticFieldLayout& f : t.statics) b += f.name.capacity() + f.type_name.capacity();
  }
  for (const EnumTypeInfo& e : enums) {
    b += sizeof(EnumTypeInfo) + e.name.capacity() + e.members.capacity() * sizeof(EnumMember);
    for (const EnumMember& m : e.members) b += m.name.capacity();
  }
  for (const std::string& l : root_labels) b += sizeof(std::string) + l.capacity();
  return b;
}

void HeapFields::ShrinkToFit() {
  ref_slot.shrink_to_fit();
  root_label.shrink_to_fit();
  values.shrink_to_fit();
  layouts.shrink_to_fit();
}

}  // namespace xrpm
