// FieldChecker: the capture-wide checks of a fields / values capture that one batch
// cannot make alone, and the capture's layout and enum tables. The host runs every decoded
// batch (DecodeHeapBatch) through Check, in order, before it keeps anything from it.
//
// It refuses, with the batch, object id and what was expected and found:
//   - fields or values in a capture whose CaptureBegin did not announce them, or a batch of a
//     fields capture without its slot columns (values capture: value counts);
//   - a layout for a type the capture does not hold (not in a TypeEntry so far), a second
//     layout for a type, an enum defined twice, a field naming an undefined enum;
//   - a root slot outside the statics of its kClass container's type (or on another container);
//   - a reference slot for an object without a layout, out of range for its type (field index
//     >= the field count, a slot on a non-reference field, an element index >= the array's
//     length when its length is known), or on a string;
//   - a layout whose field lies outside an object of that type (offset + width > size);
//   - values for an object without a layout, a word count other than the layout's, a word
//     wider than its kind (fields.h WordToValue), a string longer than its object (2 bytes
//     per code unit) or with other than min(length, string_cap) code units, a code unit over
//     0xFFFF, an array longer than its object allows.
// Invalid UTF-16 is not an error: code units are kept as sent and shown with U+FFFD.
//
// Cost: O(batch size) per Check; memory: the layouts and enums (bounded by the capture's
// type table and the batch limits), one name per type, and the containers' kind and id1.
//
// Thread-safety: none; one capture, one thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/protocol/dense_type_ids.h"
#include "xrpm/protocol/fields.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {

class FieldChecker {
 public:
  // From CaptureBegin (fields, values, string_cap) and the Welcome (pointer_bytes: 4 or 8).
  FieldChecker(bool fields, bool values, uint32_t string_cap, uint32_t pointer_bytes);

  // Checks `b` (batch `seq` of the capture) against what came before and records its types,
  // containers, layouts and enums. On failure returns false with *error set; the capture is
  // then to be refused (the checker's state is unspecified).
  bool Check(const RawBatch& b, uint32_t seq, std::string* error);

  // null: none (yet). The pointer is valid until the next Check.
  const RawLayout* Layout(uint32_t type_id) const;
  const RawEnum* Enum(uint32_t enum_id) const;
  bool fields() const { return fields_; }
  bool values() const { return values_; }

 private:
  struct TypeInfo {
    std::string name;
    int32_t layout = -1;       // index in layouts_
    uint64_t extent = 0;       // max offset + width over the layout's fields
    uint32_t value_words = 0;  // RawLayout::ValueFieldCount()
    // What the per-object checks compare against, made once with the layout: per field, 1
    // where it is a reference (classes and value types); per value field in order, the largest
    // valid word (MaxWord); the shape.
    std::vector<uint8_t> reference_field;
    std::vector<uint64_t> max_word;
    TypeShape shape = TypeShape::kClass;
  };
  bool CheckObject(size_t i, const RawBatch& b, size_t* value_at, const TypeInfo** type_info,
                   std::string* error);
  bool CheckSlot(uint64_t owner, uint32_t type, const RawLayout* l, uint32_t slot,
                 uint64_t array_length, size_t ref, std::string* error) const;
  // Whether n slots of an object of `info`'s type are all valid (CheckSlot's rules, without the
  // message: CheckSlot finds and reports the first bad one).
  static bool SlotsValid(const TypeInfo* info, const uint32_t* slots, size_t n,
                         uint64_t array_length);
  std::string Where(uint64_t object, uint32_t type) const;
  const TypeInfo* Info(uint32_t type) const;  // null: not described; one lookup per run of a type
  const RawLayout* LayoutOf(const TypeInfo* info) const {
    return info && info->layout >= 0 ? &layouts_[static_cast<size_t>(info->layout)] : nullptr;
  }

  const bool fields_, values_;
  const uint32_t string_cap_, pointer_bytes_;
  std::string batch_;  // "batch N: "
  std::unordered_map<uint32_t, TypeInfo> types_;
  std::vector<RawLayout> layouts_;
  std::unordered_map<uint32_t, RawEnum> enums_;
  std::vector<std::pair<uint32_t, uint64_t>> containers_;  // kind, id1
  // The last object of the previous batch (its references may continue in the next one).
  uint64_t last_object_ = 0;
  uint32_t last_type_ = 0;
  uint64_t last_length_ = UINT64_MAX;  // its array length, when known
  // types_ by id (null: not described): Info() runs once per object, in no order of type.
  DenseTypeIds<const TypeInfo*> dense_{nullptr};
};

}  // namespace protocol
}  // namespace xrpm
