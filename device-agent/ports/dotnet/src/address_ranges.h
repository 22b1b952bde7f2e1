// AddressRanges: a set of address ranges [start, end) that answers "is this address in one of
// them?" for millions of addresses: the .NET port asks it of every object and reference of a
// capture, to find the references that leave the GC heap (DotnetPort::AddFrozenObjects).
//
// Algorithm: the ranges are sorted and merged (a runtime with regions reports one range per
// region, and neighbouring regions touch), then a table covers the span from the lowest start
// to the highest end with one byte per granule of 2^shift bytes: outside, inside, or partly
// covered. The shift is the smallest >= 12 that keeps the table within kMaxTableBytes; a
// region runtime's ranges start and end on 4 MiB boundaries, which a granule of <= 4 MiB
// divides, so every lookup on such a heap is one table read. A partly covered granule (a
// range's unaligned end, or a span too wide for a fine table) falls back to a binary search
// among the merged ranges. Build: O(r log r + table); Contains: O(1), O(log r) when partial.
// Memory: the merged ranges and at most kMaxTableBytes.
//
// Thread-safety: Assign on one thread; Contains from any number of threads afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace xrpm {
namespace dotnet {

class AddressRanges {
 public:
  static constexpr size_t kMaxTableBytes = size_t{1} << 20;

  // Replaces the set; empty ranges (start >= end) are ignored. Throws std::bad_alloc.
  void Assign(std::vector<std::pair<uint64_t, uint64_t>> ranges);
  bool empty() const { return merged_.empty(); }
  // The ranges after merging, sorted.
  const std::vector<std::pair<uint64_t, uint64_t>>& merged() const { return merged_; }

  bool Contains(uint64_t address) const {
    if (address < lo_ || address >= hi_) return false;
    const uint8_t c = table_[(address - lo_) >> shift_];
    return c == kPartial ? Search(address) : c == kInside;
  }

 private:
  static constexpr uint8_t kOutside = 0, kInside = 1, kPartial = 2;
  bool Search(uint64_t address) const;

  std::vector<std::pair<uint64_t, uint64_t>> merged_;
  std::vector<uint8_t> table_;
  uint64_t lo_ = 0, hi_ = 0;
  unsigned shift_ = 12;
};

}  // namespace dotnet
}  // namespace xrpm
