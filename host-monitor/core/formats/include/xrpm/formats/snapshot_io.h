// Snapshot I/O by format: one place that knows every file format the host reads and writes, so
// the CLI and the GUI offer the same set. A format is chosen by name (--from/--to) or by the
// file's extension, falling back to sniffing the first bytes when reading.
//
// Thread-safety: reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/formats/read_options.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

struct FormatInfo {
  std::string name;                     // "netcf", "ibm-classic", "heapsnapshot"
  std::string description;              // "NETCF text heap dump"
  std::vector<std::string> extensions;  // ".gclog", ".txt" (first: default when saving)
  bool can_read = false;
  bool can_write = false;
};

const std::vector<FormatInfo>& Formats();
const FormatInfo* FindFormat(std::string_view name);
// The format for `path` by extension (for writing) or content sniffing (for reading).
const FormatInfo* FormatForPath(const std::string& path, bool for_reading);

// Loads any readable format; `format` empty means detect. Throws InputError.
Snapshot LoadSnapshot(const std::string& path, Diagnostics& diags, const ReadOptions& opts = {},
                      std::string_view format = {});
// What writing `snap` in `format` would lose, in plain words, one line per kind of loss
// ("root origins of 1,234 roots (where each root came from)"); empty when nothing is lost.
// The monitor shows it before a lossy save, `xrpm convert` prints it.
std::vector<std::string> FormatLosses(const Snapshot& snap, std::string_view format);

// Saves atomically; `format` empty means by extension (default netcf). Throws on errors.
void SaveSnapshot(const Snapshot& snap, const std::string& path, std::string_view format = {});

}  // namespace xrpm::formats
