// FieldLayouts: the Mono port's fields and values (heap_walker.h "Fields and values").
// Layouts come from Mono's metadata (mono_class_get_fields, mono_field_get_offset,
// mono_field_get_type, parents first; embedded structs flattened to `field.sub`; enums with
// their underlying primitive and their members), computed by Prepare on the collector thread
// *before* its collection (a thread attached to Mono, world running: metadata queries may take
// the loader lock there) and cached per class across captures, together with the description
// the sink is given (the FieldInfo / StaticFieldInfo / EnumMemberInfo arrays, pointing into the
// cached names): nothing about a class is computed or formatted twice.
//
// During the walk (world stopped, same thread) the cache only answers lookups, and a layout is
// described to the sink only when the capture needs it (describing every loaded
// type's layout at every capture was most of the pause on heaps of many classes and few
// objects): Describe(type) right before the first root or object of that type in this walk
// (BeginWalk forgets what the last walk described), with the enums it names before it, each
// once per walk. So a capture carries the layouts of the types that have objects or static
// roots in it, and no others. Then:
//   - the slot of each reference from the offsets mono_gc_walk_heap reports (a field index
//     through the class's sorted reference offsets, an element index from the array's data
//     offset and element size);
//   - a static root's slot from its address within the class's static data (the root range
//     Mono registered for it);
//   - each object's values read from its memory (primitives, enums, string length and text,
//     array length).
// Each type id is bound to its class's layout: the same class in several AppDomains
// (Registry::AddClassIn, one type id per domain) shares one layout, and a type made during the
// walk for a prepared class gets it (Bind). A class loaded after Prepare (during the
// collection) has no layout in that capture: its objects go out without slots and values; the
// next capture's Prepare computes it.
//
// Per class it also notes whether the class has a finalizer (Finalize declared below
// System.Object), which the type's description carries (DescribeTypeWithTraits).
//
// Memory (the cache's bound): per class with a layout ~150 B plus, per field, its name and
// declared type name and ~80 B (Field + FieldInfo) plus 4 B per pointer-sized word up to its
// last reference field (the slot table); per enum its name, members and ~40 B per member:
// O(loaded classes + their fields), kept for the process's life, keyed by MonoClass*. A class's
// entry is dropped when a new class takes its freed address (a class of an unloaded
// AppDomain's image; Registry::TakeReplaced). Per type id one pointer and, per walk, one byte
// (described yet?); per enum one byte; per walk one object's values (<= the cap). Prepare:
// O(new classes * fields); per object O(references) for slots (a table lookup each) and
// O(fields) for values; Describe O(1) after the first call of a walk for that type.
//
// Thread-safety: Prepare and the walk calls from the collector thread of one capture at a time
// (the capture hand-over in mono_port.h orders them); no locks.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "registry.h"
#include "xrpm/agent/heap_walker.h"

namespace xrpm {
namespace mono {

class FieldLayouts {
 public:
  // Computes the layouts of the registry's classes that have none yet (Drain it first).
  // Needs a thread attached to Mono, outside a collection. Takes the registry's mutex.
  void Prepare(Registry& registry);

