// Reading what an object contains: its field values, the object each reference field
// holds, string text and array lengths, the name of the field or slot holding a reference, and
// the consistency check every reader and the capture assembler apply to Snapshot::fields.
//
// All functions read the snapshot's HeapFields (heap_fields.h); they return "missing" /
// nullopt / "" where the snapshot has no such information (older files, --no-values captures),
// never made-up values. Cost: a field value is O(1); a reference field or an edge's slot is
// O(references of the holder).
//
// Thread-safety: pure functions over an immutable snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"
#include "xrpm/model/utf16.h"

namespace xrpm {

struct FieldValue {
  enum class Kind : uint8_t {
    kMissing,   // not captured (or the snapshot has no values)
    kBool,      // b
    kSigned,    // i (SByte..Int64, IntPtr)
    kUnsigned,  // u (Byte..UInt64)
    kChar,      // u: a UTF-16 unit
    kFloat,     // d (Single, Double)
    kEnum,      // i (the underlying value, as bits for unsigned kinds), name when known
    kRef,       // ref: the referenced object's id
    kNull,      // a null reference
  };
  Kind kind = Kind::kMissing;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool single = false;         // kFloat: a Single (shown with the shortest text that reads back)
  std::string_view enum_name;  // kEnum: the member's name, "" when unknown
  ObjectId ref = 0;
};

// The layout of object i's type, or nullptr.
const TypeLayout* LayoutOf(const Snapshot& s, size_t object);

// Field `field` (index into the layout's fields) of object i.
FieldValue ReadField(const Snapshot& s, size_t object, uint32_t field);

// Display text: "true", "-3", "42", "3.5" (the shortest text that reads back as the same
// Single or Double), "'A'", "Popped" (or "7" for an unnamed enum value),
// "0x1ce056", "null", "?" (missing).
std::string FormatValue(const FieldValue& v);

// A string object's text; nullopt when i is not a string with a captured value.
std::optional<StringValue> StringOf(const Snapshot& s, size_t object);
// An array's length; nullopt when i is not an array or its length was not captured.
std::optional<uint32_t> ArrayLengthOf(const Snapshot& s, size_t object);

// The name of slot `slot` of holder object i: the field name ("bubbles"), "[12]" for an array
// element, "" when unknown.
std::string SlotName(const Snapshot& s, size_t holder, uint32_t slot);
// The slot through which `holder` references the object `target` (the first such reference),
// or kNoSlot.
uint32_t SlotOfEdge(const Snapshot& s, size_t holder, ObjectId target);
// SlotName(SlotOfEdge(...)).
std::string EdgeName(const Snapshot& s, size_t holder, ObjectId target);

// The first index of a field by name in a layout, or kNoSlot.
uint32_t FindField(const TypeLayout& t, std::string_view name);

// Text for display: the string shortened to `max_chars` code points with "…" when longer (or
// cut at the capture), as a quoted C#-like literal: "Bubble 42".
std::string QuoteString(std::string_view utf8, size_t max_chars, bool cut);

// Checks Snapshot::fields against the snapshot: column sizes, layouts (kinds, enum indices,
// packed offsets, fields inside the object), slots (a field index in range that names a
// reference field, an element index below the array's length), root labels, value ranges (one
// after the other inside the value bytes; a class object's values exactly its layout's packed
// width, string values well-formed with valid UTF-8 no longer than the object allows, array
// lengths). Returns "" when consistent, else the first problem with its object index or type
// ("object 12 (type 3): ..."). O(objects + refs), the objects split in chunks of about equal
// objects + references on `threads` threads (0: one per core, ResolveThreads); the problem
// reported is the same whatever the thread count. `part`, when given, receives which of the
// four the problem is in.
enum class FieldsPart : uint8_t { kLayouts, kSlots, kLabels, kValues };
std::string CheckFields(const Snapshot& s, FieldsPart* part = nullptr, unsigned threads = 1);

}  // namespace xrpm
