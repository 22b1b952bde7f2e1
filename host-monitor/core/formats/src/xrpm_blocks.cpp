// .xrpm column block packing (xrpm_blocks.h).
#include "xrpm_blocks.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace xrpm::formats {
namespace {

// Sign-extends the low `bits` of x and zigzags it back into `bits` bits.
inline uint64_t ZigZagBits(uint64_t x, unsigned bits) {
  const unsigned shift = 64 - bits;
  const int64_t d = static_cast<int64_t>(x << shift) >> shift;
  const uint64_t z = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
  return bits == 64 ? z : z & ((uint64_t{1} << bits) - 1);
}
inline uint64_t UnZigZag(uint64_t z) {
  return (z >> 1) ^ (0 - (z & 1));
}

template <class T>
uint64_t Transform(const ColumnView& col, size_t begin, size_t end, uint64_t* t) {
  const T* v = reinterpret_cast<const T*>(col.data);
  constexpr unsigned kBits = sizeof(T) * 8;
  uint64_t all = 0;
  switch (col.transform) {
    case XrpmTransform::kNone:
      for (size_t i = begin; i < end; ++i) all |= t[i - begin] = v[i];
      break;
    case XrpmTransform::kDelta: {
      T prev = v[begin];
      for (size_t i = begin; i < end; ++i) {
        all |= t[i - begin] = ZigZagBits(static_cast<T>(v[i] - prev), kBits);
        prev = v[i];
      }
      break;
    }
    case XrpmTransform::kOwnerDelta: {
      // The object holding reference `begin`: the first i with ref_end[i] > begin.
      size_t o = static_cast<size_t>(
          std::upper_bound(col.ref_end, col.ref_end + col.owners, uint64_t{begin}) - col.ref_end);
      for (size_t i = begin; i < end; ++i) {
        while (col.ref_end[o] <= i) ++o;
        all |= t[i - begin] = ZigZagBits(v[i] - col.owner_id[o], 64);
      }
      break;
    }
  }
  return all;
}

inline unsigned BytesFor(uint64_t v) {
  unsigned w = 0;
  while (v) {
    ++w;
    v >>= 8;
  }
  return w;
}

// Byte k of value i is planes[k * n + i]; W planes, known at compile time so that the gather is
// one pass over the block (and vectorised for kNone).
template <unsigned W>
inline uint64_t Gather(const uint8_t* planes, size_t n, size_t i) {
  uint64_t x = 0;
  if constexpr (W > 0) x = planes[i];
  if constexpr (W > 1) x |= uint64_t{planes[n + i]} << 8;
  if constexpr (W > 2) x |= uint64_t{planes[2 * n + i]} << 16;
  if constexpr (W > 3) x |= uint64_t{planes[3 * n + i]} << 24;
  if constexpr (W > 4) x |= uint64_t{planes[4 * n + i]} << 32;
  if constexpr (W > 5) x |= uint64_t{planes[5 * n + i]} << 40;
  if constexpr (W > 6) x |= uint64_t{planes[6 * n + i]} << 48;
  if constexpr (W > 7) x |= uint64_t{planes[7 * n + i]} << 56;
  return x;
}

// Gathers and undoes the transform in one pass over the block.
template <class T, unsigned W>
void UnpackPlanes(const uint8_t* in, T base, const ColumnView& col, size_t begin, size_t end) {
  T* v = reinterpret_cast<T*>(col.data) + begin;
  const size_t n = end - begin;
  switch (col.transform) {
    case XrpmTransform::kNone:
      for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(Gather<W>(in, n, i));
      break;
    case XrpmTransform::kDelta: {
      T prev = base;
      for (size_t i = 0; i < n; ++i)
        v[i] = prev = static_cast<T>(prev + UnZigZag(Gather<W>(in, n, i)));
      break;
    }
    case XrpmTransform::kOwnerDelta: {
      if constexpr (sizeof(T) == 8) {
        // Without a branch per object (objects hold 0, 1, 2... references: a loop per object
        // mispredicts its exit about once per object): each object's id minus the previous
        // one's is added where its references start, then one pass turns those marks into a
        // running sum, the owner of each reference, and adds its delta. Objects without
        // references mark the same place as the next one: their differences telescope. The
        // reader checked that the ends never decrease and the last one is the reference
        // count, so o stays in range.
        size_t o = static_cast<size_t>(
            std::upper_bound(col.ref_end, col.ref_end + col.owners, uint64_t{begin}) - col.ref_end);
        std::memset(v, 0, n * sizeof(T));
        uint64_t previous = 0;
        for (uint64_t start = begin; start < end; start = col.ref_end[o++]) {
          v[start - begin] += col.owner_id[o] - previous;
          previous = col.owner_id[o];
        }
        uint64_t owner = 0;
        for (size_t i = 0; i < n; ++i) {
          owner += v[i];
          v[i] = owner + UnZigZag(Gather<W>(in, n, i));
        }
      }
      break;
    }
  }
}

template <class T>
void Unpack(const uint8_t* in, unsigned w, T base, const ColumnView& col, size_t begin,
            size_t end) {
  switch (w) {  // w <= sizeof(T), checked by the caller
    case 0:
      return UnpackPlanes<T, 0>(in, base, col, begin, end);
    case 1:
      return UnpackPlanes<T, 1>(in, base, col, begin, end);
    case 2:
      if constexpr (sizeof(T) >= 2) return UnpackPlanes<T, 2>(in, base, col, begin, end);
      break;
    case 3:
      if constexpr (sizeof(T) >= 4) return UnpackPlanes<T, 3>(in, base, col, begin, end);
      break;
    case 4:
      if constexpr (sizeof(T) >= 4) return UnpackPlanes<T, 4>(in, base, col, begin, end);
      break;
    case 5:
      if constexpr (sizeof(T) >= 8) return UnpackPlanes<T, 5>(in, base, col, begin, end);
      break;
    case 6:
      if constexpr (sizeof(T) >= 8) return UnpackPlanes<T, 6>(in, base, col, begin, end);
      break;
    case 7:
      if constexpr (sizeof(T) >= 8) return UnpackPlanes<T, 7>(in, base, col, begin, end);
      break;
    case 8:
      if constexpr (sizeof(T) >= 8) return UnpackPlanes<T, 8>(in, base, col, begin, end);
      break;
  }
}

}  // namespace

