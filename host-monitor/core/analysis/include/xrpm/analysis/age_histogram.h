// Age histogram: the live objects of a snapshot (all, or a given list) by age in frames at the
// capture (Snapshot::age_frames: capture_frame - alloc_frame), as objects and shallow bytes per
// bin; objects whose origin was not recorded are counted apart (unknown_*), never binned.
//
// Binning (AgeHistogramOptions::bin_frames):
//  - 0 (default), log2 bins: bin 0 holds age 0 (allocated in the frame the capture stopped),
//    bin k >= 1 holds ages [2^(k-1), 2^k - 1]: 1, 2-3, 4-7, ... frames. At 60 fps bin 7
//    (64-127 frames) is about 1-2 s old, bin 13 about 1-2 min.
//  - w > 0, fixed bins: bin k holds ages [k*w, (k+1)*w - 1]; the last of max_bins bins also
//    holds everything older (its `last` is UINT64_MAX).
// Bins run from bin 0 up to the oldest non-empty one; empty bins in between are kept so a
// chart can draw them as gaps.
//
// Sampled origins: count/bytes are the recorded (sampled) objects; est_count/est_bytes the
// Horvitz-Thompson estimate as in site_stats.h (equal to the recorded figures when complete).
//
// Algorithm: one pass over the objects, O(objects + bins).
// Thread-safety: pure functions of a const Snapshot; safe to call concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::analysis {

struct AgeBin {
  uint64_t first = 0;  // youngest age in the bin, frames
  uint64_t last = 0;   // oldest age in the bin, frames (inclusive)
  uint64_t count = 0;
  uint64_t bytes = 0;
  double est_count = 0;
  double est_bytes = 0;
};

struct AgeHistogramOptions {
  uint64_t bin_frames = 0;  // 0: log2 bins; else fixed bins of this many frames
  size_t max_bins = 64;     // fixed bins only (>= 1)
};

struct AgeHistogram {
  std::vector<AgeBin> bins;
  uint64_t known_count = 0, known_bytes = 0;      // objects that have an age
  uint64_t unknown_count = 0, unknown_bytes = 0;  // origin not recorded (all when no origins)
  bool has_origins = false;                       // the snapshot recorded origins at all
  bool sampled = false;                           // origins->sample_bytes > 0
  uint64_t capture_frame = 0;
};

AgeHistogram ComputeAgeHistogram(const Snapshot& s, const AgeHistogramOptions& opts = {});
AgeHistogram ComputeAgeHistogramOf(const Snapshot& s, std::span<const uint32_t> objects,
                                   const AgeHistogramOptions& opts = {});

// The log2 bin of an age (0 for age 0, else 1 + floor(log2(age))).
uint32_t AgeLog2Bin(uint64_t age);

}  // namespace xrpm::analysis
