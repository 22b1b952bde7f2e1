// Statics: the static reference fields of loaded classes, roots of descriptor 4 whose container
// is the declaring class. Static fields of struct type (Vector2.Zero) hold a boxed value, as the
// CLR stores them, so they are references too. Value-type statics of primitive type are not
// roots and are not modelled.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

using StaticId = uint32_t;

struct StaticSlot {
  TypeIndex owner;  // the declaring class
  std::string name;
  Addr value = kNull;
  uint32_t index = 0;     // among the owner's statics, in definition order (the layout's slot)
  std::string type_name;  // the declared type; empty: "System.Object"
};

class Statics {
 public:
  // O(statics defined so far) for the index; done at type setup.
  StaticId Define(TypeIndex owner, std::string name, std::string type_name = "");
  Addr Get(StaticId s) const { return slots_[s].value; }
  void Set(StaticId s, Addr v) { slots_[s].value = v; }
  Addr* Slot(StaticId s) { return &slots_[s].value; }
  std::vector<StaticSlot>& slots() { return slots_; }
  const std::vector<StaticSlot>& slots() const { return slots_; }

 private:
  std::vector<StaticSlot> slots_;
};

}  // namespace xrpm::emulator
