#include "xrpm/model/value_ranges.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "xrpm/model/fork_join.h"

namespace xrpm {
namespace {

constexpr uint64_t kMaxChunkBytes = std::numeric_limits<uint32_t>::max();

std::string ChunkTooBig(size_t chunk, uint64_t bytes) {
  return "objects " + std::to_string(chunk * ValueRanges::kChunk) + ".." +
         std::to_string((chunk + 1) * ValueRanges::kChunk - 1) + " hold " + std::to_string(bytes) +
         " value bytes, more than the 4 GiB " + std::to_string(ValueRanges::kChunk) +
         " objects may hold";
}

// A column at its final size, uninitialised (on huge pages when large: PodVector).
template <class T>
void SizeUninitialized(PodVector<T>& v, uint64_t n) {
  v.clear();
  v.resize_uninitialized(n);
}

}  // namespace

void ValueRanges::Append(std::span<const uint8_t> bytes) {
  const size_t i = end.size();
  if ((i & (kChunk - 1)) == 0) base.push_back(data.size());
  const uint64_t e = data.size() + bytes.size() - base.back();
  if (e > kMaxChunkBytes) throw std::length_error(ChunkTooBig(i >> kChunkShift, e));
  data.append(bytes.data(), bytes.data() + bytes.size());
  end.push_back(static_cast<uint32_t>(e));
}

void ValueRanges::ResizeForLengths(size_t objects, uint64_t bytes) {
  SizeUninitialized(end, objects);
  SizeUninitialized(data, bytes);
  base.clear();
}

std::string ValueRanges::FinishLengths(unsigned threads) {
  const size_t n = end.size();
  const size_t chunks = (n + kChunk - 1) >> kChunkShift;
  base.resize_uninitialized(chunks);
  // Each worker: its chunks' lengths into ends, each chunk's total into base. A worker stops at
  // its first chunk beyond 4 GiB (the lowest such chunk is reported).
  const std::vector<size_t> bounds = EvenBounds(chunks, threads, 1024);
  std::vector<size_t> failed(bounds.size() - 1, chunks);
  std::vector<uint64_t> failed_bytes(bounds.size() - 1, 0);
  RunChunks(bounds, [&](size_t k, size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      uint64_t sum = 0;
      const size_t stop = std::min(n, (c + 1) << kChunkShift);
      for (size_t i = c << kChunkShift; i < stop; ++i) {
        sum += end[i];
        if (sum > kMaxChunkBytes) {
          for (++i; i < stop; ++i) sum += end[i];  // still lengths: the chunk's real total
          failed[k] = c;
          failed_bytes[k] = sum;
          return;
        }
        end[i] = static_cast<uint32_t>(sum);
      }
      base[c] = sum;
    }
  });
  for (size_t k = 0; k < failed.size(); ++k)
    if (failed[k] < chunks) return ChunkTooBig(failed[k], failed_bytes[k]);
  uint64_t at = 0;  // totals -> where each chunk begins
  for (size_t c = 0; c < chunks; ++c) {
    const uint64_t total = base[c];
    base[c] = at;
    at += total;
  }
  if (at != data.size())
    return "the value lengths add up to " + std::to_string(at) + " bytes, but there are " +
           std::to_string(data.size()) + " value bytes";
  return {};
}

void ValueRanges::clear() {
  end.clear();
  base.clear();
  data.clear();
}

void ValueRanges::shrink_to_fit() {
  end.shrink_to_fit();
  base.shrink_to_fit();
  data.shrink_to_fit();
}

}  // namespace xrpm
