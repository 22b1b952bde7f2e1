// Column codec: how one column of unsigned integers of a HeapBatch is packed into bytes.
//
// A column is one tag byte followed by the payload:
//   0x00  LEB128 varints, one per value (7 bits a byte, low bits first, at most 10 bytes).
//   0x01  fixed-width bit packing: one width byte W (0..64), then ceil(n*W/8) bytes holding the
//         values W bits each, least significant bit first (frame-of-reference packing).
// The encoder measures both sizes in one pass and writes the smaller: bit packing wins on
// uniform data (random references), varints on skewed data (sizes with rare large arrays).
// Signed deltas are mapped to unsigned with ZigZag first. Encoding and decoding are O(n).
//
// The decoder is strict: the value count comes from the message, the payload must hold exactly
// that many values (no trailing bytes), varints must be canonical-length (<= 10 bytes) and
// 32-bit columns reject values over 2^32-1.
//
// Thread-safety: stateless functions, reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "xrpm/protocol/varint.h"  // VarintLength, PutVarint, GetVarint

namespace xrpm {
namespace protocol {

enum class ColumnEncoding : uint8_t { kVarint = 0, kBitPacked = 1 };

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Appends the column for values[0..n) to *out.
void EncodeColumn(const uint64_t* values, size_t n, std::string* out);
void EncodeColumn(const uint32_t* values, size_t n, std::string* out);

// Decodes exactly n values from data[0..len). Returns false when the bytes are not a valid
// column of n values (the contents of out are then unspecified).
bool DecodeColumn(const uint8_t* data, size_t len, size_t n, uint64_t* out);
bool DecodeColumn(const uint8_t* data, size_t len, size_t n, uint32_t* out);
inline bool DecodeColumn(const std::string& s, size_t n, uint64_t* out) {
  return DecodeColumn(reinterpret_cast<const uint8_t*>(s.data()), s.size(), n, out);
}
inline bool DecodeColumn(const std::string& s, size_t n, uint32_t* out) {
  return DecodeColumn(reinterpret_cast<const uint8_t*>(s.data()), s.size(), n, out);
}

}  // namespace protocol
}  // namespace xrpm
