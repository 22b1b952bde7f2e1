// Dump contents: what a ground-truth dump carries beyond the heap's shape (Snapshot::fields:
// type layouts, enum names, the slot of every reference, root labels, field values and string
// text), exactly as a capture of the same moment carries them. There is no second copy of the
// field rules: the dump's single walk is teed (WalkTee) into the dump's SnapshotBuilderSink,
// which steers it, and into the device agent's own capture sink (agent::CaptureLocally, no
// sockets); the host's CaptureAssembler assembles those messages as it would a live capture's,
// and the capture's fields move into the dump once both are checked to hold the same types,
// objects (same order), references and roots.
//
// Cost: the capture's encoding, decoding and a second copy of the heap's columns while the dump
// is made (O(objects + references) time and memory, given back before the dump is written);
// none without contents.
//
// Thread-safety: call from any thread except the game thread while it is inside a frame.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::emulator {

struct DumpContents {
  bool fields = false;      // layouts, reference slots, root labels, enum names
  bool values = false;      // field values and string text (only with fields)
  uint32_t string_cap = 0;  // UTF-16 code units of text per string; 0: a capture's default
};

// The contents a dump to `path` keeps: fields for the formats that hold them (.xrpm, and the
// .heapsnapshot's field names and string text), none for the text dumps (.gclog, .txt), which
// stay exactly what they were; values unless `values` is false.
DumpContents ContentsFor(const std::string& path, bool values, uint32_t string_cap);

// Stops the world, collects and walks once into `builder` (which steers the walk and fills
// `snap`) and into a capture with `contents` (contents.fields must be set), then gives `snap`
// the capture's fields. Throws std::runtime_error when the game cannot be stopped within
// timeout_ms, when the capture fails, or when the two disagree on the heap.
void WalkWithContents(Runtime& rt, agent::HeapInfoCallback& builder, Snapshot& snap,
                      const DumpContents& contents, uint32_t timeout_ms);

}  // namespace xrpm::emulator
