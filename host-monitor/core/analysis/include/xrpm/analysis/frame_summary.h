// FrameSummary: the figures of a range of frames that an XNA developer computes by hand: frame
// times against the 16.7 / 33.3 ms lines, allocation per frame, collections per second and the
// share of time spent in GC (sum of GC pauses / sum of frame durations).
//
// Algorithm: one pass over the frame rows in the range, then a sort of the durations and of the
// allocated bytes for the percentiles (nearest rank): O(n log n). Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/model/frame_recording.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::analysis {

constexpr double kFrameBudget60Ms = 1000.0 / 60.0;  // 16.7 ms
constexpr double kFrameBudget30Ms = 1000.0 / 30.0;  // 33.3 ms
// A frame counts as over a budget when it is longer by more than this: a game paced at 60 Hz
// measures 16.6-16.9 ms frames from timer jitter alone, which are not missed frames.
constexpr double kFrameJitterMs = 0.5;

struct FrameSummary {
  uint64_t frames = 0;
  uint64_t first_frame = 0, last_frame = 0;
  uint64_t missing_frames = 0;  // gaps in the frame numbers (dropped by the device's ring)
  double seconds = 0;           // sum of frame durations
  double mean_ms = 0, p50_ms = 0, p95_ms = 0, max_ms = 0;
  double mean_work_ms = 0;
  uint64_t over_60hz = 0;  // frames longer than 16.7 ms (+ kFrameJitterMs)
  uint64_t over_30hz = 0;  // frames longer than 33.3 ms (+ kFrameJitterMs)
  uint64_t alloc_bytes = 0, alloc_objects = 0;
  double alloc_bytes_per_frame = 0;
  uint64_t alloc_bytes_p95 = 0, alloc_bytes_max = 0;  // bytes allocated in one frame
  uint64_t gcs = 0;
  double gc_ms = 0, max_gc_ms = 0;
  double gcs_per_second = 0;
  double gc_share = 0;  // of the frame time spent in collections
  uint64_t frames_with_gc = 0;
  // Collections by generation and reason (the frame rows' kinds: a frame keeps the first four);
  // in the order first met. Collections without a kind are not in it.
  struct GcKindCount {
    protocol::GcKind kind;
    uint64_t count = 0;
  };
  std::vector<GcKindCount> gcs_by_kind;
};

FrameSummary SummarizeFrames(const FrameRecording& r, FrameRange range = {});

// "gen 2 induced", "gen 0 allocation", "gen 1" (reason unknown): one collection's kind as the CLI
// and the monitor show it.
std::string GcKindText(protocol::GcKind kind);
// A frame row's kinds joined with ", " ("" when it has none).
std::string GcKindsText(uint32_t packed);
// A frame's `gcs` collections with their kinds: "2 GC (gen 0 other, gen 2 induced)", with ", ..."
// when the row has more collections than it carries kinds of, "1 GC" when it carries none.
std::string FrameGcsText(uint32_t gcs, uint32_t packed);

}  // namespace xrpm::analysis
