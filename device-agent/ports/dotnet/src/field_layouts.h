// FieldLayouts: the .NET port's fields and values (heap_walker.h "Fields and values"): per class
// its instance fields, and per recorded object the slot of each reference, its primitive values,
// a string's text and an array's length.
//
// Layouts are computed by Prepare on the capture thread *before* the capture's collection, with
// the program running (metadata reads may take the runtime's locks, which a stopped thread may
// hold), for the classes loaded since the last capture (the class load events StaticRoots
// queues), and kept for the process's life, keyed by ClassID:
//   - the class and its bases, base first (GetClassIDInfo2's parent): each one's own instance
//     fields and their offsets from GetClassLayout (a token and an offset per field), their names
//     and signatures from the module's metadata (GetFieldProps);
//   - a field's kind from its signature (ECMA-335 II.23.2.4): the primitives; string, object,
//     classes, arrays, generic classes: a reference; a generic parameter (T): the instantiation's
//     argument (GetClassIDInfo2), when it is a reference or a primitive; an enum: its underlying
//     primitive (its `value__` field) and its members (its literal fields' constants), also
//     across modules (ResolveTypeRef, else the base library's definition of that name); an
//     embedded struct: its own fields, flattened as "position.X" (GetClassLayout of the
//     struct's class, found among the loaded classes by module and type definition, and for
//     a generic struct, Nullable<int>, by its arguments' classes too: offsets from its start),
//     at most kMaxStructDepth deep;
//   - a boxed value type: its fields at GetBoxClassLayout's offset; System.String: the string
//     layout (GetStringLayout2); arrays: the element's kind (IsArrayClass), found during the
//     collection too (IsArrayClass is allowed there), so every array has one.
// Fields whose kind is not known (a struct whose class the port has not seen loaded, or of a
// module whose reader it cannot tell; a generic struct with an argument it cannot tell, an
// array say) are left out of the layout: the references in them have no slot, their values are
// not read.
//
// During the collection (GC thread, world stopped, every object in its final place) Record reads,
// for each object the runtime reports, from its memory:
//   - each reference field's value, to give each reported reference its field's index (the
//     runtime reports referenced objects, not where they are held); an array's elements, for
//     the element index (reading at most a few times the array's words: the runtime reports
//     elements in order, so each is found at once; past that budget the rest have no slot);
//   - its primitive fields' values (heap_walker.h ValueBits), a string's length and its first
//     kMaxStringCap UTF-16 units, an array's length (GetArrayObjectInfo).
// Everything is recorded whatever the capture asks for (the sink's detail is known only when the
// walk starts, after the collection); the walk sends what the detail asks for, the text cut at
// its string cap. A class loaded after Prepare (between it and the collection) has no layout in
// that capture's collection: its objects go out without slots and values (the walk computes
// the layout for the description, and the next capture has it).
//
// Memory: the cache: per class ~200 B plus per field its name, declared type name and ~80 B;
// per enum its name and ~40 B per member; per loaded class ~64 B plus 8 B per generic argument
// (the lookup of structs by definition): O(loaded classes + their fields), for the process's life.
// Per capture, in the record (heap_record.h): 4 B per reference (its slot), 8 B per primitive field
// of each object (one word per value; strings one word and arrays one word), 2 B per recorded
// UTF-16 unit (<= kMaxStringCap per string: at most the strings' own bytes). Time inside the
// collection: per object one read per field, per reference a match among the holder's
// reference fields (O(fields)) or its array's words (linear in the array, see above).
//
// Thread-safety: Prepare and Describe from the capture thread; Record from the GC thread(s) of
// the recorded collection, while the capture thread waits in ForceGC (under the port's record
// mutex), so never concurrently with the others.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "corprof_abi.h"
#include "heap_record.h"
#include "module_metadata.h"
#include "xrpm/agent/heap_walker.h"