void PackColumnBlock(const ColumnView& col, size_t begin, size_t end, std::string& out,
                     std::vector<uint64_t>& scratch) {
  const size_t n = end - begin;
  scratch.resize(n);
  uint64_t* t = scratch.data();
  uint64_t all = 0, base = 0;
  switch (col.width) {
    case 1:
      all = Transform<uint8_t>(col, begin, end, t);
      break;
    case 2:
      all = Transform<uint16_t>(col, begin, end, t);
      break;
    case 4:
      all = Transform<uint32_t>(col, begin, end, t);
      break;
    default:
      all = Transform<uint64_t>(col, begin, end, t);
      break;
  }
  if (col.transform == XrpmTransform::kDelta && n)
    std::memcpy(&base, col.data + begin * col.width, col.width);
  const unsigned w = BytesFor(all);
  out.resize(1 + col.width + n * w);
  char* p = out.data();
  p[0] = static_cast<char>(w);
  std::memcpy(p + 1, &base, col.width);
  uint8_t* planes = reinterpret_cast<uint8_t*>(p + 1 + col.width);
  for (unsigned k = 0; k < w; ++k) {
    uint8_t* plane = planes + k * n;
    for (size_t i = 0; i < n; ++i) plane[i] = static_cast<uint8_t>(t[i] >> (8 * k));
  }
}

void UnpackColumnBlock(std::string_view in, const ColumnView& col, size_t begin, size_t end) {
  const size_t n = end - begin;
  if (in.size() < 1u + col.width)
    throw std::runtime_error("block of " + std::to_string(in.size()) +
                             " bytes is shorter than its " + std::to_string(1 + col.width) +
                             "-byte prefix");
  const unsigned w = static_cast<uint8_t>(in[0]);
  if (w > col.width)
    throw std::runtime_error("packed width " + std::to_string(w) + " exceeds the column's " +
                             std::to_string(col.width) + " bytes");
  if (in.size() != 1 + col.width + n * w)
    throw std::runtime_error("block holds " + std::to_string(in.size()) + " bytes, expected " +
                             std::to_string(1 + col.width + n * w) + " for " + std::to_string(n) +
                             " values of " + std::to_string(w) + " bytes");
  uint64_t base = 0;
  std::memcpy(&base, in.data() + 1, col.width);
  const auto* planes = reinterpret_cast<const uint8_t*>(in.data() + 1 + col.width);
  switch (col.width) {
    case 1:
      Unpack<uint8_t>(planes, w, static_cast<uint8_t>(base), col, begin, end);
      break;
    case 2:
      Unpack<uint16_t>(planes, w, static_cast<uint16_t>(base), col, begin, end);
      break;
    case 4:
      Unpack<uint32_t>(planes, w, static_cast<uint32_t>(base), col, begin, end);
      break;
    default:
      Unpack<uint64_t>(planes, w, base, col, begin, end);
      break;
  }
}

}  // namespace xrpm::formats
