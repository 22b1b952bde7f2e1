// FrameRecording: what a frames subscription received from a device (docs/PROTOCOL.md, "Frames
// and allocation samples"): one row per game frame (duration, allocated bytes and objects, exact
// or estimated as frame_totals says, collections and their pause, bytes left in the GC budget)
// and one row per sampled allocation (frame, stack, type, size), with the interned method, type
// and stack tables they refer to.
// A document of its own, like a Snapshot: the host client (xrpm/client/host_client.h) fills one
// from the wire, a recording file stores one (xrpm/formats/recording_file.h), and it is the
// input of every frames analysis (xrpm/analysis/frame_summary.h, allocation_profile.h,
// allocation_diff.h) in the CLI and the monitor.
//
// Markers (the game's Marker / RequestCapture calls) and the scope tags of samples travel with
// the same batches (CAP_MARKERS).
//
// Ids are 1-based indexes into methods / types / stacks / tags; id 0 means "unknown" (the device's
// table was full) and has a fixed name.
//
// Thread-safety: a plain value; the host client hands out copies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xrpm {

struct FrameRow {
  uint64_t frame = 0;
  uint64_t end_us = 0;  // device clock
  uint32_t duration_us = 0;
  uint32_t work_us = 0;
  uint64_t alloc_bytes = 0;
  uint32_t alloc_objects = 0;
  uint32_t gcs = 0;
  uint32_t gc_pause_us = 0;
  int64_t gc_budget_left = -1;  // -1: the runtime has no byte budget
  // The first collections' generations and reasons, a byte each (xrpm/protocol/gc_kinds.h);
  // 0: not known.
  uint32_t gc_kinds = 0;

  friend bool operator==(const FrameRow&, const FrameRow&) = default;
};

struct SampleRow {
  uint64_t frame = 0;
  uint32_t stack = 0;
  uint32_t type = 0;
  uint32_t size = 0;
  uint32_t tag = 0;  // scope tag id (tags); 0: no scope open

  friend bool operator==(const SampleRow&, const SampleRow&) = default;
};

// Something the game posted (Xrpm.Profiler.Marker / RequestCapture): its text (at most
// protocol::kMaxMarkerBytes), the frame it was posted in and the device clock.
enum class MarkerKind : uint8_t { kMarker = 0, kCaptureRequest = 1 };
struct MarkerRow {
  MarkerKind kind = MarkerKind::kMarker;
  std::string text;
  uint64_t frame = 0;
  uint64_t time_us = 0;  // device clock (FrameRow::end_us scale)

  friend bool operator==(const MarkerRow&, const MarkerRow&) = default;
};
const char* MarkerKindName(MarkerKind k);  // "marker", "capture-request"

// What the frame rows' alloc_bytes / alloc_objects are: the runtime's exact count (the emulator,
// Mono, .NET's --allocations=exact), or an estimate from its allocation samples (.NET's sampled
// route: the sum of the game thread's sample weights). A device or file that does not say: exact.
enum class FrameTotals : uint8_t { kExact = 0, kEstimated = 1 };
const char* FrameTotalsName(FrameTotals t);  // "exact", "estimated" (JSON values)

struct FrameRecording {
  std::string app;                            // the device's application ("bubbles.exe")
  uint32_t sample_bytes = 0;                  // the mean sampling interval in force
  std::vector<std::string> methods;           // id - 1 -> name
  std::vector<std::string> types;             // id - 1 -> name
  std::vector<std::vector<uint32_t>> stacks;  // id - 1 -> method ids, innermost first
  std::vector<FrameRow> frames;               // in frame order
  std::vector<SampleRow> samples;             // in arrival order (frame order)
  std::vector<std::string> tags;              // scope tag id - 1 -> text
  std::vector<MarkerRow> markers;             // in the order the game posted them
  uint64_t dropped_markers = 0;  // the device could not queue these (a flood), in total
  uint64_t dropped_records = 0;  // the device's ring overwrote these before they were sent
  uint64_t batches = 0;
  uint64_t wire_bytes = 0;  // serialized FrameBatch bytes received
  // Rows the host did not keep because its own limit (ClientOptions::max_frame_rows) was reached.
  uint64_t host_dropped_rows = 0;
  uint64_t subscription = 0;  // which subscription of the connection these rows belong to
  // What the frame rows' alloc_bytes / alloc_objects are (the device's FramesStarted; saved).
  FrameTotals frame_totals = FrameTotals::kExact;

  friend bool operator==(const FrameRecording&, const FrameRecording&) = default;

  // Appends `delta` (the rows and definitions that followed this recording's) to this one.
  void Append(FrameRecording&& delta);

  const std::string& MethodName(uint32_t id) const;
  const std::string& TypeName(uint32_t id) const;
  // A scope tag's text; "<untagged>" for 0 or an unknown id.
  const std::string& TagName(uint32_t id) const;
  // The method ids of stack `id` (empty for 0 or an unknown id).
  const std::vector<uint32_t>& Stack(uint32_t id) const;
};

}  // namespace xrpm
