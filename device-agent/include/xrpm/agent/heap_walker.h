// Heap walker API: the contract between a managed runtime and the xrpm device agent, modeled on
// the Microsoft VM's IHeapInfoCallBack (docs/formats/heap-walk-containers.md).
//
// The runtime drives a walk with the game stopped, after a full GC, by calling a
// HeapInfoCallback ("sink"):
//
//   BeginContainer(kBegin)
//   DescribeType(...)*                       every loaded class (id -> name), before any root
//   { BeginContainer(c, id1, id2)  RootReferences(...)* }*   root containers, any order, except:
//        a kThread container comes before that thread's frame containers
//   BeginContainer(kHeap)  ObjectReferences(...)*            the heap container always last
//   BeginContainer(kEnd)                                      always sent, even after an abort;
//                                                            the game resumes when it returns
//
// Sink results:
//   kOk                 continue.
//   kAbort              (E_FAIL) no more callbacks except the final BeginContainer(kEnd).
//   kPostponeReferences (S_POSTPONE_REFERENCES, from ObjectReferences only) do not descend into
//                       this object's references now; the referenced objects are reported later
//                       (from other objects or flat in the heap container). A sink that always
//                       returns it receives a flat list of every live object exactly once.
//
// Container -> NETCF root descriptor and flags (the .gclog `r` record):
//   kThread (id1 = thread id)                       groups frames; reports no roots itself
//   kJitFrame, kNativeFrame, kInterpretedFrame, kFastInterpretedFrame, kComFrame,
//   kNativeGcFrame, kInternalFrame (id1 = stack id, id2 = method id where defined)
//                                                   -> 1 local        flags: pinned, interior
//   kFinalized                                      -> 2 finalizer
//   kStrongPtr (GC handle table; id1 = handle table id)
//                                                   -> 3 handle       flags: pinned, weak
//   kClass (id1 = class/type id of the statics)     -> 4 static, container = id1
//   kInternalVm                                     -> 0 runtime-internal (AppDomains, assemblies,
//                                                      preallocated exceptions)
//   kRootTable                                      -> 5 GC-specific (interned strings, class
//                                                      descriptions)
//   kHeap                                           objects only, never roots
// RootRef::flags carries the NETCF flag bits (1 pinned, 2 weak, 4 interior) as they arise, and
// 8 for a stack root found by a conservative scan.
//
// Allocation origins (optional): a runtime that records where and when objects were allocated
// tells the sink, inside the heap container:
//   AllocationClock(frame, sample_bytes)
//                                     once, before any ObjectOrigin: its frame counter now (the
//                                     frames completed when the world stopped), and 0 if it
//                                     records every object or the mean sampling interval in
//                                     bytes if it records only sampled allocations
//   DescribeSite(site, names, depth)  an interned allocation site, once per walk, before the first
//                                     ObjectOrigin that names it: a managed stack, innermost
//                                     (allocating) method first; site ids are >= 1, depth may be
//                                     0 (allocated outside any managed frame)
//   ObjectOrigin(object, frame, site) right before the ObjectReferences call of `object`, when
//                                     the runtime knows it: the frame counter at its allocation
//                                     (which survives compaction, unlike the address) and its site
// Objects without an ObjectOrigin have an unknown origin (a sampling runtime records only the
// objects it sampled). Sinks that do not override these ignore them.
//
// Fields and values (optional): the sink says what it wants in Detail() (a runtime
// that does not override the calls below, or sees detail.fields false, reports none of it):
//   DescribeEnum(id, name, underlying, members)
//                                     an enum's members, once per walk, before a layout names
//                                     it (ids >= 1, chosen by the runtime)
//   DescribeLayout(type_id, layout)   after DescribeType(type_id), before any root or object
//                                     uses it, once per type: instance fields (inherited first,
//                                     embedded value types flattened with dotted names), static
//                                     fields, array element kind
//   ContainerLabel(label)             right after BeginContainer of a frame container: its
//                                     method ("Bubbles.Game1.Update")
//   RootRef::slot                     a kClass container's root: the index of its static field
//                                     in that type's layout
//   ObjectReferencesWithSlots(object, type, size, refs, slots, n)
//                                     instead of ObjectReferences: the same, with per reference
//                                     its slot: its field's index in the type's layout (class
//                                     instances, boxed value types) or its element index
//                                     (arrays); kNoSlot when not known
//   ObjectValues(object, bits, n)     with detail.values, right before ObjectReferences: one
//                                     value per non-reference field in layout order (see
//                                     ValueBits), or an array's length (n = 1)
//   StringValue(object, length, units, n)
//                                     with detail.values, a string's length in UTF-16 code
//                                     units and its first n = min(length, detail.string_cap)
//                                     units, right before its ObjectReferences
// Pointers passed to these calls are valid only during the call. What the runtime gets wrong
// costs the detail, never the capture: the agent sends unknown slots or no values for an object
// whose report does not match its layout.
//
// Memory: the agent keeps, per type with a layout, one byte per field (its kind) to map values
// (O(sum of fields), <= kMaxLayoutFields each, charged to the capture's memory bound), and one
// object's values (<= kMaxStringCap + 1 words); slots are not copied, and slots and values go
// straight into the batch being filled (bounded by the batch size).
//
// Objects in parts (optional): a runtime that would otherwise gather a large object's references
// into one buffer (a million-element array: 8 MB, and its slots 4 MB more) may report them in
// parts when the sink says it takes them (TakesReferenceParts()):
//   ObjectReferencesPart(object, type, size, total, refs, slots, n)
//                                     instead of one ObjectReferences[WithSlots] call: the
//                                     first part (after the object's ObjectOrigin, ObjectValues
//                                     or StringValue, as for ObjectReferences) gives `total`,
//                                     the object's reference count; parts of the same object,
//                                     type, size and total follow until `total` references were
//                                     given, in order, n >= 1 each (an object without
//                                     references is reported whole); slots as in
//                                     ObjectReferencesWithSlots (null: unknown), per part.
// Nothing else may come between an object's parts. Sinks that do not take parts (the default)
// get every object whole; CaptureSink takes them, and a runtime that breaks an object off (another
// call before its last part) fails the capture.
//
// AppDomains (optional): a runtime whose heap holds several AppDomains names them before the
// types that belong to them:
//   DescribeDomain(domain, name)      domain ids 1, 2, 3, ... in the order the runtime created
//                                     the domains (the host's sections follow that order)
//   DescribeTypeInDomain(type_id, domain, name)
//                                     instead of DescribeType: a type of that domain (domain 0:
//                                     the runtime's single, unnamed section, as DescribeType)
// An object belongs to its type's domain and a root to its object's domain: the host makes
// one AppDomain section (`a ... c`) per domain. Sinks that do not override DescribeDomain
// ignore it, and DescribeTypeInDomain falls back to DescribeType.
//
// Type traits (optional, for the finalizable inspection): a runtime that knows more about a
// type than its name calls, instead of DescribeType / DescribeTypeInDomain,
//   DescribeTypeWithTraits(type_id, domain, name, traits)
//                                     traits.has_finalizer: the type overrides Finalize (its
//                                     instances are registered for finalization); traits.kind:
//                                     class, value type, enum (with its underlying integer) or
//                                     array (with its rank and element type)
// Sinks that do not override it get DescribeTypeInDomain (the traits are dropped).
//
// Snapshot walks (optional): a runtime that walks a copy of its heap (walk_recording.h) may
// let the game run before the walk is over:
//   WorldResumed()                    the world runs again; the calls that follow describe the
//                                     heap as it was when it stopped. The game's pause ended
//                                     here (the agent stops holding its sends back).
//   WalkFailed(reason, len)           the walk cannot be finished (the copy died, its stream
//                                     broke); BeginContainer(kEnd) follows and the sink must not
//                                     take the walk for a whole one.
//   Cancelled()                       asked between waits for the copy's next calls: true when
//                                     the sink wants no more (a cancel); the runtime then
//                                     stops the copy and sends BeginContainer(kEnd).
// Sinks that do not override them ignore them.
//
// Everything is plain C++17 with no exceptions crossing the API; pointers passed to a callback
// are valid only during that call. Ids are 64-bit so one API serves 32- and 64-bit devices.
//
// Thread-safety: a walk runs on one thread; a sink is called from that thread only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xrpm/protocol/fields.h"

