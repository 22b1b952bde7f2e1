// Fields and values of a heap capture: the decoded form of type layouts and enums,
// and how one value travels as a wire word (wire.proto "fields and values").
//
// A reference's *slot* is the index of its field in its type's layout (class instances, boxed
// value types) or its element index (arrays); a static root's slot is the index of its static
// field in the layout of the container's type. kNoSlot means not known.
//
// A value's canonical form (`bits`) is what the field holds, widened to 64 bits: unsigned kinds
// zero-extended, signed kinds sign-extended (so Int32 -1 is 0xFFFFFFFFFFFFFFFF), Single the
// 32 IEEE bits, Double the 64. On the wire it is a word: unsigned kinds as is, signed kinds
// ZigZag, Single / Double byte-swapped (a round number's zero mantissa bits go on top, so it
// takes 1-3 varint bytes). WordToValue refuses a word wider than its kind ("value of the wrong
// width"). O(1) each.
//
// Thread-safety: plain data and stateless functions, reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/protocol/column_codec.h"

namespace xrpm {
namespace protocol {

constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

// = wire::FieldKind values.
enum class FieldKind : uint8_t {
  kUnknown = 0,
  kReference = 1,
  kBoolean = 2,
  kChar = 3,
  kSByte = 4,
  kByte = 5,
  kInt16 = 6,
  kUInt16 = 7,
  kInt32 = 8,
  kUInt32 = 9,
  kInt64 = 10,
  kUInt64 = 11,
  kIntPtr = 12,
  kUIntPtr = 13,
  kSingle = 14,
  kDouble = 15,
};
constexpr uint32_t kMaxFieldKind = 15;

// = wire::TypeShape values.
enum class TypeShape : uint8_t { kClass = 0, kValueType = 1, kString = 2, kArray = 3 };
constexpr uint32_t kMaxTypeShape = 3;

// = wire::TypeKind values: what a type is, as its runtime knows it (TypeEntry.kind).
enum class TypeKind : uint8_t { kUnknown = 0, kClass = 1, kValueType = 2, kEnum = 3, kArray = 4 };
constexpr uint32_t kMaxTypeKind = 4;
// An array type's dimensions at most (the CLR's limit).
constexpr uint32_t kMaxArrayRank = 32;

// "Int32", "reference", ...; "unknown" for out-of-range values.
const char* FieldKindName(FieldKind k);
// Bytes a value of kind `k` takes (pointer kinds: pointer_bytes); 0 for kReference / kUnknown.
uint32_t FieldKindBytes(FieldKind k, uint32_t pointer_bytes);
// A value kind: neither kReference nor kUnknown.
inline bool IsValueKind(FieldKind k) {
  return k != FieldKind::kReference && k != FieldKind::kUnknown &&
         static_cast<uint32_t>(k) <= kMaxFieldKind;
}
bool IsSignedKind(FieldKind k);

// bits -> wire word (the agent). Bits beyond the kind's width are ignored (pointer kinds are
// taken as 64-bit).
// Inline: the agent calls it for every value word of a capture.
inline uint64_t ValueToWord(FieldKind k, uint64_t bits) {
  switch (k) {
    case FieldKind::kBoolean:
      return bits & 1;
    case FieldKind::kSByte:
      return ZigZag(static_cast<int8_t>(bits));
    case FieldKind::kInt16:
      return ZigZag(static_cast<int16_t>(bits));
    case FieldKind::kInt32:
      return ZigZag(static_cast<int32_t>(bits));
    case FieldKind::kInt64:
    case FieldKind::kIntPtr:
      return ZigZag(static_cast<int64_t>(bits));
    case FieldKind::kByte:
      return bits & 0xFF;
    case FieldKind::kChar:
    case FieldKind::kUInt16:
      return bits & 0xFFFF;
    case FieldKind::kUInt32:
      return bits & 0xFFFFFFFFu;
    case FieldKind::kSingle:
      return __builtin_bswap32(static_cast<uint32_t>(bits));
    case FieldKind::kDouble:
      return __builtin_bswap64(bits);
    default:  // kUInt64, kUIntPtr
      return bits;
  }
}

// wire word -> bits (the host). False when the word does not fit the kind (a Boolean over 1, an
// Int16 outside -32768..32767, ...) or the kind is not a value kind.
bool WordToValue(FieldKind k, uint64_t word, uint32_t pointer_bytes, uint64_t* bits);
// The largest word WordToValue accepts for value kind k: it accepts exactly the words
// 0..MaxWord (a ZigZag-coded signed kind of w bytes fills 0..2^(8w)-1 as an unsigned one does).
// 0 for a kind that is not a value kind (WordToValue accepts no word of it).
uint64_t MaxWord(FieldKind k, uint32_t pointer_bytes);

// A slot on the wire (heap_batch.h): 0 unknown, else 1 + ZigZag(slot - expected), expected =
// the same object's previous known slot + 1 in this batch (`prev`, kNoSlot at its first).
// Both update `prev`. WordToSlot returns false for a slot outside 0..kNoSlot-1.
inline uint64_t SlotToWord(uint32_t slot, uint32_t* prev) {
  if (slot == kNoSlot) return 0;
  const int64_t expected = *prev == kNoSlot ? 0 : int64_t{*prev} + 1;
  *prev = slot;
  const int64_t d = int64_t{slot} - expected;
  return 1 + ((static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63));
}
inline bool WordToSlot(uint64_t word, uint32_t* prev, uint32_t* slot) {
  if (word == 0) {
    *slot = kNoSlot;
    return true;
  }
  const uint64_t z = word - 1;
  if (z > (uint64_t{1} << 34)) return false;
  const int64_t d = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  const int64_t expected = *prev == kNoSlot ? 0 : int64_t{*prev} + 1;
  const int64_t v = expected + d;
  if (v < 0 || v >= int64_t{kNoSlot}) return false;
  *slot = *prev = static_cast<uint32_t>(v);
  return true;
}

struct RawField {
  std::string name;       // "position.X"
  std::string type_name;  // declared type
  uint32_t offset = 0;    // from the start of the object
  FieldKind kind = FieldKind::kUnknown;
  bool is_enum = false;
  uint32_t enum_id = 0;  // 0: members not known
};

struct RawStaticField {
  std::string name;
  std::string type_name;
  FieldKind kind = FieldKind::kUnknown;
};

struct RawLayout {
  uint32_t type_id = 0;
  TypeShape shape = TypeShape::kClass;
  std::vector<RawField> fields;  // slot = index
  std::vector<RawStaticField> statics;
  FieldKind element_kind = FieldKind::kUnknown;  // arrays
  std::string element_type_name;
  bool cut = false;  // the agent kept only the first fields / statics
  // Value words an instance has: its non-reference fields (classes, value types); 1 for
  // arrays; strings vary (1 + the code units sent).
  uint32_t ValueFieldCount() const;
};

struct RawEnum {
  uint32_t id = 0;
  std::string name;
  FieldKind underlying = FieldKind::kUnknown;
  std::vector<std::string> member_names;
  std::vector<uint64_t> member_values;  // canonical bits, member_values[i] <-> member_names[i]
};

}  // namespace protocol
}  // namespace xrpm
