// CaptureFields: the object-contents part of assembling a capture. Each decoded
// batch first goes through protocol::FieldChecker (which refuses inconsistent layouts, slots and
// values with the batch, object id, expected and found); then its reference slots, its roots'
// labels ("Bubbles.GameEvents.Popped" from a static root's slot, "in Bubbles.Game1.Update,
// thread 1" from a frame container's method) and its objects' values (wire words -> the model's
// packed little-endian values; UTF-16 text -> UTF-8 with U+FFFD for unpaired surrogates, the
// full length and the cut kept) go into Snapshot::fields; at the end the layouts and enums are
// converted by type index.
//
// Names from the device (fields, types, methods) are sanitised to UTF-8.
// Cost: O(batch) per batch; memory: the model's columns plus the checker's tables.
// Thread-safety: none; the host client's network thread owns it (with its CaptureAssembler).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/model/snapshot.h"
#include "xrpm/protocol/dense_type_ids.h"
#include "xrpm/protocol/field_checker.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm::client {

class CaptureFields {
 public:
  // From CaptureBegin (fields, values, string_cap) and the device's pointer size.
  CaptureFields(bool fields, bool values, uint32_t string_cap, uint32_t pointer_bytes);

  // Checks batch `seq` before anything of it is kept; false with *error when it is refused.
  bool Check(const protocol::RawBatch& b, uint32_t seq, std::string* error);
  // After the assembler appended the batch's roots (root_count before them: `first_root`),
  // references (`first_ref`) and objects (`first_object`): their labels, slots and values.
  // `containers` are the capture's containers so far.
  void Append(const protocol::RawBatch& b, const std::vector<protocol::RawContainer>& containers,
              size_t first_root, size_t first_ref, size_t first_object, Snapshot& snap);
  // At the end: the layouts by type index, the enums, the cap; then the model's own check.
  // False with *error when the result is inconsistent (which the checker should have refused).
  bool Finish(Snapshot& snap, std::string* error);

 private:
  // How a class's or value type's value words become the model's bytes: each value field's
  // kind and width in order, and their total. Made once per layout, kept by type id (a layout
  // never changes once the checker took it).
  struct ValuePlan {
    std::vector<std::pair<protocol::FieldKind, uint32_t>> fields;
    size_t bytes = 0;
  };
  uint32_t Label(const std::string& text, Snapshot& snap);
  void AppendValues(const protocol::RawBatch& b, size_t first_object, Snapshot& snap);
  const ValuePlan& PlanFor(uint32_t type_id, const protocol::RawLayout& l);

  protocol::FieldChecker checker_;
  const bool fields_, values_;
  const uint32_t string_cap_, pointer_bytes_;
  std::unordered_map<std::string, uint32_t> label_index_;
  std::unordered_map<uint32_t, std::string> type_name_;  // type id -> name (static root labels)
  std::vector<uint8_t> scratch_;
  std::u16string units_;
  std::unordered_map<uint32_t, ValuePlan> plans_;
  protocol::DenseTypeIds<const ValuePlan*> plan_by_id_{nullptr};  // map nodes do not move
};

}  // namespace xrpm::client
