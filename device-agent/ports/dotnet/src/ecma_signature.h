// ECMA-335 signature blobs as the .NET port reads them from metadata (II.23.2): the element
// types (II.23.1.16), compressed unsigned integers, TypeDefOrRefOrSpec tokens, and the
// primitive field kind an element type or a primitive's name stands for. Shared by the field
// layouts (field_layouts.h) and the static roots (static_roots.h).
//
// Thread-safety: constants and pure functions. Bounds: every read checks `bytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "corprof_abi.h"
#include "xrpm/agent/heap_walker.h"

namespace xrpm {
namespace dotnet {

// ECMA-335 element types (II.23.1.16).
enum : uint8_t {
  kEtBoolean = 0x02,
  kEtChar = 0x03,
  kEtI1 = 0x04,
  kEtU1 = 0x05,
  kEtI2 = 0x06,
  kEtU2 = 0x07,
  kEtI4 = 0x08,
  kEtU4 = 0x09,
  kEtI8 = 0x0a,
  kEtU8 = 0x0b,
  kEtR4 = 0x0c,
  kEtR8 = 0x0d,
  kEtString = 0x0e,
  kEtPtr = 0x0f,
  kEtByRef = 0x10,
  kEtValueType = 0x11,
  kEtClass = 0x12,
  kEtVar = 0x13,
  kEtArray = 0x14,
  kEtGenericInst = 0x15,
  kEtI = 0x18,
  kEtU = 0x19,
  kEtFnPtr = 0x1b,
  kEtObject = 0x1c,
  kEtSzArray = 0x1d,
  kEtMVar = 0x1e,
  kEtCmodReqd = 0x1f,
  kEtCmodOpt = 0x20,
};
constexpr uint8_t kSigField = 0x06;

// The primitive field kind of element type `et` (kEtBoolean..kEtU), or kUnknown.
agent::FieldKind PrimitiveKind(uint32_t et);
// The primitive a type name stands for ("System.Int32": kInt32), or kUnknown.
agent::FieldKind PrimitiveByName(const std::string& name);
// The compressed unsigned integer at sig[*i] (II.23.2), advancing *i; false past the end.
bool ReadCompressed(const uint8_t* sig, size_t bytes, size_t* i, uint32_t* out);
// A TypeDefOrRefOrSpecEncoded token (II.23.2.8) at sig[*i], advancing *i.
bool ReadTypeToken(const uint8_t* sig, size_t bytes, size_t* i, cor::mdToken* token);

}  // namespace dotnet
}  // namespace xrpm
