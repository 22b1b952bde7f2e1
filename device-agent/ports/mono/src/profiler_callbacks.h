// InstallProfiler: creates the process's Mono profiler and routes every event the Mono port
// uses to a MonoPort (profiler_callbacks.cpp). SetReporting is the `reporting` function to give
// the MonoPort: root (and, without origins, move) reports for the capture's collection only.
//
// Thread-safety: InstallProfiler once per process, on the thread initialising Mono, before the
// runtime initialises (allocation reporting must be decided then).
#pragma once

#include "mono_port.h"
#include "profiler_options.h"

namespace xrpm {
namespace mono {

void SetReporting(bool on);
// `on_shutdown` (may be null) runs when the runtime begins shutting down.
void InstallProfiler(MonoPort* port, const FrameMethod& frame, bool allocations,
                     void (*on_shutdown)());

}  // namespace mono
}  // namespace xrpm
