// TypeTable: the loaded classes of the emulated runtime and their NETCF 32-bit object layout.
//
// A class instance is the 8-byte header followed by its fields (base class fields first), each
// field 4-byte aligned: references, Int32, Single and Boolean take 4 bytes, Int64/TimeSpan and
// Vector2 take 8. Boxed value types (System.Int32, Microsoft.Xna.Framework.Vector2) are classes
// flagged value_type. Arrays are header + element count + elements; strings are header + length
// + UTF-16 characters + terminator. Every size is rounded up to 4 bytes.
//
// The type index doubles as the dump's type id and the class id of static containers. Indices 0
// and 1 are the heap's free-block pseudo-types and are never reported.
//
// Thread-safety: types are defined by the thread that owns the runtime (scenario setup, the game
// thread); lookups are safe concurrently with each other but not with DefineXxx.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xrpm/emulator/object_model.h"
#include "xrpm/protocol/fields.h"

namespace xrpm::emulator {

class Runtime;
using FinalizerFn = void (*)(Runtime& rt, Addr obj);

enum class FieldType : uint8_t { kRef, kInt32, kFloat, kBool, kInt64, kVector2 };
uint32_t FieldSize(FieldType t);

enum class TypeKind : uint8_t { kFree, kClass, kString, kArray };

struct FieldDesc {
  std::string name;
  FieldType type;
  uint16_t offset;        // from the object's address
  std::string type_name;  // the declared type; empty: the FieldType's own (DeclaredTypeName)
};

struct FieldSpec {
  const char* name;
  FieldType type;
  const char* type_name = nullptr;  // the declared type when it says more than `type` does
};

// The declared type of a field: its own name, else "System.Int32", "System.Single",
// "System.Boolean", "System.Int64", "Microsoft.Xna.Framework.Vector2", or "System.Object" for a
// reference.
const char* DeclaredTypeName(const FieldDesc& f);

struct ClassOptions {
  bool finalizable = false;  // instances are registered for finalization when allocated
  bool value_type = false;   // a boxed value type
  // An enum's box (value_type too): its underlying integer, reported as the type's trait.
  protocol::FieldKind enum_underlying = protocol::FieldKind::kUnknown;
  FinalizerFn finalizer = nullptr;  // what Finalize() does (may be null: nothing to release)
};

struct TypeDesc {
  std::string name;
  std::string assembly;
  TypeKind kind = TypeKind::kClass;
  TypeIndex parent = 0;        // 0: none
  uint32_t instance_size = 0;  // classes: whole object; arrays and strings: the fixed part (12)
  uint32_t element_size = 0;   // arrays: bytes per element; strings: 2
  bool element_is_ref = false;
  ClassOptions options;
  std::vector<FieldDesc> fields;      // including inherited ones
  std::vector<uint16_t> ref_offsets;  // offsets of reference fields, ascending
};

class TypeTable {
 public:
  static constexpr TypeIndex kNoType = 0xFFFFFFFFu;

  TypeTable();

  TypeIndex DefineClass(std::string name, std::string_view assembly, TypeIndex parent,
                        std::initializer_list<FieldSpec> fields, ClassOptions options = {});
  // Like DefineClass, with fields built at run time (synthetic types).
  TypeIndex DefineClass(std::string name, std::string_view assembly, TypeIndex parent,
                        const std::vector<FieldSpec>& fields, ClassOptions options = {});
  TypeIndex DefineArray(std::string name, std::string_view assembly, uint32_t element_size,
                        bool element_is_ref);
  // "<element name>[]" holding references.
  TypeIndex DefineRefArray(TypeIndex element, std::string_view assembly);
  TypeIndex DefineString(std::string_view assembly);

  const TypeDesc& operator[](TypeIndex t) const { return types_[t]; }
  size_t size() const { return types_.size(); }
  // Number of real classes (the pseudo-types excluded): the "Classes Loaded" counter.
  size_t loaded_classes() const { return types_.size() - kFirstRealType; }
  TypeIndex Find(std::string_view name) const;
  // Offset of a field by name; a missing field is a programming error (aborts with a message).
  uint16_t Offset(TypeIndex t, std::string_view field) const;

  // Size in bytes of the object whose header words are `hdr` (see object_model.h).
  uint32_t SizeOf(const uint32_t* hdr) const {
    const TypeDesc& t = types_[hdr[0] & kTypeMask];
    switch (t.kind) {
      case TypeKind::kClass:
        return t.instance_size;
      case TypeKind::kArray:
        return AlignObject(kArrayHeaderBytes + hdr[2] * t.element_size);
      case TypeKind::kString:
        return AlignObject(kArrayHeaderBytes + (hdr[2] + 1) * 2);
      case TypeKind::kFree:
        return (hdr[0] & kTypeMask) == kFree4Type ? 4 : hdr[1];
    }
    return 0;
  }

 private:
  TypeIndex Add(TypeDesc d);
  // Arrays and strings: a 12-byte fixed part and `element_size` bytes per element.
  TypeIndex DefineVariableSize(std::string name, std::string_view assembly, TypeKind kind,
                               uint32_t element_size, bool element_is_ref);
  std::vector<TypeDesc> types_;
  std::unordered_map<std::string, TypeIndex> by_name_;
};

}  // namespace xrpm::emulator
