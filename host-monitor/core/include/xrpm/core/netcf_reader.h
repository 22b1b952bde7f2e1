// NETCF text heap dump (.gclog) reader. Format: shared/specs/netcf-heap-dump-format.txt and
// netcf-rpm-heap-dump-notes.txt. Every numeric field is hex without prefix.
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

#include "xrpm/core/diagnostics.h"
#include "xrpm/core/snapshot.h"

namespace xrpm {

struct ReadOptions {
  bool strict = false;
  // Parser threads (the text is split into this many chunks at line boundaries). 0: one per
  // core, with chunks of at least a few MiB; any other value is used as given.
  unsigned threads = 0;
  // Smallest chunk when the text is split for several threads. Tests and fuzz targets lower it
  // so that chunk boundaries (and the stitching of sections across them) occur in small inputs.
  size_t min_chunk_bytes = size_t{4} << 20;
};

// Reads `text` (the whole file) named `name` in diagnostics.
Snapshot ReadNetcf(std::string_view text, std::string_view name, Diagnostics& diags,
                   const ReadOptions& opts = {});
// Reads a file (mmap'd). Throws InputError when the file cannot be opened.
Snapshot ReadNetcfFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts = {});

}  // namespace xrpm