  // ---- during the walk (world stopped) ----
  // A new walk: nothing described yet.
  void BeginWalk();
  // DescribeLayout for type_id if it has a layout and this walk did not describe it yet, the
  // enums it names first (DescribeEnum, each once per walk). Call after its DescribeType and
  // before its first root or object. False when the sink aborted.
  bool Describe(agent::HeapInfoCallback& sink, uint32_t type_id) {
    return type_id - 1 >= described_.size() || described_[type_id - 1] ||
           DescribeNew(sink, type_id);
  }
  // Gives type_id (made during the walk, e.g. a class met in another AppDomain) the cached
  // layout of `klass`, if Prepare computed one. True when it has a layout now.
  bool Bind(uint32_t type_id, uintptr_t klass);
  // Whether type_id's class has a finalizer (false without a layout).
  bool HasFinalizer(uint32_t type_id) const {
    const Layout* l = ByType(type_id);
    return l && l->has_finalizer;
  }
  // What `klass` (a MonoClass*) is: an array (its rank; its element type: `name`, the class's
  // wire name, up to its last rank specifier), an enum (its underlying integer), a value type or
  // a class. Reads class metadata only (no lock, no allocation): callable while the world is
  // stopped. `out->element_type_name` points into `name`.
  static void Traits(void* klass, const std::string& name, agent::TypeTraits* out);
  // The static field index of the reference static at `offset` in type_id's static data.
  uint32_t StaticSlot(uint32_t type_id, uintptr_t offset) const;
  // slots[i] for the reference at offsets[i] of `object` (type_id); valid until the next call.
  const uint32_t* Slots(uint32_t type_id, const void* object, const uintptr_t* offsets, size_t n);
  // ObjectValues / StringValue for `object` before its references (nothing without a layout).
  agent::WalkResult ReportValues(agent::HeapInfoCallback& sink, uint32_t type_id,
                                 const void* object, uint32_t string_cap);

 private:
  struct Field {
    std::string name, type_name;
    uint32_t offset;
    agent::FieldKind kind;
    bool is_enum;
    uint32_t enum_id;
  };
  struct Layout {
    // What the sink is given (pointers into fields / statics / element_type_name; Finish).
    std::vector<agent::FieldInfo> field_info;
    std::vector<agent::StaticFieldInfo> static_info;
    std::vector<uint32_t> enum_ids;  // distinct enums the fields name
    agent::TypeShape shape = agent::TypeShape::kClass;
    std::vector<Field> fields;
    std::vector<Field> statics;                              // kind, name, type_name used
    std::vector<std::pair<uint32_t, uint32_t>> ref_offsets;  // offset -> field index, sorted
    // ref_offsets as a table by offset / sizeof(void*) (kNoSlot: no reference there), for the
    // per-reference lookup of the walk; (largest reference offset / 8 + 1) * 4 bytes.
    std::vector<uint32_t> slot_by_word;
    std::vector<std::pair<uint32_t, uint32_t>> static_refs;     // offset -> static index, sorted
    std::vector<std::pair<uint32_t, agent::FieldKind>> values;  // offset, kind (layout order)
    agent::FieldKind element_kind = agent::FieldKind::kUnknown;
    std::string element_type_name;
    uint32_t element_size = 0;
    bool has_finalizer = false;  // a class below System.Object declares Finalize()
  };
  struct Enum {
    std::string name;
    agent::FieldKind underlying;
    std::vector<std::string> names;
    std::vector<uint64_t> values;
    std::vector<agent::EnumMemberInfo> members;  // pointers into names (after names is final)
  };
  // The layout of type_id (null: none); remembers the last one (objects of a type come in runs).
  const Layout* Find(uint32_t type_id);
  void Compute(void* klass, Layout* out);
  static void Finish(Layout* l);  // the sink's description, once the layout is complete
  bool DescribeNew(agent::HeapInfoCallback& sink, uint32_t type_id);
  void AddField(const std::string& prefix, void* type, uint32_t offset, int depth, Layout* out);
  uint32_t EnumId(void* klass);

  const Layout* ByType(uint32_t type_id) const {
    return type_id - 1 < by_type_.size() ? by_type_[type_id - 1] : nullptr;
  }

  std::unordered_map<uintptr_t, Layout> layouts_;     // by MonoClass* (node-based: stable)
  std::vector<const Layout*> by_type_;                // type id - 1 -> layout (null: none)
  std::unordered_map<uintptr_t, uint32_t> enum_ids_;  // MonoClass* -> enum id
  std::deque<Enum> enums_;                            // enum id - 1 (stable addresses)
  std::vector<uint8_t> described_;                    // type id - 1 -> described in this walk
  std::vector<uint8_t> enum_described_;               // enum id - 1 -> described in this walk
  uint32_t last_type_ = 0;
  const Layout* last_ = nullptr;
  std::vector<uint32_t> slots_;
  std::vector<uint64_t> bits_;
};

}  // namespace mono
}  // namespace xrpm
