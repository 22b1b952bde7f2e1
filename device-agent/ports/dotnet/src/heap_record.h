// HeapRecord: what CoreCLR reported during the capture's collection, kept until the walk hands
// it to the agent after the world resumed: every live object (address, ClassID, size, its
// references, each reference's slot, its values: field_layouts.h) from ObjectReferences, every root
// from RootReferences2, what the static reference fields hold (read when the collection ends), and
// the objects of the non-GC heap (frozen string literals and types) that live objects or roots
// reference, which the collector's walk does not report.
//
// Memory: 32 B per object + 12 B per reference (its id and slot) + 24 B per root, and the values
// (field_layouts.h: 8 B per primitive field, string or array, 2 B per recorded string unit), in
// vectors grown as the runtime reports (the runtime gives no count ahead).
//
// Thread-safety: none; the port fills it inside the collection (the runtime serialises its GC
// callbacks) and reads it afterwards on the capture thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "corprof_abi.h"
#include "dotnet_origins.h"
#include "huge_page_allocator.h"
#include "static_roots.h"

namespace xrpm {
namespace dotnet {

// 32 bytes. Its references are the next ref_count in HeapRecord::refs (and ::slots): objects
// and references are recorded in the same order, so an object's first is the sum of the counts
// before it.
struct RecordedObject {
  uint64_t id;
  cor::ClassID klass;
  uint32_t size = 0;
  uint32_t ref_count = 0;
  // Words in HeapRecord::values (field_layouts.h): its primitive fields', a string's length
  // (then min(length, kMaxStringCap) units in ::text) or an array's length.
  uint32_t value_count = 0;
  bool values = false;  // values were read (its class had a layout in the collection)
};

static_assert(sizeof(RecordedObject) <= 32, "RecordedObject: 32 bytes per recorded object");

struct RecordedRoot {
  uint64_t object;
  cor::GcRootKind kind;
  int32_t flags;  // cor::GcRootFlags bits
  uint64_t id;    // stack: FunctionID; handle: the handle
};

// The record's large vectors: mapped in huge pages (huge_page_allocator.h).
template <typename T>
using RecordVector = std::vector<T, HugePageAllocator<T>>;

struct HeapRecord {
  RecordVector<RecordedObject> objects;
  RecordVector<uint64_t> refs;
  RecordVector<uint32_t> slots;   // per reference: its field's index or element index
  RecordVector<uint64_t> values;  // the objects' values, in object order
  RecordVector<uint16_t> text;    // the strings' first units, in object order
  RecordVector<RecordedRoot> roots;
  std::vector<StaticValue> statics;  // the static reference fields' values (static_roots.h)
  uint64_t frozen = 0;               // of objects: the non-GC heap's (appended after the walk)
  // The GC heap's address ranges [start, end) at the collection's end (GetGenerationBounds);
  // empty when the runtime did not give them all.
  std::vector<std::pair<uint64_t, uint64_t>> gc_ranges;
  // The sampled objects' origins after the collection (dotnet_origins.h), sorted by address.
  std::vector<DotnetOrigins::Entry> origins;

  // How much the last record held, to reserve before the next collection (growing the vectors
  // inside it, where every copy lengthens the game's pause, costs more than reserving before).
  struct Sizes {
    size_t objects = 0, refs = 0, values = 0, text = 0;
  };
  Sizes sizes() const { return Sizes{objects.size(), refs.size(), values.size(), text.size()}; }
  // Reserves `last` and an eighth more, and writes the reserved memory once so that the pages
  // are mapped before the collection: a first touch inside it is a page fault in the game's
  // pause (14 us each on the paravirtualised machines we measure on, ~25 000 of them for a
  // 1 M-object heap). The vectors' memory is in huge pages (RecordVector): a 2 MiB page faults
  // once where 512 small ones would, which shortens the mapping before the capture (the game
  // runs, but the capture waits) and a vector's growth inside the collection (in the pause).
  // Throws std::bad_alloc as the vectors do.
  void Reserve(const Sizes& last) {
    ReserveTouched(&objects, last.objects + last.objects / 8);
    ReserveTouched(&refs, last.refs + last.refs / 8);
    ReserveTouched(&slots, last.refs + last.refs / 8);
    ReserveTouched(&values, last.values + last.values / 8);
    ReserveTouched(&text, last.text + last.text / 8);
  }

  template <typename V>
  static void ReserveTouched(V* v, size_t n) {
    if (v->capacity() >= n) return;  // kept from the last capture: mapped already
    v->reserve(n);
    v->resize(n);  // writes every element (value-initialised)
    v->clear();    // keeps the capacity
  }

  void Clear() {
    objects.clear();
    refs.clear();
    slots.clear();
    values.clear();
    text.clear();
    roots.clear();
    statics.clear();
    gc_ranges.clear();
    origins.clear();
    frozen = 0;
  }
};

}  // namespace dotnet
}  // namespace xrpm
