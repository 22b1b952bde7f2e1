// Leak filter over three captures of one run of a game (memlab's / Chrome DevTools' "allocated
// between snapshot 1 and 2 and still alive in snapshot 3"): the objects of capture C whose
// allocation origin is known and whose alloc frame lies in [A.capture_frame, B.capture_frame)
// — allocated after A was captured and no later than B — that a strong root still holds in C.
// Whatever the game allocates and frees every frame is gone by C; what the game keeps on
// purpose was (mostly) allocated before A. What is left is what grows.
//
// The result is grouped by (type name, allocation site), largest first (bytes, then count),
// each group with the merged shortest paths that hold its objects in C (paths.h; the first
// holds most of them). In-window objects that no strong root reaches (garbage the collector has
// not freed yet) are counted apart and not grouped.
//
// Requirements (else LeakFilterError with a message naming the capture): all three snapshots
// have allocation origins; A.capture_frame <= B.capture_frame <= C.capture_frame (the frame
// counter only grows within one run); and, when the captures say so, they come from one run of
// the game: the same app and runtime (CaptureInfo) and capture clocks
// (section start_ms, boot-relative) that do not go backwards.
//
// Sampled origins (Mono, origins->sample_bytes > 0): only sampled objects have an origin, so
// the groups hold the recorded (sampled) objects; est_count/est_bytes estimate all of them
// (site_stats.h). LeakReport::sampled says so.
//
// Algorithm: one pass over C's objects (O(N)) selecting and hashing (type group, site) pairs,
// a counting sort of the selected objects by group, then PathMerger over C's RootPathForest
// (O(N + E) in all, whatever the number of groups). A and B are only read for their capture
// frame and metadata.
//
// Thread-safety: pure functions; the inputs are read only.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/model/progress.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::analysis {

class LeakFilterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How the three captures are named in messages ("A", "B", "C" or their file names).
using LeakNames = std::array<std::string_view, 3>;

// "" when A, B and C can be compared, else why not (one sentence naming the capture).
std::string CheckLeakCaptures(const Snapshot& a, const Snapshot& b, const Snapshot& c,
                              const LeakNames& names = {"A", "B", "C"});

struct LeakGroup {
  uint32_t group = kNoIndex;     // type group in C's GraphIndex
  std::string_view type;         // its name
  uint32_t site = kUnknownSite;  // index into C's origins->sites (never kUnknownSite)
  uint64_t count = 0;            // objects (recorded ones, when sampled)
  uint64_t bytes = 0;            // their shallow bytes
  double est_count = 0;          // estimate of all such objects (= count unless sampled)
  double est_bytes = 0;
  std::vector<uint32_t> objects;  // C's object indices, ascending
  MergedPaths paths;              // what holds them in C (retained bytes not computed: 0)
};

struct LeakOptions {
  size_t max_paths = 3;   // merged paths kept per group
  size_t max_groups = 0;  // 0: all groups
};

struct LeakReport {
  uint64_t window_first = 0;  // A.capture_frame: first alloc frame in the window
  uint64_t window_end = 0;    // B.capture_frame: first alloc frame after it
  uint64_t c_frame = 0;       // C.capture_frame
  bool sampled = false;       // C's origins are sampled (Mono)
  uint32_t sample_bytes = 0;
  std::vector<LeakGroup> groups;  // largest first
  uint64_t count = 0, bytes = 0;  // all grouped objects (also beyond max_groups)
  uint64_t other_groups = 0;      // groups beyond max_groups
  uint64_t unreachable_count = 0, unreachable_bytes = 0;  // in the window, no strong root
  uint64_t before_count = 0;   // C's objects allocated before A was captured
  uint64_t after_count = 0;    // C's objects allocated after B was captured
  uint64_t unknown_count = 0;  // C's objects whose origin was not recorded
};

// c: C's index; forest: RootPathForest::Build(c). Throws LeakFilterError (see above),
// Cancelled on cancel.
LeakReport FindLeaks(const Snapshot& a, const Snapshot& b, const GraphIndex& c,
                     const RootPathForest& forest, const LeakOptions& opts = {},
                     const LeakNames& names = {"A", "B", "C"}, const Progress& progress = {});

}  // namespace xrpm::analysis
