// Checking a memory budget (budget.h) against captures and recordings: the core of `xrpm check
// BUDGET.json INPUT...`, which renders the result as a table or JSON and exits 0 when it is ok.
//
// What each rule measures, per input it applies to:
//   types        each capture: instances, shallow bytes, and retained bytes of the types whose
//                name matches (the set taken as one: nested instances count once, type_stats.h)
//   after_marker each capture whose last marker before it (CaptureInfo::last_marker) is the
//                rule's marker: instances of the matching types (every object of a capture is
//                live: a capture follows a full collection). No such capture breaks the rule
//                (measured: none): the run did not reach the point the rule is about.
//   leaks        the three captures, in the order given (A B C): objects of the matching types
//                in the leak filter's groups (leak_filter.h; recorded objects when sampled)
//   frames       each recording: bytes allocated per frame (mean, p95 and max; exact counts
//                from the runtime) and collections per minute of frame time (frame_summary.h)
//   tags         each recording: the scope tag's estimated bytes per frame (allocation_profile.h)
// A rule holds when measured <= limit.
//
// BudgetUsageError when a rule has nothing to apply to: types/after_marker rules without a
// capture, leaks rules without exactly three captures, frames/tags rules without a recording.
// InputError when the leak filter cannot compare the captures (no allocation origins, captures
// out of order).
//
// Cost: one HeapAnalysis (index, dominators, type statistics) per capture when a types or
// after_marker rule needs it (O(N) each), the leak filter once (O(N + E) on C), one pass over
// each recording; rules against the analysed data are O(types) each.
//
// Thread-safety: pure function of its inputs; analyses use `threads` workers.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "xrpm/app/budget.h"
#include "xrpm/model/frame_recording.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

class BudgetUsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One INPUT: a capture or a recording (the caller loaded it), named as on the command line.
struct BudgetInput {
  std::string name;
  const Snapshot* capture = nullptr;
  const FrameRecording* recording = nullptr;
};

struct RuleResult {
  std::string rule;   // "types Bubbles.* max_count", "frames alloc_bytes_p95", ...
  std::string input;  // the input's name; "A, B, C" for leaks
  double limit = 0;
  std::optional<double> measured;  // none: nothing to measure (after_marker: no such capture)
  bool ok = true;
  uint64_t line = 0;  // of the rule in the budget file
};

struct BudgetResult {
  bool ok = true;
  std::vector<RuleResult> rules;  // in budget order, then input order
};

BudgetResult CheckBudget(const Budget& b, const std::vector<BudgetInput>& inputs,
                         unsigned threads = 0);

}  // namespace xrpm::app
