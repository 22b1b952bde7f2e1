// The game pause of a capture in words, the one wording every place that shows it uses
// (`xrpm capture`, `xrpm info`, the monitor's status line, Connection panel and Summary):
//   paused walk:   "45.2 ms (GC 11.0 ms, walk 34.2 ms)"
//   snapshot walk: "239.0 ms (GC 227.0 ms, snapshot 12.0 ms; then walked in 1.4 s while the
//                  game ran)"
// The figures are CaptureInfo's (capture_info.h), which says what each one measures.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/model/capture_info.h"

namespace xrpm {

// A pause figure: "0.3 ms", "239.0 ms" below a second (0.1 ms matters when pauses are compared),
// "1.4 s" from a second on.
std::string FormatPauseTime(uint64_t us);

// "<pause> (GC <gc>, walk <walk>)" or, after a snapshot walk, "<pause> (GC <gc>, snapshot
// <snapshot>; then walked in <walk> while the game ran)".
std::string DescribeCapturePause(const CaptureInfo& c);

}  // namespace xrpm
