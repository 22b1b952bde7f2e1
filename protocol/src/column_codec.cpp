#include "xrpm/protocol/column_codec.h"

#include <cstring>

namespace xrpm {
namespace protocol {
namespace {

using varint_detail::LoadLE64;  // the one little-endian word load (varint.h)

inline int BitWidth(uint64_t v) {
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

template <class T>
void AppendVarints(const T* values, size_t n, std::string* out, size_t bytes) {
  const size_t start = out->size();
  out->resize(start + bytes + 10);  // PutVarint's scratch beyond the last varint
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*out)[start]);
  for (size_t i = 0; i < n; ++i) p = PutVarint(p, values[i]);
  out->resize(start + bytes);
}

// LSB-first bit packing. With 128-bit integers: a 128-bit accumulator takes any value whole and
// spills 8 bytes at a time (one branch per value). Otherwise a 64-bit accumulator spills byte
// by byte, and values wider than 56 bits go in two halves so it never overflows.
template <class T>
void AppendBitPacked(const T* values, size_t n, int width, std::string* out) {
  const size_t payload = (static_cast<size_t>(width) * n + 7) / 8;
  const size_t start = out->size();
  out->resize(start + payload);
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*out)[start]);
  if (width == 0) return;
  int bits = 0;
#if defined(__SIZEOF_INT128__) && \
    !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
  unsigned __int128 acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= static_cast<unsigned __int128>(values[i]) << bits;
    bits += width;
    if (bits >= 64) {
      const uint64_t word = static_cast<uint64_t>(acc);
      std::memcpy(p, &word, 8);
      p += 8;
      acc >>= 64;
      bits -= 64;
    }
  }
  for (; bits > 0; bits -= 8) {
    *p++ = static_cast<uint8_t>(acc);
    acc >>= 8;
  }
#else
  uint64_t acc = 0;
  auto push = [&](uint64_t v, int w) {
    acc |= v << bits;
    bits += w;
    while (bits >= 8) {
      *p++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  };
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = values[i];
    if (width <= 56) {
      push(v, width);
    } else {
      push(v & 0xFFFFFFFFu, 32);
      push(v >> 32, width - 32);
    }
  }
  if (bits > 0) *p++ = static_cast<uint8_t>(acc);
#endif
}

template <class T>
void Encode(const T* values, size_t n, std::string* out) {
  size_t varint_bytes = 0;
  uint64_t all = 0;
  for (size_t i = 0; i < n; ++i) {
    varint_bytes += VarintLength(values[i]);
    all |= values[i];
  }
  const int width = BitWidth(all);  // the OR has the width of the largest value
  const size_t packed_bytes = 1 + (static_cast<size_t>(width) * n + 7) / 8;
  if (packed_bytes < varint_bytes) {
    out->push_back(static_cast<char>(ColumnEncoding::kBitPacked));
    out->push_back(static_cast<char>(width));
    AppendBitPacked(values, n, width, out);
  } else {
    out->push_back(static_cast<char>(ColumnEncoding::kVarint));
    AppendVarints(values, n, out, varint_bytes);
  }
}

template <class T>
bool DecodeVarints(const uint8_t* p, const uint8_t* end, size_t n, T* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* const start = p;
    uint64_t v;
    if (!GetVarint(&p, end, &v)) return false;
    if (p - start == 10 && p[-1] > 1) return false;  // over 64 bits
    if (sizeof(T) < 8 && v > static_cast<uint64_t>(T(~T(0)))) return false;
    out[i] = static_cast<T>(v);
  }
  return p == end;
}

template <class T>
bool DecodeBitPacked(const uint8_t* p, const uint8_t* end, size_t n, T* out) {
  if (p == end) return false;
  const int width = *p++;
  if (width > 64) return false;
  if (sizeof(T) < 8 && width > static_cast<int>(8 * sizeof(T))) return false;
  const size_t len = static_cast<size_t>(end - p);
  if (width == 0) {
    if (len != 0) return false;
    for (size_t i = 0; i < n; ++i) out[i] = 0;
    return true;
  }
  // Overflow-safe: n * width <= 64 * n, and n is bounded by the caller's limits.
  if (n > (SIZE_MAX - 7) / 64) return false;
  if (len != (static_cast<size_t>(width) * n + 7) / 8) return false;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  size_t bit = 0;
  size_t i = 0;
  if (width <= 56) {
    // Fast path: one unaligned 64-bit load per value while 8 bytes remain.
    for (; i < n && bit / 8 + 8 <= len; ++i, bit += width)
      out[i] = static_cast<T>((LoadLE64(p + bit / 8) >> (bit % 8)) & mask);
  }
  for (; i < n; ++i, bit += width) {  // tail (and widths > 56): byte by byte
    uint64_t v = 0;
    for (int got = 0; got < width;) {
      const size_t byte = (bit + got) / 8;
      const int off = static_cast<int>((bit + got) % 8);
      const int take = (8 - off) < (width - got) ? (8 - off) : (width - got);
      v |= static_cast<uint64_t>((p[byte] >> off) & ((1u << take) - 1)) << got;
      got += take;
    }
    out[i] = static_cast<T>(v);
  }
  return true;
}

template <class T>
bool Decode(const uint8_t* data, size_t len, size_t n, T* out) {
  if (len == 0) return false;
  const uint8_t* end = data + len;
  switch (static_cast<ColumnEncoding>(data[0])) {
    case ColumnEncoding::kVarint:
      return DecodeVarints(data + 1, end, n, out);
    case ColumnEncoding::kBitPacked:
      return DecodeBitPacked(data + 1, end, n, out);
  }
  return false;
}

}  // namespace

void EncodeColumn(const uint64_t* values, size_t n, std::string* out) {
  Encode(values, n, out);
}
void EncodeColumn(const uint32_t* values, size_t n, std::string* out) {
  Encode(values, n, out);
}
bool DecodeColumn(const uint8_t* data, size_t len, size_t n, uint64_t* out) {
  return Decode(data, len, n, out);
}
bool DecodeColumn(const uint8_t* data, size_t len, size_t n, uint32_t* out) {
  return Decode(data, len, n, out);
}

}  // namespace protocol
}  // namespace xrpm
