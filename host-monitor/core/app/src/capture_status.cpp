// What the monitor says about a capture's cost (capture_status.h).
#include "xrpm/app/capture_status.h"

#include "xrpm/model/capture_pause.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

std::string CaptureLandedText(const Snapshot& s) {
  std::string t = "Captured " + FormatCount(s.object_count()) +
                  (s.object_count() == 1 ? " object (" : " objects (") +
                  FormatBytes(s.total_bytes()) + ")";
  if (!s.capture) return t;
  return t + " in " + FormatDuration(static_cast<double>(s.capture->elapsed_us) / 1e6) +
         "; the game paused " + DescribeCapturePause(*s.capture);
}

std::string CapturePauseText(const Snapshot* s, uint64_t pause_us) {
  return s && s->capture ? DescribeCapturePause(*s->capture) : FormatPauseTime(pause_us);
}

std::string GamePausedText(const CaptureInfo& c) {
  return "The game paused " + DescribeCapturePause(c) + ".";
}

}  // namespace xrpm::app
