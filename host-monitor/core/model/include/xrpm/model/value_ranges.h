// ValueRanges: one byte range per object in one buffer — the storage of each object's values
// (HeapFields::values). A CSR whose ends are not u64 but u32 offsets from a u64 base per
// chunk of 256 objects: an object costs 4 B (+ 1/32 B of base) instead of 8, and its range is
// still found in O(1) (two loads from the same chunk).
//
//   range of object i = data[base[c] + (i % 256 ? end[i-1] : 0), base[c] + end[i]),
//   c = i / 256; within a chunk the ends do not decrease; base[c+1] = base[c] + end[last of c];
//   the last range ends exactly at data.size().
//
// So a chunk's 256 ranges hold at most 4 GiB (4096-character strings take 12 KiB; only crafted
// input comes near): Append throws std::length_error beyond it, FinishLengths reports it.
//
// Building: Append, one object after another; or, for readers, lengths written straight into
// `end` and the bytes into `data`, then FinishLengths turns the lengths into ends on several
// threads (O(objects / threads + chunks)).
//
// Thread-safety: a value, like Snapshot: build on one thread (FinishLengths forks its own
// workers), then read from any number.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "xrpm/model/pod_vector.h"

namespace xrpm {

struct ValueRanges {
  static constexpr unsigned kChunkShift = 8;
  static constexpr size_t kChunk = size_t{1} << kChunkShift;

  PodVector<uint32_t> end;   // per object: where its range ends, from its chunk's base
  PodVector<uint64_t> base;  // per chunk: where the chunk's first range begins in `data`
  PodVector<uint8_t> data;   // every object's bytes, in object order

  size_t size() const { return end.size(); }  // objects
  bool empty() const { return end.empty(); }

  // Object i's bytes (i < size()).
  std::span<const uint8_t> operator[](size_t i) const {
    const uint64_t b = base[i >> kChunkShift];
    const uint64_t from = b + ((i & (kChunk - 1)) ? end[i - 1] : 0);
    return {data.data() + from, data.data() + b + end[i]};
  }

  // Appends the next object's bytes. Throws std::length_error when its chunk would pass 4 GiB.
  void Append(std::span<const uint8_t> bytes);

  // Readers: sizes `end` for `objects` lengths and `data` for `bytes` bytes, uninitialised (on
  // huge pages when large); the caller writes object i's length into end[i] and the bytes into
  // data, then calls FinishLengths.
  void ResizeForLengths(size_t objects, uint64_t bytes);
  // Turns the lengths in `end` into ends and fills `base`, on up to `threads` threads. Returns ""
  // or the problem: a chunk holding more than 4 GiB, or lengths that do not add up to
  // data.size() ("the value lengths add up to 10 bytes, but there are 12 value bytes"), after
  // which the ranges are unusable (the caller drops them).
  std::string FinishLengths(unsigned threads);

  void clear();
  void shrink_to_fit();
  size_t MemoryBytes() const {
    return end.bytes_reserved() + base.bytes_reserved() + data.bytes_reserved();
  }

  friend bool operator==(const ValueRanges&, const ValueRanges&) = default;
};

}  // namespace xrpm
