// What the monitor says about a capture's cost, in the words of `xrpm capture` and `xrpm info`
// (DescribeCapturePause, xrpm/model/capture_pause.h): the line logged when a capture lands (the
// status bar shows the newest log line) and the Connection panel's pause line. The Summary view
// shows the same pause for a captured or reopened snapshot from the snapshot's CaptureInfo.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/model/snapshot.h"

namespace xrpm::app {

// "Captured 1,234 objects (56.0 KiB) in 0.4 s; the game paused 239.0 ms (GC 227.0 ms, snapshot
// 12.0 ms; then walked in 1.4 s while the game ran)"; without capture metadata, no pause.
std::string CaptureLandedText(const Snapshot& s);

// A capture's pause as DescribeCapturePause words it ("45.2 ms (GC 11.0 ms, walk 34.2 ms)"), or
// the bare pause_us ("45.2 ms") when there is no snapshot or it has no capture metadata: the
// unattended captures' one-line summaries (`xrpm capture --every ...`, the monitor's Auto capture).
std::string CapturePauseText(const Snapshot* s, uint64_t pause_us);

// "The game paused 45.2 ms (GC 11.0 ms, walk 34.2 ms)."
std::string GamePausedText(const CaptureInfo& c);

}  // namespace xrpm::app