namespace xrpm {
namespace dotnet {

class TypeNames;

// What the layout and trait readers walk at most: base classes of a class (a deeper chain is
// cut), and array dimensions (the CLR's limit).
constexpr int kMaxBaseChain = 64;
constexpr cor::ULONG kMaxRank = 32;

class FieldLayouts {
 public:
  explicit FieldLayouts(cor::ICorProfilerInfo10* info) : info_(info), metadata_(info) {}
  ~FieldLayouts() {
    for (cor::IMetaDataImport* md : scopes_) md->Release();
  }
  FieldLayouts(const FieldLayouts&) = delete;
  FieldLayouts& operator=(const FieldLayouts&) = delete;

  // World running: the layouts of `classes` that have none yet (and System.String's, once).
  void Prepare(const std::vector<cor::ClassID>& classes);

  // ---- inside the collection ----
  // For `o` (its non-null references at r->object_refs, o->ref_count of them): writes one slot
  // per reference to r->slots (its first o->ref_count), or sets r->slots_from_zero for an
  // array of references without nulls (the k-th reference element k: no slot written), appends
  // its values to r->values and a string's units to r->text, and sets o->values when it
  // recorded values.
  void Record(HeapRecord* r, RecordedObject* o);
  // Objects of the non-GC heap go through Record too, after the collection (they never move).

  // ---- the walk (capture thread, world running) ----
  // Whether `klass`'s recorded values are a string's (one word: its length, then its units).
  bool IsString(cor::ClassID klass) const { return klass != 0 && klass == string_class_; }
  // The enums (once per walk) and the layout of type_id (`klass`), with `statics` (a static
  // root's slot is an index there); computes a layout the collection did not have. False when
  // the sink aborted.
  bool Describe(agent::HeapInfoCallback& sink, uint32_t type_id, cor::ClassID klass,
                const std::vector<agent::StaticFieldInfo>& statics, TypeNames& names);
  void BeginWalk() { enum_described_.assign(enums_.size(), 0); }
  // What `klass` (named `name`, TypeNames's) is: an array (IsArrayClass: its rank; its element
  // type: `name` up to its last rank specifier, pointed into), an enum (its base is System.Enum;
  // its underlying integer from its `value__` field, when its layout is known), a value type
  // (its base is System.ValueType) or a class, and whether a class has a finalizer (a class
  // below System.Object declares Finalize(): metadata). Cached per class (~24 B) for the
  // process's life. World running.
  void Traits(cor::ClassID klass, const std::string& name, TypeNames& names,
              agent::TypeTraits* out);

 private:
  struct Field {
    std::string name, type_name;
    uint32_t offset;
    agent::FieldKind kind;
    uint32_t enum_id;  // 0: not an enum
  };
  struct Layout {
    agent::TypeShape shape = agent::TypeShape::kClass;
    std::vector<Field> fields;
    std::vector<std::pair<uint32_t, uint32_t>> refs;            // offset, field index (by offset)
    std::vector<std::pair<uint32_t, agent::FieldKind>> values;  // offset, kind (layout order)
    // Arrays.
    agent::FieldKind element_kind = agent::FieldKind::kUnknown;
    cor::CorElementType element_type = 0;
    cor::ClassID element_class = 0;
    cor::ULONG rank = 0;
  };
  struct Enum {
    std::string name;
    agent::FieldKind underlying;
    std::vector<std::string> names;
    std::vector<agent::EnumMemberInfo> members;  // pointers into names
  };
  // What a field signature declares.
  struct SigType {
    agent::FieldKind kind = agent::FieldKind::kUnknown;
    std::string name;
    uint32_t enum_id = 0;
    cor::ClassID struct_class = 0;  // an embedded struct's class (kind kUnknown)
    cor::ClassID klass = 0;         // the type's class, when known (a generic argument)
  };
  // A type definition: the reader it is in, its module and its token.
  struct Definition {
    cor::IMetaDataImport* md = nullptr;
    cor::ModuleID module = 0;
    cor::mdToken type_def = 0;
  };

