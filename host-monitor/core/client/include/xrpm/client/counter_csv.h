// The one CSV layout of live counter samples, written by `xrpm counters --csv` and the monitor's
// "Export counters": one row per counter per sample,
//   host_s,boot_ms,seq,category,counter,unit,total,last,n,mean,min,max
// (host seconds since connecting, the device's clock in ms, the agent's sample number, the
// counter, then its `.stat` columns). Fields with a comma, a quote or a newline are quoted.
// The file is written atomically (AtomicFile): complete or not at all.
//
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "xrpm/client/counter_history.h"

namespace xrpm::client {

// The header line, without its newline.
const char* CounterCsvHeader();
// Writes `rows` (values[i] belongs to descriptors[i]) to `path`. Throws on I/O errors.
void WriteCounterCsv(const std::string& path, const std::vector<CounterDescriptor>& descriptors,
                     const std::vector<CounterSampleRow>& rows);

}  // namespace xrpm::client
