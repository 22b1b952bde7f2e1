// Snapshot: one GC heap dump held in memory, exactly as the device reported it.
//
// The model mirrors the NETCF heap dump records (see docs/formats/netcf-gclog.md):
// AppDomain sections, types (id -> name), objects (id, type, size, referenced ids) and roots
// (object id, descriptor 0-5, flag bits, container type for statics). Ids are kept raw: object
// ids are device addresses and may dangle; resolving them into a graph is the analysis
// engine's job (GraphIndex), not the model's.
//
// Storage is columnar (one PodVector per field, references in one CSR array), never one heap
// allocation per object: 24 bytes per object + 8 per reference, plus the type table (and 8 per
// object more when the capture recorded allocation origins).
//
// Thread-safety: a Snapshot is a value. Build it on one thread; once built, any number of
// threads may read it concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/capture_info.h"
#include "xrpm/model/heap_fields.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/type_traits.h"

namespace xrpm {

using ObjectId = uint64_t;  // the object's address on the device
using TypeId = uint32_t;    // the dump's type id (unique within one AppDomain section)

inline constexpr uint32_t kNoIndex = 0xFFFFFFFFu;

// Root descriptor, the 3rd element of an `r` record.
enum class RootKind : uint8_t {
  kInternal = 0,    // rooted internally by the runtime (AppDomains, assemblies, exceptions)
  kLocal = 1,       // a local variable in a method frame
  kFinalizer = 2,   // on the finalizer queue
  kHandle = 3,      // a GCHandle refers to it
  kStatic = 4,      // a static variable; the record carries the containing type
  kGcSpecific = 5,  // GC implementation roots: interned strings, class descriptions
};
inline constexpr int kRootKindCount = 6;

// Root flag bits, the 4th element of an `r` record.
inline constexpr uint8_t kRootPinned = 1;
inline constexpr uint8_t kRootWeak = 2;
inline constexpr uint8_t kRootInterior = 4;
inline constexpr uint8_t kNetcfRootFlags = kRootPinned | kRootWeak | kRootInterior;
// xrpm's own bit, not NETCF's: a stack slot found by a conservative scan (Mono's), which may
// hold a stale value that only looks like a reference. `.gclog` files do not carry it.
inline constexpr uint8_t kRootConservative = 8;
inline constexpr uint8_t kRootKnownFlags = kNetcfRootFlags | kRootConservative;

std::string_view RootKindName(RootKind k);  // "internal", "local", ...
std::string RootFlagsName(uint8_t flags);   // "pinned|weak", "normal" for 0

// One `a ... c` section.
struct AppDomainSection {
  uint32_t version = 2;
  std::string name;                  // from the `a` record
  std::optional<uint64_t> start_ms;  // boot-relative ms; absent in old RPM files
  std::optional<uint64_t> end_ms;    // from the `c` record
  std::string end_name;              // the `c` record's name when it differs from `name`, else ""
  bool closed = true;                // false when the file ended before the `c` record
  // Half-open ranges of this section's records in the columns below, in file order.
  uint32_t types_begin = 0, types_end = 0;
  uint64_t objects_begin = 0, objects_end = 0;
  uint64_t roots_begin = 0, roots_end = 0;

  friend bool operator==(const AppDomainSection&, const AppDomainSection&) = default;
};

struct TypeInfo {
  TypeId id = 0;
  // The canonical name (type_name.h: C# with full namespaces), computed from the written one
  // by SetName: what display, lookup, matching across snapshots and the analysis's rules use.
  std::string name;
  // The name as the source wrote it, when it differs from `name`; "" when they are the same.
  // Writers of the source formats write this (written_name), so files round-trip byte for byte.
  std::string source_name;
  uint32_t section = 0;      // index into Snapshot::sections
  bool placeholder = false;  // made up by a lenient reader for an id with no `t` record
  // The module (assembly) that defines the type, when the format records it (.gcdump); "".
  std::string module;
  // Sampled dumps (.gcdump written with a node budget): each stored object of this type stands
  // for this many objects of the heap; counts and sizes scale by it. 1 in complete dumps.
  float sample_multiplier = 1.0f;
  // The type overrides Finalize (its instances are registered for finalization), when the
  // capture says so (xrpm captures of agents that report it; false otherwise).
  bool has_finalizer = false;
  // What the type is (value type, enum, array rank ...), when the capture says (type_traits.h).
  TypeTraits traits;

  const std::string& written_name() const { return source_name.empty() ? name : source_name; }
  // Sets the name as the source wrote it; computes the canonical one (O(length)).
  void SetName(std::string written);
  // True when `name` is this type's canonical or written name, or has the same canonical name.
  bool Named(std::string_view name) const;

  friend bool operator==(const TypeInfo&, const TypeInfo&) = default;
};

// An allocation site: the managed stack that allocated an object, interned per snapshot.
struct AllocationSite {
  std::vector<uint32_t> methods;  // indices into AllocationOrigins::methods, innermost first;
                                  // empty: allocated outside any managed frame
  friend bool operator==(const AllocationSite&, const AllocationSite&) = default;
};

// What a snapshot knows about where and when its objects were allocated, when the runtime
// recorded it (the emulator for every object, Mono for its sampled allocations).
struct AllocationOrigins {
  // The runtime's frame counter when the world stopped for this capture (frames completed).
  // An object allocated at frame f is capture_frame - f frames old; objects allocated after
  // capture X have f >= X.capture_frame.
  uint64_t capture_frame = 0;
  // 0: the runtime recorded every object. Otherwise it recorded only the objects its allocation
  // sampler picked (one per sample_bytes allocated on average, frame_events.h); the origin of
  // the others is unknown.
  uint32_t sample_bytes = 0;
  std::vector<std::string> methods;  // "Bubbles.BubbleField.Spawn"
  std::vector<AllocationSite> sites;

