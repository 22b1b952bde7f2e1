// FieldMapper: the per-capture tables behind the fields and values of a capture (heap_walker.h
// DescribeEnum / DescribeLayout / ObjectReferencesWithSlots / ObjectValues / StringValue ->
// wire.proto layouts, enums, slot and value columns). It cuts what the runtime describes to the
// wire's limits and checks what it reports against it, so the host never refuses a capture for
// a runtime's slip:
//   - names cut at kMaxFieldNameBytes; a layout keeps its first kMaxLayoutFields fields and
//     statics within kMaxLayoutBytes of names (`cut`); an enum its first kMaxEnumMembers
//     members within kMaxLayoutBytes; a layout for an undescribed type, a second layout or
//     enum, an enum id 0 are ignored; a field naming an unknown enum keeps is_enum only;
//   - slots: a field index past the layout or on a non-reference field, an element index past
//     a known array length, any slot on a string: the object's slots all travel as unknown;
//     slots past a cut layout travel as unknown;
//   - values: a count other than the layout's value fields (arrays: 1; strings: min(length,
//     string_cap) code units, length <= size / 2), or values for another object than the
//     next ObjectReferences: the object travels without values.
// Each such object counts once in dropped() (CaptureEnd.fields_dropped).
//
// Memory: 4 B per described type (a sorted list of their ids: a program with 18 k loaded
// classes and a few hundred layouts holds ~70 KiB, not the ~2 MiB a table entry per type
// cost), ~140 B per type with a layout plus two bytes per kept field (its kind; a value
// field's kind again, in value order), i.e. O(types + fields); one object's pending values (<=
// kMaxObjectValues words, or a string's <= kMaxStringCap 16-bit code units, copied once and
// mapped in place: Take hands them to the encoder as they are); a slot copy only for an object
// of a cut layout (<= its reference count); a fixed 16 KiB cache of the per-object type lookup.
// FootprintBytes() reports it so the agent charges it to the capture's memory account. Every
// call is O(its input), except NoteType: O(1) for ids described in increasing order (the
// runtimes here number their types as they meet them), O(types) for one out of order.
//
// Thread-safety: none; the walk thread owns it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace agent {

class FieldMapper {
 public:
  FieldMapper(const WalkDetail& detail, uint32_t pointer_bytes);

  const WalkDetail& detail() const { return detail_; }
  void NoteType(uint32_t type_id);
  size_t described_types() const { return described_.size(); }
  size_t types_with_layout() const { return types_.size(); }
  // False: nothing to send (ignored, see above).
  bool MapEnum(uint32_t enum_id, const char* name, size_t name_len, FieldKind underlying,
               const EnumMemberInfo* members, size_t count, protocol::RawEnum* out);
  bool MapLayout(uint32_t type_id, const TypeLayoutInfo& layout, protocol::RawLayout* out);
  // A root's slot on the wire: kNoSlot unless `container` is kClass of a type with a layout
  // and `slot` is one of its kept statics.
  uint32_t RootSlot(ContainerType container, uint64_t id1, uint32_t slot) const;

  // Pending values of the next object (copied once; the runtime's buffers are only valid during
  // its call). True when that grew the pending buffer (FootprintBytes changed).
  bool SetValues(uint64_t object, const uint64_t* bits, size_t count);
  bool SetString(uint64_t object, uint32_t length, const uint16_t* units, size_t count);
  // The slots and value words to send for `object`, mapped in place in the pending buffer (a
  // string's code units are passed as they are, ObjectDetail::units); valid until the next
  // Set* or Take.
  protocol::ObjectDetail Take(uint64_t object, uint32_t type_id, uint32_t size,
                              const uint32_t* slots, size_t ref_count);
  // An object in parts (heap_walker.h ObjectReferencesPart): Take with its first part's slots,
  // then TakePart with each later part's: checked as Take checks them, against the same type
  // (and array length); values that did not match cost the values only, as for a whole object.
  // From a part whose slots are wrong on, the object's slots travel as unknown (null; a whole
  // object's would all be), the object counted once in dropped().
  const uint32_t* TakePart(const uint32_t* slots, size_t n);

  uint64_t dropped() const { return dropped_; }
  size_t FootprintBytes() const;

 private:
  struct TypeFields {
    bool has_layout = false;
    TypeShape shape = TypeShape::kClass;
    uint32_t runtime_fields = 0;  // as described (before the cut)
    uint32_t runtime_values = 0;  // value fields as described
    uint32_t kept_statics = 0;
    std::vector<uint8_t> kinds;                    // FieldKind of each kept field
    std::vector<protocol::FieldKind> value_kinds;  // the kept value fields' kinds, in order
    FieldKind element_kind = FieldKind::kUnknown;
  };
  // types_[type_id] through recent_; never null: a type without a layout (described or not)
  // finds a shared entry without one.
  const TypeFields* Find(uint32_t type_id);
  const uint32_t* MapSlots(const TypeFields& t, const uint32_t* slots, size_t n,
                           uint64_t array_length, bool* bad);
  bool MapValues(const TypeFields& t, uint32_t size, uint64_t* array_length,
                 protocol::ObjectDetail* d);

  const WalkDetail detail_;
  const uint32_t pointer_bytes_;
  bool Described(uint32_t type_id) const;

  std::vector<uint32_t> described_;                 // ids of the described types, sorted, unique
  std::unordered_map<uint32_t, TypeFields> types_;  // the types with a layout
  // A direct-mapped cache of types_ for the per-object lookup (objects of a few types
  // interleave): one hash lookup per object was a visible part of the pause on large heaps.
  static constexpr size_t kRecent = 1024;
  std::array<std::pair<uint32_t, const TypeFields*>, kRecent> recent_{};
  std::unordered_map<uint32_t, bool> enums_;  // defined enum ids
  // Pending values (raw bits, or a string's length and units) of pending_object_.
  bool pending_ = false;
  bool pending_string_ = false;
  uint64_t pending_object_ = 0;
  uint32_t pending_length_ = 0;
  std::vector<uint64_t> pending_values_;  // mapped to wire words in place by Take
  std::vector<uint16_t> pending_units_;   // a string's code units
  std::vector<uint32_t> slots_;           // slot copy for a cut layout
  // The object of the last Take, for TakePart: its type (null: no layout), its array length
  // (UINT64_MAX: not known), whether its slots were found wrong, and whether it was counted in
  // dropped_.
  const TypeFields* part_type_ = nullptr;
  uint64_t part_array_length_ = UINT64_MAX;
  bool part_slots_bad_ = false;
  bool part_counted_ = false;
  size_t kinds_bytes_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace agent
}  // namespace xrpm
