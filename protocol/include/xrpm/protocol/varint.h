// Varint: the LEB128 variable-length integer (7 bits a byte, low bits first, the high bit set on
// every byte but the last; at most 10 bytes for 64 bits), as the wire's varint columns
// (column_codec.h) and the .NET port's capture record (record_stream.h) write it, coded for the
// loops that write or read millions of them.
//
// Algorithm: a value of at most 56 bits (a varint of at most 8 bytes: nearly every address
// delta, size, slot and value) is spread into, or gathered from, one little-endian 64-bit word
// with a fixed sequence of shifts and masks; the continuation bits come from the length (a
// count of leading zeros), or when reading from the first clear high bit of the word (a count
// of trailing zeros). No per-byte loop, so no branch that mispredicts on mixed lengths; wider
// values and a varint at the end of a buffer take the byte loop. O(1) per value.
//
// PutVarint stores 8 bytes whatever the varint's length: the caller guarantees 8 writable bytes
// at p (the bytes past the varint are scratch that the next write overwrites). GetVarint reads
// at most `end`. Both are byte-order independent (the word is assembled little-endian).
//
// Thread-safety: stateless inline functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace xrpm {
namespace protocol {

inline size_t VarintLength(uint64_t v) {
  // 1 + floor(bits / 7), with bits = index of the highest set bit (0 for v == 0), computed as
  // (bits * 9 + 73) / 64 (equal for bits 0..63; a multiply-add and a shift, no division: this
  // runs for every value the agent encodes).
  const auto bits = static_cast<unsigned>(63 - __builtin_clzll(v | 1));
  return (bits * 9 + 73) >> 6;
}

namespace varint_detail {

inline void StoreLE64(uint8_t* p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(p, &v, 8);
}

inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

constexpr uint64_t kHighBits = 0x8080808080808080ull;

}  // namespace varint_detail

// Writes v's varint at p, which must have at least 8 writable bytes (10 for v >= 2^56);
// returns the end of the varint.
inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  if (v < 0x80) {
    *p = static_cast<uint8_t>(v);
    return p + 1;
  }
  if (v >> 56) {
    while (v >= 0x80) {
      *p++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    return p;
  }
  const size_t len = VarintLength(v);  // 2..8
  const uint64_t word = (v & 0x7Full) | (v << 1 & 0x7F00ull) | (v << 2 & 0x7F0000ull) |
                        (v << 3 & 0x7F000000ull) | (v << 4 & 0x7F00000000ull) |
                        (v << 5 & 0x7F0000000000ull) | (v << 6 & 0x7F000000000000ull) |
                        (v << 7 & 0x7F00000000000000ull);
  varint_detail::StoreLE64(
      p, word | (varint_detail::kHighBits & ((uint64_t{1} << (8 * (len - 1))) - 1)));
  return p + len;
}

// Reads the varint at *at, never past `end`; advances *at past it. False when the bytes end
// before the varint does or it is longer than 10 bytes (*at is then unspecified). Does not
// check canonical form or that a 10th byte holds only the 64th bit: callers that must refuse
// such input check the value's width themselves.
inline bool GetVarint(const uint8_t** at, const uint8_t* end, uint64_t* out) {
  const uint8_t* p = *at;
  if (p < end && *p < 0x80) {  // one byte: most slots, counts, small values
    *out = *p;
    *at = p + 1;
    return true;
  }
  if (end - p >= 8) {
    const uint64_t x = varint_detail::LoadLE64(p);
    const uint64_t stops = ~x & varint_detail::kHighBits;
    if (stops != 0) {
      const unsigned len = (static_cast<unsigned>(__builtin_ctzll(stops)) >> 3) + 1;  // 1..8
      const uint64_t w = len == 8 ? x : x & ((uint64_t{1} << (8 * len)) - 1);
      *out = (w & 0x7Full) | (w >> 1 & 0x3F80ull) | (w >> 2 & 0x1FC000ull) |
             (w >> 3 & 0xFE00000ull) | (w >> 4 & 0x7F0000000ull) | (w >> 5 & 0x3F800000000ull) |
             (w >> 6 & 0x1FC0000000000ull) | (w >> 7 & 0xFE000000000000ull);
      *at = p + len;
      return true;
    }
  }
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *out = v;
      *at = p;
      return true;
    }
  }
  return false;  // more than 10 bytes
}

}  // namespace protocol
}  // namespace xrpm
