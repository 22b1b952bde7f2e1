#include "ecma_signature.h"

#include "type_names.h"

namespace xrpm {
namespace dotnet {

using agent::FieldKind;

agent::FieldKind PrimitiveKind(uint32_t et) {
  switch (et) {
    case kEtBoolean:
      return FieldKind::kBoolean;
    case kEtChar:
      return FieldKind::kChar;
    case kEtI1:
      return FieldKind::kSByte;
    case kEtU1:
      return FieldKind::kByte;
    case kEtI2:
      return FieldKind::kInt16;
    case kEtU2:
      return FieldKind::kUInt16;
    case kEtI4:
      return FieldKind::kInt32;
    case kEtU4:
      return FieldKind::kUInt32;
    case kEtI8:
      return FieldKind::kInt64;
    case kEtU8:
      return FieldKind::kUInt64;
    case kEtR4:
      return FieldKind::kSingle;
    case kEtR8:
      return FieldKind::kDouble;
    case kEtI:
      return FieldKind::kIntPtr;
    case kEtU:
    case kEtPtr:
    case kEtFnPtr:
      return FieldKind::kUIntPtr;
    case kEtString:
    case kEtClass:
    case kEtArray:
    case kEtObject:
    case kEtSzArray:
      return FieldKind::kReference;
    default:
      return FieldKind::kUnknown;
  }
}

// The primitive a type name stands for ("System.Int32": kInt32), or kUnknown.
agent::FieldKind PrimitiveByName(const std::string& name) {
  for (uint32_t et = kEtBoolean; et <= kEtU; ++et) {
    const char* n = PrimitiveName(et);
    if (n && name == n) return PrimitiveKind(et);
  }
  return FieldKind::kUnknown;
}

// ECMA-335 II.23.2 compressed unsigned integer at sig[*i]; false past the end.
bool ReadCompressed(const uint8_t* sig, size_t bytes, size_t* i, uint32_t* out) {
  if (*i >= bytes) return false;
  const uint8_t b = sig[*i];
  if ((b & 0x80) == 0) {
    *out = b;
    *i += 1;
  } else if ((b & 0xC0) == 0x80) {
    if (*i + 2 > bytes) return false;
    *out = (uint32_t{b & 0x3Fu} << 8) | sig[*i + 1];
    *i += 2;
  } else {
    if (*i + 4 > bytes) return false;
    *out = (uint32_t{b & 0x1Fu} << 24) | (uint32_t{sig[*i + 1]} << 16) |
           (uint32_t{sig[*i + 2]} << 8) | sig[*i + 3];
    *i += 4;
  }
  return true;
}

// A TypeDefOrRefOrSpecEncoded token (II.23.2.8).
bool ReadTypeToken(const uint8_t* sig, size_t bytes, size_t* i, cor::mdToken* token) {
  uint32_t coded = 0;
  if (!ReadCompressed(sig, bytes, i, &coded)) return false;
  static const cor::mdToken kTables[4] = {cor::kTokenTypeDef, cor::kTokenTypeRef, 0x1b000000, 0};
  *token = kTables[coded & 3] | (coded >> 2);
  return (coded & 3) != 3;
}

}  // namespace dotnet
}  // namespace xrpm