namespace xrpm {
namespace agent {

enum class ContainerType : uint8_t {
  kBegin = 1,
  kThread = 2,
  kJitFrame = 3,
  kNativeFrame = 4,
  kNativeGcFrame = 5,
  kComFrame = 6,
  kInterpretedFrame = 7,
  kFastInterpretedFrame = 8,
  kInternalFrame = 9,
  kInternalVm = 10,
  kClass = 11,
  kRootTable = 12,
  kStrongPtr = 13,
  kFinalized = 14,
  kHeap = 15,
  kEnd = 16,
};

enum class WalkResult : uint8_t {
  kOk = 0,
  kAbort = 1,
  kPostponeReferences = 2,
};

// NETCF root descriptor for roots reported from a container (see the table above); -1 for
// containers that report no roots (kBegin, kThread, kHeap, kEnd).
int RootDescriptorFor(ContainerType c);
const char* ContainerTypeName(ContainerType c);

// Slots, field kinds and type shapes are the wire's (xrpm/protocol/fields.h, plain C++17).
constexpr uint32_t kNoSlot = protocol::kNoSlot;  // a slot that is not known
using FieldKind = protocol::FieldKind;           // an enum field: its underlying primitive's
using TypeShape = protocol::TypeShape;           // what a type's instances are
using TypeKind = protocol::TypeKind;             // what a type is (TypeTraits)

// RootRef::flags bits: NETCF's pinned, weak and interior, and xrpm's own conservative bit for a
// stack slot that a conservative scan found (it may hold a stale value that only looks like a
// reference; hosts rank such roots last when they pick a path, and `.gclog` files drop the bit).
constexpr uint8_t kRootFlagPinned = 1;
constexpr uint8_t kRootFlagWeak = 2;
constexpr uint8_t kRootFlagInterior = 4;
constexpr uint8_t kRootFlagConservative = 8;

struct RootRef {
  uint64_t object;          // the rooted object's id (address)
  uint8_t flags;            // kRootFlag* bits
  uint32_t slot = kNoSlot;  // kClass container: the static field's index in the type's layout
};

// ---- fields and values (optional, see the header comment) ----

// Value bits (ObjectValues): the field's value widened to 64 bits: unsigned kinds (Boolean 0/1,
// Char, Byte, UInt*) zero-extended, signed kinds sign-extended, Single the 32 IEEE-754 bits,
// Double the 64, pointer kinds as 64-bit integers. Read in the device's byte order: a
// big-endian runtime swaps before it reports.

struct FieldInfo {
  const char* name;  // UTF-8, name_len bytes: "bubbles", "position.X"
  size_t name_len;
  const char* type_name;  // the declared type: "System.Single", "Bubbles.Bubble"
  size_t type_name_len;
  uint32_t offset;  // bytes from the start of the object (its id/address)
  FieldKind kind;
  bool is_enum;      // the declared type is an enum (kind: its underlying primitive)
  uint32_t enum_id;  // its DescribeEnum id, 0 when the members are not known
};

struct StaticFieldInfo {
  const char* name;
  size_t name_len;
  const char* type_name;
  size_t type_name_len;
  FieldKind kind;
};

struct TypeLayoutInfo {
  TypeShape shape;
  const FieldInfo* fields;  // instance fields, inherited first; a slot is an index here
  size_t field_count;
  const StaticFieldInfo* statics;  // a static root's slot is an index here
  size_t static_count;
  FieldKind element_kind;         // arrays
  const char* element_type_name;  // arrays: the declared element type (may be null)
  size_t element_type_name_len;
};

struct EnumMemberInfo {
  const char* name;
  size_t name_len;
  uint64_t value;  // value bits of the underlying kind (see ValueBits above)
};

// What a runtime knows about a type beyond its name (DescribeTypeWithTraits).
struct TypeTraits {
  bool has_finalizer = false;  // overrides Object.Finalize (a C# destructor)
  // What the type is (kUnknown: the runtime does not say; the fields below are then ignored).
  TypeKind kind = TypeKind::kUnknown;
  FieldKind enum_underlying = FieldKind::kUnknown;  // kEnum: the underlying integer kind
  uint32_t array_rank = 0;                          // kArray: 1 for T[], n for T[,...]
  const char* element_type_name = nullptr;          // kArray: the element type (may be null)
  size_t element_type_name_len = 0;
};

// What the sink wants beyond the heap's shape (HeapInfoCallback::Detail).
struct WalkDetail {
  bool fields = false;      // layouts, slots, root labels
  bool values = false;      // ObjectValues / StringValue (only with fields)
  uint32_t string_cap = 0;  // code units of text per string
};

class HeapInfoCallback {
 public:
  virtual ~HeapInfoCallback() = default;

