// HeapRecord: what CoreCLR reported during the capture's collection, kept until the walk hands
// it to the agent after the world resumed: every live object (address, ClassID, size, its
// references, each reference's slot, its values: field_layouts.h) from ObjectReferences, as a
// byte stream (record_stream.h), every root from RootReferences2, what the static reference
// fields hold (read when the collection ends), and the objects of the non-GC heap (frozen
// string literals and types) that live objects or roots reference, which the collector's walk
// does not report.
//
// Memory: the stream (~14 B per object on the bench heap of 4 random references per object,
// less where references point near their holder), 24 B per root, the current object's scratch
// vectors.
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
#include "record_stream.h"
#include "static_roots.h"

namespace xrpm {
namespace dotnet {

// The object being recorded: what field_layouts.h's Record reads and fills in, before the
// object goes into the stream. Its references are HeapRecord::refs (and ::slots).
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

struct RecordedRoot {
  uint64_t object;
  cor::GcRootKind kind;
  int32_t flags;  // cor::GcRootFlags bits
  uint64_t id;    // stack: FunctionID; handle: the handle
};

struct HeapRecord {
  RecordStream stream;  // the objects
  // The object being recorded (cleared for each one; their capacity stays, in huge pages once
  // an array of a quarter million references has grown them: that growth, in the first
  // capture's pause, faulted a 4 KiB page per 512 references).
  // Its non-null references: the runtime's own array when it holds no null (object_refs), else
  // their copy in `refs`.
  const uint64_t* object_refs = nullptr;
  size_t object_ref_count = 0;
  RecordVector<uint64_t> refs;
  RecordVector<uint32_t> slots;  // per reference (the first object_ref_count): field or element
  bool slots_from_zero = false;  // instead of `slots`: 0, 1, 2, ... (an array without nulls)
  std::vector<uint64_t> values;  // its values
  std::vector<uint16_t> text;    // a string's first units
  RecordVector<RecordedRoot> roots;
  std::vector<StaticValue> statics;  // the static reference fields' values (static_roots.h)
  uint64_t frozen = 0;               // of objects: the non-GC heap's (appended after the walk)
  // The GC heap's address ranges [start, end) at the collection's end (GetGenerationBounds);
  // empty when the runtime did not give them all.
  std::vector<std::pair<uint64_t, uint64_t>> gc_ranges;
  // The sampled objects' origins after the collection (dotnet_origins.h), sorted by address.
  std::vector<DotnetOrigins::Entry> origins;

  // How much the last record held, to reserve before the next collection (growing the stream
  // inside it, where every copy lengthens the game's pause, costs more than reserving before).
  struct Sizes {
    size_t bytes = 0, classes = 0;
  };
  Sizes sizes() const { return Sizes{stream.bytes(), stream.classes().size()}; }
  // Reserves what the record is expected to take, writing it once so that its pages are
  // mapped before the collection (a first touch inside it is a page fault in the game's pause:
  // 14 us per 4 KiB page on the paravirtualised machines we measure on), and maps half as much
  // again untouched: room to grow in without a copy, which costs memory only if used. The
  // stream's memory is in huge pages (record_stream.h): a 2 MiB page faults once where 512
  // small ones would. `touch` false: mapped only, for a record a snapshot process is to make
  // (record_child.h): its writes fault in its own copy whatever the parent touched, and the
  // parent's pages fill only as the record arrives (a window at a time). Throws std::bad_alloc.
  void Reserve(const Sizes& expected, bool touch = true) {
    stream.Reserve(expected.bytes + expected.bytes / 2, touch ? expected.bytes : 0,
                   expected.classes + expected.classes / 8);
  }

  // Starts the next object: empties the scratch vectors.
  void BeginObject() {
    object_refs = nullptr;
    object_ref_count = 0;
    slots_from_zero = false;
    refs.clear();  // `slots` keeps its size: Record writes the first object_ref_count
    values.clear();
    text.clear();
  }
  // Appends the object whose references, slots, values and text the scratch vectors hold.
  void EndObject(const RecordedObject& o) {
    stream.Append(o.id, o.klass, o.size, o.values, object_refs,
                  slots_from_zero ? nullptr : slots.data(), object_ref_count, values.data(),
                  values.size(), text.data(), text.size());
  }

  void Clear() {
    stream.Clear();
    BeginObject();
    roots.clear();
    statics.clear();
    gc_ranges.clear();
    origins.clear();
    frozen = 0;
  }
  // Clear, and the memory given back (between captures).
  void Release() {
    Clear();
    stream.Release();
    roots.shrink_to_fit();
    statics.shrink_to_fit();
  }
};

}  // namespace dotnet
}  // namespace xrpm
