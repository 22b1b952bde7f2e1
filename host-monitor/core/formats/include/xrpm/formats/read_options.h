// ReadOptions: how every reader of heap files reads (strict or lenient, parser threads, chunk
// size). One struct for all formats, so callers (snapshot_io, the CLI's --strict, the monitor)
// pass the same options whatever the file turns out to be.
//
// Thread-safety: a plain value type.
#pragma once

#include <cstddef>

namespace xrpm::formats {

struct ReadOptions {
  bool strict = false;
  // Parser threads (the text is split into this many chunks at line boundaries). 0: one per
  // core, with chunks of at least a few MiB; any other value is used as given.
  unsigned threads = 0;
  // Smallest chunk when the text is split for several threads. Tests and fuzz targets lower it
  // so that chunk boundaries (and the stitching of sections across them) occur in small inputs.
  size_t min_chunk_bytes = size_t{4} << 20;
};

}  // namespace xrpm::formats