  virtual WalkResult BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) = 0;
  // A loaded class. `name` is UTF-8, `name_len` bytes, not NUL-terminated.
  virtual WalkResult DescribeType(uint32_t type_id, const char* name, size_t name_len) = 0;
  // Roots reported by the current container.
  virtual WalkResult RootReferences(const RootRef* roots, size_t count) = 0;
  // One live object and the ids of the objects it references (non-null reference fields).
  virtual WalkResult ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                      const uint64_t* refs, size_t ref_count) = 0;

  // ---- allocation origins (optional, see the header comment) ----
  virtual WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) {
    (void)frame;
    (void)sample_bytes;
    return WalkResult::kOk;
  }
  // method_names[i] is UTF-8, name_lens[i] bytes, not NUL-terminated.
  virtual WalkResult DescribeSite(uint32_t site_id, const char* const* method_names,
                                  const size_t* name_lens, uint32_t depth) {
    (void)site_id;
    (void)method_names;
    (void)name_lens;
    (void)depth;
    return WalkResult::kOk;
  }
  virtual WalkResult ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) {
    (void)object;
    (void)alloc_frame;
    (void)site_id;
    return WalkResult::kOk;
  }

  // ---- fields and values (optional, see the header comment) ----
  // What the runtime is to report; constant for a walk (a runtime may ask before kBegin).
  virtual WalkDetail Detail() const { return WalkDetail{}; }
  virtual WalkResult DescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                  FieldKind underlying, const EnumMemberInfo* members,
                                  size_t count) {
    (void)enum_id;
    (void)name;
    (void)name_len;
    (void)underlying;
    (void)members;
    (void)count;
    return WalkResult::kOk;
  }
  virtual WalkResult DescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) {
    (void)type_id;
    (void)layout;
    return WalkResult::kOk;
  }
  virtual WalkResult ContainerLabel(const char* label, size_t len) {
    (void)label;
    (void)len;
    return WalkResult::kOk;
  }
  // Sinks that do not override it get ObjectReferences (the slots are dropped).
  virtual WalkResult ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                               const uint64_t* refs, const uint32_t* slots,
                                               size_t ref_count) {
    (void)slots;
    return ObjectReferences(object, type_id, size, refs, ref_count);
  }
  // ---- objects in parts (optional, see the header comment) ----
  virtual bool TakesReferenceParts() const { return false; }
  virtual WalkResult ObjectReferencesPart(uint64_t object, uint32_t type_id, uint32_t size,
                                          size_t total, const uint64_t* refs, const uint32_t* slots,
                                          size_t n) {
    (void)object;
    (void)type_id;
    (void)size;
    (void)total;
    (void)refs;
    (void)slots;
    (void)n;
    return WalkResult::kAbort;  // never called unless TakesReferenceParts()
  }
  virtual WalkResult ObjectValues(uint64_t object, const uint64_t* bits, size_t count) {
    (void)object;
    (void)bits;
    (void)count;
    return WalkResult::kOk;
  }
  virtual WalkResult StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                                 size_t count) {
    (void)object;
    (void)length;
    (void)units;
    (void)count;
    return WalkResult::kOk;
  }
  // ---- AppDomains (optional, see the header comment) ----
  // `name` is UTF-8, `name_len` bytes, not NUL-terminated.
  virtual WalkResult DescribeDomain(uint32_t domain, const char* name, size_t name_len) {
    (void)domain;
    (void)name;
    (void)name_len;
    return WalkResult::kOk;
  }
  virtual WalkResult DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                          size_t name_len) {
    (void)domain;
    return DescribeType(type_id, name, name_len);
  }
  // ---- type traits (optional, see the header comment) ----
  virtual WalkResult DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                            size_t name_len, const TypeTraits& traits) {
    (void)traits;
    return DescribeTypeInDomain(type_id, domain, name, name_len);
  }
  // ---- snapshot walks (optional, see the header comment) ----
  virtual void WorldResumed() {}
  virtual bool Cancelled() const { return false; }
  // `reason` is UTF-8, `len` bytes, not NUL-terminated.
  virtual void WalkFailed(const char* reason, size_t len) {
    (void)reason;
    (void)len;
  }
};

// What a runtime exposes to be walked.
class HeapWalkable {
 public:
  virtual ~HeapWalkable() = default;
  // Walks the heap into `sink` following the protocol above. Must be called with the world
  // stopped (see RuntimePort::RunWithWorldStopped) and, for a dump of live objects only, right
  // after a full collection.
  virtual void WalkHeap(HeapInfoCallback& sink) = 0;
};

}  // namespace agent
}  // namespace xrpm
