// HeapFields: what a snapshot knows about the *contents* of its objects — each
// type's layout (instance fields with inherited ones, static fields, enum member names), which
// field or array slot holds each reference, a label per root (the static field, the method of a
// stack frame), and each object's values (primitive fields, string text, array lengths).
//
// Storage is columnar, never one heap allocation per object or reference:
//   - ref_slot: one u32 per reference (parallel to Snapshot::refs): the field index in the
//     holder's layout for a class instance, the element index for an array, kNoSlot unknown.
//     4 B/reference.
//   - root_label: one u32 per root (parallel to the root columns), an index into root_labels.
//   - values: one byte range per object (value_ranges.h: 4 B/object + the values' bytes).
//     An object's range is empty when its values were not captured; otherwise, by its type's
//     shape:
//       kClass:  the primitive fields' values packed in layout order, little-endian, each of
//                FieldKindWidth(kind) bytes (FieldLayout::value_offset locates one);
//       kString: u32 full length in UTF-16 units, u8 flags (bit 0: cut at the capture's cap),
//                then the (possibly cut) text in UTF-8 (unpaired surrogates as U+FFFD);
//       kArray:  u32 length (elements).
// Layouts are per type index (layouts.size() == types.size() when present, else empty).
//
// Everything is optional: snapshots from formats without it (.gclog, IBM, .gcdump, older .xrpm
// files and agents) have empty columns. present() says whether any of it is there.
//
// Thread-safety: a value, like Snapshot: build on one thread, then read from any number.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/pod_vector.h"
#include "xrpm/model/value_ranges.h"

namespace xrpm {

// The kind of one (flattened) instance field. The numbering is part of the .xrpm format.
enum class FieldKind : uint8_t {
  kReference = 0,
  kBoolean = 1,
  kChar = 2,
  kSByte = 3,
  kByte = 4,
  kInt16 = 5,
  kUInt16 = 6,
  kInt32 = 7,
  kUInt32 = 8,
  kInt64 = 9,
  kUInt64 = 10,
  kIntPtr = 11,  // stored as 8 bytes whatever the device's pointer size
  kSingle = 12,
  kDouble = 13,
  kEnum = 14,     // FieldLayout::underlying says which integer
  kUIntPtr = 15,  // stored as 8 bytes
};
inline constexpr uint8_t kFieldKindCount = 16;

// Bytes a value of this kind takes in the packed values (0 for references; enums: see
// FieldLayoutWidth).
uint32_t FieldKindWidth(FieldKind k);
std::string_view FieldKindName(FieldKind k);  // "reference", "Int32", "enum", ...
bool IsIntegerKind(FieldKind k);              // SByte..UInt64, IntPtr, UIntPtr, Char

// How a type's objects are laid out.
enum class TypeShape : uint8_t {
  kUnknown = 0,  // no layout was reported
  kClass = 1,    // an instance with fields (also boxed value types)
  kArray = 2,    // references are indexed by element
  kString = 3,   // System.String: text
};

inline constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

struct FieldLayout {
  std::string name;       // "bubbles"; embedded value-type fields flattened: "position.X"
  std::string type_name;  // declared type: "System.Collections.Generic.List`1<Bubble>"
  uint32_t offset = 0;    // byte offset in the object (as the device reported it)
  FieldKind kind = FieldKind::kReference;
  FieldKind underlying = FieldKind::kInt32;  // enums: the integer kind
  uint32_t enum_type = kNoSlot;              // enums: index into HeapFields::enums, or kNoSlot
  uint32_t value_offset = 0;  // where its value starts in the packed values (primitives)

  friend bool operator==(const FieldLayout&, const FieldLayout&) = default;
};

struct StaticFieldLayout {
  std::string name;
  std::string type_name;
  friend bool operator==(const StaticFieldLayout&, const StaticFieldLayout&) = default;
};

struct EnumMember {
  int64_t value = 0;  // the underlying value, sign-extended (unsigned kinds: as bits)
  std::string name;
  friend bool operator==(const EnumMember&, const EnumMember&) = default;
};

// An enum type's member names (where the runtime knows them).
struct EnumTypeInfo {
  std::string name;  // "Bubbles.BubbleState"
  std::vector<EnumMember> members;
  bool flags = false;  // [Flags]
  friend bool operator==(const EnumTypeInfo&, const EnumTypeInfo&) = default;
};

struct TypeLayout {
  TypeShape shape = TypeShape::kUnknown;
  std::vector<FieldLayout> fields;         // instance fields, inherited ones first
  std::vector<StaticFieldLayout> statics;  // static fields declared by the type
  uint32_t value_bytes = 0;                // packed width of the primitive fields

