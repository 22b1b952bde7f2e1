// What a type is, as the runtime that ran it knows it: a class, a value type (whose heap
// instances are boxes), an enum and its underlying integer, or an array with its rank and
// element type. Captures of agents that report traits carry them for every type (TypeEntry's
// kind); files of other sources (.gclog, .gcdump, heapdumps, captures of old agents) carry none,
// and then each type's kind is kUnknown: the analyses fall back to names and layouts.
//
// Thread-safety: plain data and pure functions, reentrant.
#pragma once

#include <cstdint>
#include <string>

namespace xrpm {

enum class TypeKind : uint8_t {
  kUnknown = 0,  // the source does not say
  kClass = 1,    // a reference type other than an array (System.String included)
  kValueType = 2,
  kEnum = 3,  // a value type too
  kArray = 4,
};
inline constexpr uint8_t kMaxTypeKindValue = 4;
inline constexpr uint32_t kMaxArrayRankValue = 32;  // the CLR's limit

struct TypeTraits {
  TypeKind kind = TypeKind::kUnknown;
  uint32_t array_rank = 0;      // kArray: 1 for T[], n for T[,...] (n dimensions)
  std::string enum_underlying;  // kEnum: "System.Int32" (canonical, type_name.h)
  std::string element_type;     // kArray: the element type (canonical), "" when not said

  bool known() const { return kind != TypeKind::kUnknown; }
  // A struct or an enum: its heap instances are boxes.
  bool value_type() const { return kind == TypeKind::kValueType || kind == TypeKind::kEnum; }

  friend bool operator==(const TypeTraits&, const TypeTraits&) = default;
};

// "class", "value type", "enum", "array", "unknown".
const char* TypeKindName(TypeKind k);

// How the monitor and the CLI say a type's traits: "value type", "enum of System.Int32",
// "array rank 2 of System.Int32", "class"; ", has finalizer" appended when `has_finalizer`;
// "" when nothing is known (no kind, no finalizer).
std::string DescribeTypeTraits(const TypeTraits& t, bool has_finalizer);

}  // namespace xrpm
