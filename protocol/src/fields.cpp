// Field kinds and the value <-> wire word mapping (see fields.h).
#include "xrpm/protocol/fields.h"

#include "xrpm/protocol/column_codec.h"

namespace xrpm {
namespace protocol {

const char* FieldKindName(FieldKind k) {
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
    case FieldKind::kUIntPtr:
      return "UIntPtr";
    case FieldKind::kSingle:
      return "Single";
    case FieldKind::kDouble:
      return "Double";
    default:
      return "unknown";
  }
}

uint32_t FieldKindBytes(FieldKind k, uint32_t pointer_bytes) {
  switch (k) {
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
    case FieldKind::kDouble:
      return 8;
    case FieldKind::kIntPtr:
    case FieldKind::kUIntPtr:
      return pointer_bytes;
    default:
      return 0;
  }
}

bool IsSignedKind(FieldKind k) {
  return k == FieldKind::kSByte || k == FieldKind::kInt16 || k == FieldKind::kInt32 ||
         k == FieldKind::kInt64 || k == FieldKind::kIntPtr;
}

bool WordToValue(FieldKind k, uint64_t word, uint32_t pointer_bytes, uint64_t* bits) {
  const uint32_t width = FieldKindBytes(k, pointer_bytes);
  if (!IsValueKind(k) || width == 0 || width > 8) return false;
  if (k == FieldKind::kBoolean) {
    *bits = word;
    return word <= 1;
  }
  if (k == FieldKind::kSingle) {
    *bits = __builtin_bswap32(static_cast<uint32_t>(word));
    return word <= 0xFFFFFFFFu;
  }
  if (k == FieldKind::kDouble) {
    *bits = __builtin_bswap64(word);
    return true;
  }
  if (IsSignedKind(k)) {
    const int64_t v = UnZigZag(word);
    *bits = static_cast<uint64_t>(v);
    if (width == 8) return true;
    const int64_t lim = int64_t{1} << (8 * width - 1);
    return v >= -lim && v < lim;
  }
  *bits = word;
  return width == 8 || word < (uint64_t{1} << (8 * width));
}

uint64_t MaxWord(FieldKind k, uint32_t pointer_bytes) {
  const uint32_t width = FieldKindBytes(k, pointer_bytes);
  if (!IsValueKind(k) || width == 0 || width > 8) return 0;
  if (k == FieldKind::kBoolean) return 1;
  if (k == FieldKind::kSingle) return 0xFFFFFFFFu;
  return width == 8 ? UINT64_MAX : (uint64_t{1} << (8 * width)) - 1;
}

uint32_t RawLayout::ValueFieldCount() const {
  if (shape == TypeShape::kArray) return 1;
  if (shape == TypeShape::kString) return 0;
  uint32_t n = 0;
  for (const RawField& f : fields) n += IsValueKind(f.kind);
  return n;
}

}  // namespace protocol
}  // namespace xrpm
