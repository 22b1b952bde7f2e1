// AvailableMemoryBytes: how much memory this machine can still give without swapping, for the
// steps that choose how much to take before they take it (the analysis's index form, the
// monitor's demo heap, the columns a capture reserves ahead).
//
// Thread-safety: reentrant; each call reads /proc/meminfo.
#pragma once

#include <cstdint>

namespace xrpm {

// MemAvailable of /proc/meminfo. UINT64_MAX when the system does not say.
uint64_t AvailableMemoryBytes();

}  // namespace xrpm
