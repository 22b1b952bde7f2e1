// FieldReporter: what the emulator's heap walk adds when the sink asks for fields and values
// (heap_walker.h Detail): the layout of every type from the type table (Vector2 fields
// flattened to `name.X` / `name.Y`, statics from the Statics table), the slot of each
// reference (a class's reference offsets mapped to layout indices, an array's element index),
// frame labels (the method's name) and each object's values read from the emulated heap:
// Int32 / Single / Boolean / Int64 fields, an array's length, a string's length and its first
// string_cap UTF-16 code units. The heap holds values in host byte order and is read with the
// same accessors as the game uses, so a big-endian host reports the same values.
//
// Cost: the layouts, O(types + fields), built once per walk (the world is stopped; ~100 types);
// per object O(fields) for values and O(references) for slots, into reused buffers (the
// largest object's reference count, kMaxStringCap units).
//
// Thread-safety: none; the walk thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/emulator/managed_heap.h"
#include "xrpm/emulator/method_table.h"
#include "xrpm/emulator/statics.h"
#include "xrpm/emulator/type_table.h"

namespace xrpm::emulator {

class FieldReporter {
 public:
  FieldReporter(const TypeTable& types, const Statics& statics, const MethodTable& methods,
                const agent::WalkDetail& detail);

  bool fields() const { return detail_.fields; }
  // DescribeLayout for every real type (after DescribeType). False when the sink aborted.
  bool DescribeLayouts(agent::HeapInfoCallback& sink);
  // ContainerLabel after a frame container's BeginContainer (id2 = the method's wire id).
  agent::WalkResult LabelContainer(agent::HeapInfoCallback& sink, agent::ContainerType type,
                                   uint64_t id2) const;
  // The slots of the references ForEachRefSlot found non-null, given their slot numbers (the
  // i-th reference slot of the object); valid until the next call.
  const uint32_t* Slots(const TypeDesc& t, const uint32_t* slot_numbers, size_t n);
  // ObjectValues / StringValue for the object at `a` (header words `h`), before its references.
  agent::WalkResult ReportValues(agent::HeapInfoCallback& sink, const ManagedHeap& heap, Addr a,
                                 const uint32_t* h);

 private:
  struct Plan {                      // per type
    std::vector<std::string> names;  // owns the flattened names
    std::vector<agent::FieldInfo> fields;
    std::vector<agent::StaticFieldInfo> statics;
    std::vector<uint32_t> ref_slot;  // per ref_offsets index: its layout index
    std::vector<std::pair<uint16_t, agent::FieldKind>> values;  // offset, kind
  };
  void Build();

  const TypeTable& types_;
  const Statics& statics_;
  const MethodTable& methods_;
  const agent::WalkDetail detail_;
  std::vector<Plan> plans_;  // by TypeIndex
  std::vector<uint32_t> slots_;
  std::vector<uint64_t> bits_;
};

}  // namespace xrpm::emulator
