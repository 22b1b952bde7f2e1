// AllocationDiff: the allocation traffic of two recordings compared per call site ("was this
// patch an improvement?"): for each site, the estimated bytes allocated per frame
// in A and in B, the change, and each one's sampling error; sites seen in only one recording are
// marked.
//
// A site is, by `by`: the whole call stack (method names, innermost first: the same code in both
// recordings, whatever ids their devices gave it), the allocating (innermost) method, the type,
// or the scope tag. Sites are matched by name, since two recordings number their tables apart.
//
// Estimates (allocation_profile.h): per site, bytes = sum of s / p(s) over its samples, with
// standard error sqrt(sum of s^2 (1 - p) / p^2); per frame, both divided by the recording's frame
// count. A and B are independent samples, so the change's error is sqrt(errA^2 + errB^2). A change
// within about twice its error is what resampling the same game would show.
//
// Order: by |change| per frame, largest first (ties: by name), so the sites that moved most lead
// whether they grew or shrank.
//
// Algorithm: BuildAllocationProfile of each recording (O(samples x depth)), then a hash join by
// site name: O(sites) plus the sort, O(sites log sites).
//
// Thread-safety: pure function over immutable recordings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/frame_recording.h"

namespace xrpm::analysis {

enum class AllocSiteKind { kStack, kMethod, kType, kTag };
// The names `--by` and the monitor's Compare use: "stack", "method", "type", "tag".
const char* AllocSiteKindName(AllocSiteKind k);
std::optional<AllocSiteKind> AllocSiteKindFromName(std::string_view name);

struct AllocDiffRow {
  std::string site;                     // method, type or tag; for stacks, frames joined by " <- "
  std::vector<std::string> frames;      // kStack: the stack, innermost first
  double a_per_frame = 0, a_error = 0;  // estimated bytes per frame in A, its standard error
  double b_per_frame = 0, b_error = 0;
  double change = 0, change_error = 0;  // b - a
  bool only_a = false, only_b = false;  // sampled in one recording only
};

struct AllocSide {
  uint64_t frames = 0;
  uint32_t sample_bytes = 0;
  double per_frame = 0, error = 0;  // all samples: estimated bytes per frame
  double exact_per_frame = 0;       // the frame rows' figure: exact, or as frame_totals says
  FrameTotals frame_totals = FrameTotals::kExact;
};

struct AllocationDiff {
  AllocSiteKind by = AllocSiteKind::kStack;
  AllocSide a, b;
  std::vector<AllocDiffRow> rows;
};

AllocationDiff DiffAllocations(const FrameRecording& a, const FrameRecording& b, AllocSiteKind by);

}  // namespace xrpm::analysis