  friend bool operator==(const AllocationOrigins&, const AllocationOrigins&) = default;
};

// Sentinel of Snapshot::object_alloc_site: the object's origin was not recorded.
inline constexpr uint32_t kUnknownSite = kNoIndex;

class Snapshot {
 public:
  // ---- sections and types ----
  std::vector<AppDomainSection> sections;
  std::vector<TypeInfo> types;  // a type's index here is its "type index"

  // ---- objects (columns, all the same length) ----
  PodVector<ObjectId> object_id;
  PodVector<uint32_t> object_type;  // type index into `types`
  PodVector<uint32_t> object_size;  // bytes
  PodVector<uint64_t> ref_end;      // CSR: refs of object i are refs[ref_begin(i), ref_end[i])
  PodVector<ObjectId> refs;         // referenced object ids, in record order

  // ---- roots (columns, all the same length) ----
  PodVector<ObjectId> root_object;
  PodVector<uint8_t> root_kind;      // RootKind
  PodVector<uint8_t> root_flags;     // kRootPinned | kRootWeak | kRootInterior
  PodVector<TypeId> root_container;  // raw type id of the static's class (kind 4), else 0
  PodVector<uint32_t> root_origin;   // index into root_origins, or kNoIndex
  // Where a root came from on the device ("thread 3 / Game1.Update", "GCHandle table"), when
  // the capture knew it. Not part of the .gclog format, so files read from disk have none.
  std::vector<std::string> root_origins;

  // Provenance for display: the file path, or "capture of bubbles.exe from 127.0.0.1:4510".
  std::string source;

  // ---- capture metadata ----
  // Device, timing and cost of the live capture this snapshot came from; absent for snapshots
  // read from formats that cannot hold it (.gclog, IBM classic). Kept by .xrpm files.
  std::optional<CaptureInfo> capture;

  // ---- allocation origins (optional) ----
  // Present when the runtime recorded where objects were allocated. Absent, with both columns
  // empty, for snapshots whose source had no such data (.gclog, IBM classic, .gcdump, older
  // agents): never made up. When present the columns have one entry per object (8 B/object).
  std::optional<AllocationOrigins> origins;
  // The runtime's frame counter when the object was allocated (saturates at 2^32 - 2: over two
  // years of frames at 60 fps); meaningless when the site is kUnknownSite.
  PodVector<uint32_t> object_alloc_frame;
  // Index into origins->sites, or kUnknownSite.
  PodVector<uint32_t> object_alloc_site;

  // ---- object contents (optional) ----
  // Type layouts, the field or slot of every reference, root labels and object values, when
  // the source had them (heap_fields.h; reading them: object_fields.h). Empty otherwise.
  HeapFields fields;

  // ---- building ----
  uint32_t AddSection(AppDomainSection s);  // returns its index
  // `name` as the source wrote it (TypeInfo::SetName).
  uint32_t AddType(TypeId id, std::string name, uint32_t section, bool placeholder = false);
  void AddObject(ObjectId id, uint32_t type_index, uint32_t size, std::span<const ObjectId> refs);
  void AddRoot(ObjectId object, RootKind kind, uint8_t flags, TypeId container = 0,
               uint32_t origin = kNoIndex);
  // Closes the current ranges of the last section (sets *_end to the column sizes).
  void CloseSectionRanges();
  // Appends the origin of the object added last (origins present): site kUnknownSite when the
  // runtime did not record it. Call once per object, in object order, or never.
  void AddObjectOrigin(uint32_t alloc_frame, uint32_t site) {
    object_alloc_frame.push_back(alloc_frame);
    object_alloc_site.push_back(site);
  }

  // ---- reading ----
  size_t object_count() const { return object_id.size(); }
  size_t ref_count() const { return refs.size(); }
  size_t root_count() const { return root_object.size(); }
  size_t type_count() const { return types.size(); }
  uint64_t ref_begin(size_t i) const { return i == 0 ? 0 : ref_end[i - 1]; }
  std::span<const ObjectId> object_refs(size_t i) const {
    return {refs.data() + ref_begin(i), refs.data() + ref_end[i]};
  }
  // The canonical name of object i's type.
  const std::string& type_name_of(size_t object_index) const {
    return types[object_type[object_index]].name;
  }
  RootKind root_kind_of(size_t r) const { return static_cast<RootKind>(root_kind[r]); }
  bool has_origins() const { return origins.has_value(); }
  // Whether the source said what its types are (TypeInfo::traits): some type's kind is known.
  bool has_type_traits() const;
  // True when object i's allocation site and frame are known.
  bool origin_known(size_t i) const {
    return origins && i < object_alloc_site.size() && object_alloc_site[i] != kUnknownSite;
  }
  // Object i's age in frames at the capture (origin_known(i) required).
  uint64_t age_frames(size_t i) const {
    const uint64_t f = object_alloc_frame[i];
    return origins->capture_frame > f ? origins->capture_frame - f : 0;
  }
  uint64_t total_bytes() const;  // sum of object sizes
  // Sampled dumps: true when some type's sample_multiplier is not 1. The scaled figures are
  // the stored ones with each object counted sample_multiplier times (= the stored ones when
  // not sampled).
  bool sampled() const;
  double scaled_object_count() const;
  double scaled_total_bytes() const;

  // Bytes of memory the snapshot holds (capacities), for memory budgets and benchmarks.
  size_t MemoryBytes() const;
  // Releases spare capacity in every column.
  void ShrinkToFit();

  friend bool operator==(const Snapshot& a, const Snapshot& b);  // all but `source`
};

}  // namespace xrpm
