// .xrpm on-disk layout (docs/FORMAT.md is the specification; this is its code): the header,
// the table-of-contents entries, the block table, the tags of xrpm's own parts (byte
// helpers and blobs: xrpm/formats/xrpm_blob.h).
//
// All integers are little-endian. Layout of a file:
//   [header 64 B][TOC: part_count x 64 B][part 0][part 1]...
// and of one part:
//   [block 0][block 1]...[block table: block_count x 16 B]
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "xrpm/formats/xrpm_blob.h"

namespace xrpm::formats {

inline constexpr char kMagic[8] = {'X', 'R', 'P', 'M', '\r', '\n', '\x1a', '\n'};
inline constexpr size_t kHeaderBytes = 64;
inline constexpr size_t kTocEntryBytes = 64;
inline constexpr size_t kBlockEntryBytes = 16;
inline constexpr uint32_t kMaxParts = 4096;
// A block decodes to at most this many bytes (columns: 1 + values * packed width).
inline constexpr uint32_t kMaxBlockRawBytes = 4u << 20;

inline constexpr uint8_t kFlagRequired = 1;
inline constexpr uint8_t kCodecZstdBlocks = 1;

// Header fields (byte offsets).
//   0  magic[8]   8 major u16   10 minor u16   12 part_count u32   16 file_bytes u64
//   24 toc_xxh3 u64   32..56 reserved (zero)   56 header_xxh3 u64 (of bytes 0..56)
struct Header {
  uint16_t major = 0, minor = 0;
  uint32_t part_count = 0;
  uint64_t file_bytes = 0;
  uint64_t toc_xxh3 = 0;
};

// TOC entry fields (byte offsets).
//   0 tag[4]  4 flags u8  5 width u8  6 transform u8  7 codec u8  8 count u64  16 offset u64
//   24 stored_bytes u64  32 block_count u32  36 block_values u32  40 block_table_xxh3 u64
//   48..64 reserved (zero)
struct TocEntry {
  char tag[4] = {};
  uint8_t flags = 0, width = 0, transform = 0, codec = kCodecZstdBlocks;
  uint64_t count = 0;         // values (columns) or bytes (blobs)
  uint64_t offset = 0;        // of the part's first block
  uint64_t stored_bytes = 0;  // blocks + block table
  uint32_t block_count = 0;
  uint32_t block_values = 0;  // values (or bytes) per block; the last block may hold fewer
  uint64_t block_table_xxh3 = 0;

  std::string tag_string() const { return std::string(tag, 4); }
  bool required() const { return flags & kFlagRequired; }
};

// Block table entry: 0 stored_bytes u32, 4 decoded_bytes u32, 8 xxh3 u64 (of the stored bytes).
// stored_bytes == decoded_bytes means the block is stored uncompressed.
struct BlockEntry {
  uint32_t stored_bytes = 0;
  uint32_t decoded_bytes = 0;
  uint64_t xxh3 = 0;
};

// ---- xrpm's own parts ----
inline constexpr std::string_view kTagSections = "SECT";       // blob
inline constexpr std::string_view kTagTypes = "TYPE";          // blob
inline constexpr std::string_view kTagOrigins = "RORG";        // blob
inline constexpr std::string_view kTagCapture = "CAPT";        // blob (optional)
inline constexpr std::string_view kTagObjectId = "OBID";       // u64, delta
inline constexpr std::string_view kTagObjectType = "OTYP";     // u32
inline constexpr std::string_view kTagObjectSize = "OSIZ";     // u32
inline constexpr std::string_view kTagRefEnd = "OREF";         // u64, delta: Snapshot::ref_end
inline constexpr std::string_view kTagRefs = "REFS";           // u64, owner delta
inline constexpr std::string_view kTagRootObject = "RTOB";     // u64, delta
inline constexpr std::string_view kTagRootKind = "RTKD";       // u8
inline constexpr std::string_view kTagRootFlags = "RTFL";      // u8
inline constexpr std::string_view kTagRootContainer = "RTCT";  // u32
inline constexpr std::string_view kTagRootOrigin = "RTOR";     // u32, delta
// Allocation origins (format 1.1, optional: all three or none).
inline constexpr std::string_view kTagAllocSites = "ASIT";  // blob: frame, sampling, sites
inline constexpr std::string_view kTagAllocFrame = "OAFR";  // u32, delta
inline constexpr std::string_view kTagAllocSite = "OASI";   // u32
// Object contents (format 1.2, optional; xrpm_fields.h): layouts are needed by the slots and
// values; labels come as the blob and the column together, values as ends and bytes together.
inline constexpr std::string_view kTagFieldLayouts = "FLAY";  // blob
inline constexpr std::string_view kTagRefSlots = "RSLT";      // u32, per reference
inline constexpr std::string_view kTagRootLabels = "RLBL";    // blob
inline constexpr std::string_view kTagRootLabel = "RTLB";     // u32, delta, per root
// Values, format 1.3: u32 lengths per object and the bytes (a 1.2 reader skips both pairs'
// new tags and shows no values); format 1.2 wrote u64 ends: still read, no longer written.
inline constexpr std::string_view kTagValueLength = "VLEN";  // u32, per object
inline constexpr std::string_view kTagValueBytes = "VBYT";   // blob
inline constexpr std::string_view kTagValueEnd = "OVAL";     // u64, delta, per object (1.2)
inline constexpr std::string_view kTagValueData = "VDAT";    // blob (1.2)
// Type finalizers (format 1.3, optional): which types override Finalize.
inline constexpr std::string_view kTagTypeFinalizers = "TFIN";  // blob
// Type traits (format 1.4, optional): what each type is (value type, enum, array rank ...).
inline constexpr std::string_view kTagTypeTraits = "TTRT";  // blob

// Reserved for xrpm: tags made only of upper-case letters and digits.
inline bool IsReservedTag(std::string_view t) {
  for (char c : t)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}
inline bool IsValidTag(std::string_view t) {
  if (t.size() != 4) return false;
  for (char c : t)
    if (c < 0x21 || c > 0x7e) return false;
  return true;
}

void EncodeHeader(const Header& h, char out[kHeaderBytes]);
void EncodeTocEntry(const TocEntry& e, char out[kTocEntryBytes]);
TocEntry DecodeTocEntry(const char in[kTocEntryBytes]);
uint64_t Xxh3(const void* data, size_t n);

}  // namespace xrpm::formats
