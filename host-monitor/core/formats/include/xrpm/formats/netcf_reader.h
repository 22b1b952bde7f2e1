// NETCF text heap dump (.gclog) reader. Format: docs/formats/netcf-gclog.md. Every numeric
// field is hex without prefix.
//
// Accepts everything the spec allows: `t` records after the objects that use them, roots before
// their objects, several `a ... c` sections, `a`/`c` records without a timestamp (older RPM
// files), CRLF line endings, any file name. Lenient by default: loads what is valid and reports
// each problem with file:line to `diags` (unknown type ids become placeholder types, dangling
// references, duplicate ids, unclosed sections, unknown record letters, bad numbers); with
// ReadOptions::strict the first problem throws InputError. Hostile input cannot crash it, hang it
// or make it allocate beyond a bound proportional to the input size.
//
// Thread-safety: reentrant; separate calls may run concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "xrpm/formats/read_options.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

// Reads `text` (the whole file) named `name` in diagnostics.
Snapshot ReadNetcf(std::string_view text, std::string_view name, Diagnostics& diags,
                   const ReadOptions& opts = {});
// Reads a file (mmap'd). Throws InputError when the file cannot be opened.
Snapshot ReadNetcfFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts = {});

}  // namespace xrpm::formats
