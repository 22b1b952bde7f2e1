// Memory budgets: the rules of a BUDGET.json file for `xrpm check`, parsed with
// the line of every problem, and the type-name patterns they use.
//
//   {"types":        [{"name": "Bubbles.*", "max_count": 500, "max_bytes": 65536,
//                      "max_retained_bytes": 1048576}],
//    "after_marker": [{"marker": "Level 2 loaded", "type": "Level1.*", "max_count": 0}],
//    "leaks":        [{"type": "*", "max_count": 0}],
//    "frames":       {"alloc_bytes_mean": 2048, "alloc_bytes_p95": 4096,
//                     "alloc_bytes_max": 65536, "gcs_per_minute": 2},
//    "tags":         [{"tag": "AI", "max_bytes_per_frame": 1024}]}
//
// Every rule and key is optional, but a rule object names its subject and at least one limit.
// Counts and bytes of captures are non-negative integers; per-frame and per-minute limits of
// recordings are non-negative numbers. An unknown rule or key, a wrong type, a missing key or a
// bad pattern is an InputError with code "bad-budget" naming the file and the line (1-based) of
// the offending value: "budget.json:3: types[0].max_count: expected a non-negative integer,
// found \"500\"". docs/guide/budgets.md documents the schema.
//
// Patterns: xrpm/model/glob.h (GlobMatch); an empty pattern or a trailing `\` is bad here.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrpm::app {

struct TypeBudget {
  std::string name;  // a pattern
  std::optional<uint64_t> max_count, max_bytes, max_retained_bytes;
  uint64_t line = 0;
};
struct AfterMarkerBudget {
  std::string marker;  // the exact text of the game's marker
  std::string type;    // a pattern
  uint64_t max_count = 0;
  uint64_t line = 0;
};
struct LeakBudget {
  std::string type;  // a pattern
  uint64_t max_count = 0;
  uint64_t line = 0;
};
struct FrameBudget {
  std::optional<double> alloc_bytes_mean, alloc_bytes_p95, alloc_bytes_max, gcs_per_minute;
  uint64_t line = 0;
  bool any() const {
    return alloc_bytes_mean || alloc_bytes_p95 || alloc_bytes_max || gcs_per_minute;
  }
};
struct TagBudget {
  std::string tag;  // the exact scope tag
  double max_bytes_per_frame = 0;
  uint64_t line = 0;
};

struct Budget {
  std::vector<TypeBudget> types;
  std::vector<AfterMarkerBudget> after_marker;
  std::vector<LeakBudget> leaks;
  FrameBudget frames;  // any() false: no frames rule
  std::vector<TagBudget> tags;
};

// Parses BUDGET.json text; `name` is the file name in errors. Throws InputError ("bad-budget").
Budget ParseBudget(std::string_view json, const std::string& name);
// Reads and parses a file (InputError "open-failed" when it cannot be read).
Budget LoadBudget(const std::string& path);

// "" when `pattern` is a valid pattern, else what is wrong with it.
std::string CheckPattern(std::string_view pattern);

}  // namespace xrpm::app
