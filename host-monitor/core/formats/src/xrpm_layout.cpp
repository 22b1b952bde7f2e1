// .xrpm header and TOC encoding (xrpm_layout.h).
#include "xrpm_layout.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace xrpm::formats {

uint64_t Xxh3(const void* data, size_t n) {
  return XXH3_64bits(data, n);
}

void EncodeHeader(const Header& h, char out[kHeaderBytes]) {
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out, kMagic, 8);
  PutU16(out + 8, h.major);
  PutU16(out + 10, h.minor);
  PutU32(out + 12, h.part_count);
  PutU64(out + 16, h.file_bytes);
  PutU64(out + 24, h.toc_xxh3);
  PutU64(out + 56, Xxh3(out, 56));
}

void EncodeTocEntry(const TocEntry& e, char out[kTocEntryBytes]) {
  std::memset(out, 0, kTocEntryBytes);
  std::memcpy(out, e.tag, 4);
  out[4] = static_cast<char>(e.flags);
  out[5] = static_cast<char>(e.width);
  out[6] = static_cast<char>(e.transform);
  out[7] = static_cast<char>(e.codec);
  PutU64(out + 8, e.count);
  PutU64(out + 16, e.offset);
  PutU64(out + 24, e.stored_bytes);
  PutU32(out + 32, e.block_count);
  PutU32(out + 36, e.block_values);
  PutU64(out + 40, e.block_table_xxh3);
}

TocEntry DecodeTocEntry(const char in[kTocEntryBytes]) {
  TocEntry e;
  std::memcpy(e.tag, in, 4);
  e.flags = static_cast<uint8_t>(in[4]);
  e.width = static_cast<uint8_t>(in[5]);
  e.transform = static_cast<uint8_t>(in[6]);
  e.codec = static_cast<uint8_t>(in[7]);
  e.count = GetU64(in + 8);
  e.offset = GetU64(in + 16);
  e.stored_bytes = GetU64(in + 24);
  e.block_count = GetU32(in + 32);
  e.block_values = GetU32(in + 36);
  e.block_table_xxh3 = GetU64(in + 40);
  return e;
}

}  // namespace xrpm::formats
