// .xrpm: xrpm's own lossless snapshot file (specification: docs/FORMAT.md).
//
// A header, typed parts, a table of contents (TOC) and a trailer. Every part is a column of
// fixed-width little-endian integers or a blob of bytes, cut into independently compressed
// blocks (zstd, after a delta/zigzag transform and byte-plane packing for columns), each block
// with its own XXH3-64 checksum. A reader checks every size against the file before it
// allocates, skips optional parts it does not know (and says so), refuses unknown required parts
// and files of a newer major version.
//
// Extension API (used by the recordings and allocation-tracking work): a writer adds its own
// parts through XrpmWriteOptions::extra_parts (a 4-character tag, required or optional, a blob or
// a column); a reader asks for them by tag through XrpmReadOptions::wanted and gets them back in
// XrpmContents::parts. Tags of upper-case letters and digits are reserved for xrpm itself;
// see docs/FORMAT.md for the registry of tags in use.
//
// Cost: writing and reading are O(objects + refs); blocks are (de)compressed on up to
// `threads` threads. Reading allocates the model's columns once at their final size plus one
// block buffer (<= 4 MiB) per thread, so peak memory is the model plus a few MiB.
//
// Thread-safety: reentrant; separate calls may run concurrently.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/diagnostics.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

inline constexpr uint16_t kXrpmMajorVersion = 1;
inline constexpr uint16_t kXrpmMinorVersion = 4;

// How a column's values are transformed before packing (the reader undoes it).
enum class XrpmTransform : uint8_t {
  kNone = 0,
  kDelta = 1,       // zigzag(v[i] - v[i-1]) within a block: sorted or slowly changing values
  kOwnerDelta = 2,  // references only: zigzag(ref - id of the object holding it)
};

// One extra part for the extension API: a blob (width 0) or a column of `width`-byte values.
struct XrpmPart {
  std::string tag;        // exactly 4 printable ASCII characters, e.g. "asit"
  bool required = false;  // a reader that does not know the tag must refuse the file
  uint8_t width = 0;      // 0: a blob of bytes; 1, 2, 4 or 8: a column of unsigned integers
  XrpmTransform transform = XrpmTransform::kNone;  // columns only (kNone or kDelta)
  PodVector<uint8_t> data;  // the blob, or count * width bytes of little-endian values
  uint64_t offset = 0;      // read parts: the part's byte offset in the file (for errors)

  size_t count() const { return width ? data.size() / width : data.size(); }
  // A column's values (T must be the width's unsigned type; the host is little-endian).
  template <class T>
  std::span<const T> values() const {
    return {reinterpret_cast<const T*>(data.data()), data.size() / sizeof(T)};
  }
  template <class T>
  static XrpmPart Column(std::string tag, std::span<const T> v, bool required = false,
                         XrpmTransform t = XrpmTransform::kNone) {
    XrpmPart p{std::move(tag), required, static_cast<uint8_t>(sizeof(T)), t, {}};
    const auto* b = reinterpret_cast<const uint8_t*>(v.data());
    p.data.assign(b, b + v.size_bytes());
    return p;
  }
  static XrpmPart Blob(std::string tag, std::string_view bytes, bool required = false) {
    XrpmPart p{std::move(tag), required, 0, XrpmTransform::kNone, {}};
    const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
    p.data.assign(b, b + bytes.size());
    return p;
  }
};

struct XrpmWriteOptions {
  unsigned threads = 0;  // compression threads; 0: one per core (at most 8)
  int zstd_level = 1;    // 1: faster and smaller than 2-3 here (docs/PERFORMANCE.md)
  // Raw bytes of column values (or blob bytes) per block, at most 4 MiB - 9. Tests and fuzz
  // seeds use small blocks so that small files have several.
  uint32_t block_bytes = 1u << 20;
  std::vector<XrpmPart> extra_parts;  // written after the snapshot's parts, in this order
};

struct XrpmReadOptions {
  unsigned threads = 0;             // decompression threads; 0: one per core (at most 8)
  std::vector<std::string> wanted;  // tags of extra parts the caller understands
  // Off only in the fuzz target, so that mutated inputs reach the checks behind the checksums.
  bool verify_checksums = true;
};

// One entry of the table of contents, as listed by ListXrpmParts.
struct XrpmPartInfo {
  std::string tag;
  bool required = false;
  uint8_t width = 0;
  uint8_t transform = 0;
  uint64_t count = 0;         // values (columns) or bytes (blobs)
  uint64_t offset = 0;        // byte offset of the part in the file
  uint64_t stored_bytes = 0;  // compressed blocks + block table
  uint64_t raw_bytes = 0;     // count * width (columns) or count (blobs)
  uint32_t blocks = 0;
  bool known = false;  // a part this reader decodes itself
};

struct XrpmContents {
  Snapshot snapshot;
  std::vector<XrpmPart> parts;       // the wanted extra parts found in the file, in file order
  std::vector<std::string> skipped;  // "skipped optional part 'rfrm' (12,345 bytes): ..."
  uint16_t major = 0, minor = 0;     // the file's format version
};

// Writes `snap` (and `opts.extra_parts`) to `path` atomically. Throws std::runtime_error on I/O
// errors and std::invalid_argument for a malformed extra part (bad tag, size, duplicate).
void WriteXrpmFile(const Snapshot& snap, const std::string& path,
                   const XrpmWriteOptions& opts = {});

// Reads a whole file. Throws InputError naming the part and the byte offset on any corruption.
XrpmContents ReadXrpmFile(const std::string& path, const XrpmReadOptions& opts = {});
// The same from bytes in memory (`name` appears in errors).
XrpmContents ReadXrpm(std::string_view bytes, const std::string& name,
                      const XrpmReadOptions& opts = {});
// Writes to memory instead of a file (tests, fuzzing).
std::string WriteXrpm(const Snapshot& snap, const XrpmWriteOptions& opts = {});
// The table of contents only (validated), for `xrpm info` and tests.
std::vector<XrpmPartInfo> ListXrpmParts(const std::string& path);

// The snapshot_io entry points: notices about skipped parts go to `diags` (code "skipped-part")
// unless it is strict, in which case they are dropped (they are not problems).
Snapshot ReadXrpmSnapshotFile(const std::string& path, Diagnostics& diags);
// Does a file start with the .xrpm magic?
bool LooksLikeXrpm(std::string_view head);

}  // namespace xrpm::formats
