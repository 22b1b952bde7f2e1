// Local capture: the agent's capture of a runtime without a connection. It runs exactly what the
// agent runs for a host (heap_walker.h, capture_runner: stop the world, full collection, walk
// into the agent's capture sink, CaptureBegin, HeapBatch..., CaptureEnd) and hands the
// serialized wire::Envelope messages to the caller instead of a socket, so a tool in the same
// process (the emulator's ground-truth dump) gets what a host would receive, field columns
// included, through the same encoding.
//
// Memory: the job has no memory bound (the bound exists for a device's memory); every message is
// held until the walk is over (the capture's wire size, O(objects + references)), then handed
// over in order and freed one by one.
//
// Thread-safety: call from any thread except the game thread inside a frame (the world is
// stopped, as for a capture); `walk` runs on the calling thread with the world stopped, and
// `deliver` on the calling thread after the world resumed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace agent {

struct LocalCaptureOptions {
  // Layouts, slots and labels; values and string text; the string cap (0: the wire's default,
  // protocol::kDefaultStringCap). Values without fields is not a capture the wire allows.
  WalkDetail detail;
  uint32_t stop_timeout_ms = 10000;
  // How the capture walks the heap into its sink (null: runtime.WalkHeap(sink)), with the world
  // stopped after the collection: a caller that builds something else from the same walk wraps
  // the sink and passes the wrapper to the runtime.
  std::function<void(HeapInfoCallback& sink)> walk;
};

// Runs one capture of `runtime` and passes each serialized envelope (capture_begin, heap_batch...,
// capture_end), in order, to `deliver`. Returns "" when the capture completed, else why not
// (then `deliver` got a capture_abort last, or nothing).
std::string CaptureLocally(RuntimePort& runtime, const LocalCaptureOptions& options,
                           const std::function<void(const std::string& envelope)>& deliver);

}  // namespace agent
}  // namespace xrpm
