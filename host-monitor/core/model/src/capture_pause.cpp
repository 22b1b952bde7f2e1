// The game pause of a capture in words (capture_pause.h).
#include "xrpm/model/capture_pause.h"

#include <cstdio>

namespace xrpm {

std::string FormatPauseTime(uint64_t us) {
  char b[40];
  if (us < 1'000'000)
    std::snprintf(b, sizeof b, "%.1f ms", static_cast<double>(us) / 1e3);
  else
    std::snprintf(b, sizeof b, "%.1f s", static_cast<double>(us) / 1e6);
  return b;
}

std::string DescribeCapturePause(const CaptureInfo& c) {
  std::string s = FormatPauseTime(c.pause_us) + " (GC " + FormatPauseTime(c.gc_us);
  if (c.snapshot_walk())
    s += ", snapshot " + FormatPauseTime(c.walk_us) + "; then walked in " +
         FormatPauseTime(c.walk_after_pause_us) + " while the game ran)";
  else
    s += ", walk " + FormatPauseTime(c.walk_us) + ")";
  return s;
}

}  // namespace xrpm