  // *settled: false when a later call may say more (an enum whose layout is not known yet).
  agent::TypeTraits ComputeTraits(cor::ClassID klass, const std::string& name, TypeNames& names,
                                  bool* settled);
  bool HasFinalizer(cor::ClassID klass, TypeNames& names);
  const Layout* Find(cor::ClassID klass);             // null: none (arrays are added here)
  bool ArrayLayout(cor::ClassID klass, Layout* out);  // false: not an array class
  bool Compute(cor::ClassID klass, Layout* out, TypeNames& names);
  // klass's own instance fields (not its bases'), at base + their offsets, named prefix + name.
  void AddOwnFields(cor::ClassID klass, const std::string& prefix, uint32_t base, int depth,
                    Layout* out, TypeNames& names);
  // The type at sig[*i] (moved past it); args: the class's generic arguments.
  SigType Decode(cor::IMetaDataImport* md, cor::ModuleID module, const uint8_t* sig, size_t bytes,
                 size_t* i, const std::vector<cor::ClassID>& args, TypeNames& names, int depth);
  SigType ValueTypeFromToken(cor::IMetaDataImport* md, cor::ModuleID module, cor::mdToken token);
  // The definition a type token of `md` names (`name`: its full name, for the base library).
  bool ResolveDef(cor::IMetaDataImport* md, cor::ModuleID module, cor::mdToken token,
                  const std::string& name, Definition* out);
  bool LibraryDef(const std::string& name, Definition* out);  // the base library's
  cor::ClassID ClassOf(const Definition& d) const;            // among the loaded (0: not seen)
  static std::string TokenName(cor::IMetaDataImport* md, cor::mdToken token);
  uint32_t EnumId(cor::IMetaDataImport* md, cor::mdToken type_def, const std::string& name,
                  agent::FieldKind* underlying);
  void FindStringClass(cor::ClassID any);
  bool IsStringClass(cor::ClassID klass);  // by its definition until its class is known

  cor::ICorProfilerInfo10* const info_;
  ModuleMetadata metadata_;
  std::unordered_map<cor::ClassID, std::unique_ptr<Layout>> layouts_;  // null: none possible
  std::unordered_map<std::string, uint32_t> enum_ids_;                 // full name -> enum id
  std::unordered_map<cor::ClassID, agent::TypeTraits> traits_;  // Traits (element name unset)
  std::deque<Enum> enums_;                                      // enum id - 1 (stable addresses)
  std::vector<uint8_t> enum_described_;  // enum id - 1 -> described in this walk
  cor::ClassID string_class_ = 0;
  cor::mdToken string_def_ = 0;  // System.String's type definition in the base library
  std::map<std::pair<cor::ModuleID, cor::mdToken>, cor::ClassID> by_def_;  // non-generic
  std::map<std::vector<uintptr_t>, cor::ClassID> by_inst_;  // (module, def, args...) -> class
  std::set<cor::IMetaDataImport*> scopes_;  // readers ResolveTypeRef gave (one reference each)
  cor::ModuleID base_library_ = 0;          // System.Private.CoreLib's module
  bool string_searched_ = false;
  uint32_t string_length_offset_ = 0, string_buffer_offset_ = 0;
  // Find's direct-mapped cache of layouts_ (the collection looks a layout up per object, and
  // a real program's objects of many classes interleave: the map's lookup was a tenth of the
  // port's callback per object on the compiler's heap): a class and its layout, or null for
  // none possible; {0, null}: empty. Emptied wherever layouts_ changes outside Find.
  static constexpr size_t kRecent = 1024;
  std::array<std::pair<cor::ClassID, const Layout*>, kRecent> recent_{};
  static size_t RecentSlot(cor::ClassID klass) { return ((klass >> 3) ^ (klass >> 13)) % kRecent; }
  void ForgetRecent() { recent_.fill({0, nullptr}); }
  std::vector<uint64_t> held_;  // Record: the reference fields' values (at its largest size)
  std::vector<agent::FieldInfo> info_fields_;  // Describe
};

}  // namespace dotnet
}  // namespace xrpm
