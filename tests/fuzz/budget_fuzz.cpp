// libFuzzer target: memory budget files (app::ParseBudget, the JSON of `xrpm check`).
//
// Per input, beyond "no crash, hang, leak or sanitizer report": the parser returns a Budget or
// throws InputError with code "bad-budget", never anything else; a refusal names a line that
// exists in the input; an accepted budget has only valid patterns, a limit in every rule, and its
// rules' lines lie in the input; its patterns match their own text when they hold no wildcard or
// escape, and "*" matches everything.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "xrpm/app/budget.h"
#include "xrpm/model/glob.h"

namespace xrpm::fuzz {
namespace {

void CheckPatternOf(const std::string& p, uint64_t line, uint64_t lines) {
  XRPM_FUZZ_CHECK(app::CheckPattern(p).empty(), p);
  XRPM_FUZZ_CHECK(line >= 1 && line <= lines, std::to_string(line));
  if (p.find_first_of("*?\\") == std::string::npos) XRPM_FUZZ_CHECK(GlobMatch(p, p), p);
  XRPM_FUZZ_CHECK(GlobMatch("*", p), p);
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const uint64_t lines = 1 + static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  try {
    const app::Budget b = app::ParseBudget(text, "fuzz.json");
    for (const auto& t : b.types) {
      CheckPatternOf(t.name, t.line, lines);
      XRPM_FUZZ_CHECK(t.max_count || t.max_bytes || t.max_retained_bytes, "types rule limit");
    }
    for (const auto& r : b.after_marker) {
      CheckPatternOf(r.type, r.line, lines);
      XRPM_FUZZ_CHECK(!r.marker.empty(), "after_marker marker");
    }
    for (const auto& r : b.leaks) CheckPatternOf(r.type, r.line, lines);
    for (const auto& r : b.tags) XRPM_FUZZ_CHECK(!r.tag.empty() && r.line <= lines, "tag");
  } catch (const InputError& e) {
    XRPM_FUZZ_CHECK(e.diagnostic().code == "bad-budget", e.what());
    XRPM_FUZZ_CHECK(e.diagnostic().line >= 1 && e.diagnostic().line <= lines, e.what());
  }
  return 0;
}