  friend bool operator==(const TypeLayout&, const TypeLayout&) = default;
};

// Width of one field's packed value.
uint32_t FieldLayoutWidth(const FieldLayout& f);
// Sets each field's value_offset and the layout's value_bytes (call after filling `fields`).
void PackLayout(TypeLayout& t);

// A string object's value, as decoded from its value bytes.
struct StringValue {
  std::string_view text;     // UTF-8, possibly cut
  uint32_t full_length = 0;  // UTF-16 units on the device
  bool cut = false;
};

struct HeapFields {
  std::vector<TypeLayout> layouts;  // per type index, or empty
  std::vector<EnumTypeInfo> enums;  // referenced by FieldLayout::enum_type
  uint32_t string_cap = 0;          // the capture's per-string cap in characters (0: unknown)
  bool values_captured = false;     // the capture asked for values (false: --no-values)

  PodVector<uint32_t> ref_slot;          // per reference, or empty
  PodVector<uint32_t> root_label;        // per root: index into root_labels or kNoSlot, or empty
  std::vector<std::string> root_labels;  // "Bubbles.GameEvents.Popped", "in Game1.Update, thread 1"

  ValueRanges values;  // per object, or empty

  bool has_layouts() const { return !layouts.empty(); }
  bool has_slots() const { return !ref_slot.empty(); }
  bool has_values() const { return !values.empty(); }
  bool present() const {
    return has_layouts() || has_slots() || has_values() || !root_label.empty();
  }

  // ---- building ----
  // Appends object values (call once per object, in object order, or never).
  void AddValues(std::span<const uint8_t> bytes) { values.Append(bytes); }
  // The value bytes of a string (for AddValues).
  static std::vector<uint8_t> EncodeString(std::string_view utf8, uint32_t full_length, bool cut);
  static std::vector<uint8_t> EncodeArrayLength(uint32_t length);

  // ---- reading ----
  std::span<const uint8_t> values_of(size_t object) const {
    if (object >= values.size()) return {};
    return values[object];
  }
  uint32_t slot_of(uint64_t ref) const { return ref < ref_slot.size() ? ref_slot[ref] : kNoSlot; }
  // The label of root record r ("" when unknown).
  std::string_view label_of_root(size_t r) const {
    if (r >= root_label.size() || root_label[r] >= root_labels.size()) return {};
    return root_labels[root_label[r]];
  }
  const TypeLayout* layout_of_type(uint32_t type_index) const {
    return type_index < layouts.size() ? &layouts[type_index] : nullptr;
  }

  size_t MemoryBytes() const;
  void ShrinkToFit();
  void Clear() { *this = HeapFields{}; }

  friend bool operator==(const HeapFields&, const HeapFields&) = default;
};

// What a snapshot's object contents amount to (`xrpm info`). O(types + refs + roots + objects).
struct HeapFieldsSummary {
  uint64_t type_layouts = 0;  // types with a known layout
  uint64_t known_slots = 0;   // references whose field or element is known
  uint64_t labelled_roots = 0;
  uint64_t objects_with_values = 0;
  uint64_t value_bytes = 0;  // the values' own bytes
  uint64_t model_bytes = 0;  // memory the contents take (HeapFields::MemoryBytes)
};
HeapFieldsSummary Summarize(const HeapFields& f);

// Decodes a string object's value bytes; false when they are not a well-formed string value.
bool DecodeStringValue(std::span<const uint8_t> bytes, StringValue* out);
// Decodes an array's value bytes; false when absent or malformed.
bool DecodeArrayLength(std::span<const uint8_t> bytes, uint32_t* length);

}  // namespace xrpm
