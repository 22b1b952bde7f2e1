// The .stat file: the table NETCF writes when performance counters are enabled (one row per
// counter: total, last datum, n, mean, min, max), here for any RuntimePort. Counters that never
// recorded a datum show "-" in the per-datum columns, as NETCF does.
//
// Thread-safety: reads the port's published counters; safe from any thread.
#pragma once

#include <string>

#include "xrpm/agent/runtime_port.h"

namespace xrpm::emulator {

std::string FormatStatTable(const agent::RuntimePort& port);
// Writes FormatStatTable atomically to `path`. Throws std::runtime_error on I/O errors.
void WriteStatFile(const agent::RuntimePort& port, const std::string& path);

}  // namespace xrpm::emulator
