// libFuzzer target: what `xrpm capture`'s unattended options and the monitor's Auto capture
// fields parse: ParseDuration, ParseByteSize, the -o template
// (OutputTemplate), the marker pattern (GlobMatch) and ParseTriggers, on arbitrary bytes.
// The input is split at '\n' into: every, on-growth, on-gc-pause, on-marker, output template,
// and a marker text (missing fields are "").
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a rejected duration / size / template / trigger set comes with an error saying what was
//      expected; an accepted duration is positive and finite, an accepted size at least 1;
//   2. an accepted template expands the same whatever the marker text says, apart from the
//      fields: a marker or trigger text never adds a '/' (no path escapes through a field);
//   3. a marker pattern matches itself, "*" matches everything, and a pattern without '*'
//      matches only its own text.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "xrpm/analysis/capture_triggers.h"
#include "xrpm/app/auto_capture.h"
#include "xrpm/app/capture_output.h"
#include "xrpm/model/glob.h"
#include "xrpm/model/human_parse.h"

namespace {
size_t Slashes(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '/';
  return n;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> f;
  size_t start = 0;
  for (size_t i = 0; i <= text.size() && f.size() < 6; ++i)
    if (i == text.size() || text[i] == '\n') {
      f.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  f.resize(6);

  std::string error;
  double seconds = 0;
  if (xrpm::ParseDuration(f[0], &seconds, &error))
    XRPM_FUZZ_CHECK(seconds > 0 && std::isfinite(seconds), f[0]);
  else
    XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos, error);
  uint64_t bytes = 0;
  if (xrpm::ParseByteSize(f[1], &bytes, &error))
    XRPM_FUZZ_CHECK(bytes >= 1, f[1]);
  else
    XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos, error);

  xrpm::analysis::CaptureTriggerOptions o;
  if (!xrpm::app::ParseTriggers({f[0], f[1], f[2], f[3], !f[5].empty()}, &o, &error))
    XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos ||
                        error.find("nothing would trigger") != std::string::npos,
                    error);

  xrpm::app::OutputTemplate t;
  if (t.Parse(f[4], &error)) {
    const std::string plain = t.Expand(1, "m", "every");
    const std::string wild = t.Expand(1, f[5], f[5]);
    XRPM_FUZZ_CHECK(Slashes(wild) == Slashes(plain), f[4] + " with " + f[5] + ": " + wild);
  } else {
    XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos, error);
  }

  XRPM_FUZZ_CHECK(xrpm::GlobMatch("*", f[5]), f[5]);
  if (f[3].find_first_of("*?\\") == std::string::npos) {
    XRPM_FUZZ_CHECK(xrpm::GlobMatch(f[3], f[3]), f[3]);
    XRPM_FUZZ_CHECK(xrpm::GlobMatch(f[3], f[5]) == (f[3] == f[5]), f[3] + "|" + f[5]);
  }
  return 0;
}
