// AddressRanges (device-agent/ports/dotnet/src/address_ranges.h): membership against a plain
// scan of the ranges as given, for region-like heaps (4 MiB-aligned ranges, many touching),
// unaligned ends, ranges spread too far apart for a fine table, and nothing.
#include "address_ranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace xrpm::dotnet {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

bool Naive(const Ranges& rs, uint64_t a) {
  for (const auto& r : rs)
    if (a >= r.first && a < r.second) return true;
  return false;
}

// Every range's edges and their neighbours, and random addresses across and around the span.
void ExpectSameAsNaive(const Ranges& rs) {
  AddressRanges set;
  set.Assign(rs);
  std::vector<uint64_t> probes = {0, 1, UINT64_MAX};
  for (const auto& r : rs)
    for (uint64_t a : {r.first, r.second})
      for (int64_t d : {-4097, -4096, -1, 0, 1, 4095, 4096})
        probes.push_back(a + static_cast<uint64_t>(d));
  if (!rs.empty()) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& r : rs) {
      lo = std::min(lo, r.first);
      hi = std::max(hi, r.second);
    }
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<uint64_t> any(lo > 4096 ? lo - 4096 : 0, hi + 4096);
    for (int i = 0; i < 20000; ++i) probes.push_back(any(rng));
  }
  for (uint64_t a : probes) ASSERT_EQ(set.Contains(a), Naive(rs, a)) << std::hex << a;
}

TEST(AddressRanges, RegionsThatTouchMergeAndAnswerExactly) {
  constexpr uint64_t kRegion = uint64_t{4} << 20;
  const uint64_t base = 0x7f0000000000;
  Ranges rs;
  for (uint64_t i = 0; i < 40; ++i)
    if (i % 7 != 3) rs.push_back({base + i * kRegion, base + (i + 1) * kRegion});  // gaps
  rs.push_back({base + 1000 * kRegion, base + 1008 * kRegion});  // a large object region, far
  AddressRanges set;
  set.Assign(rs);
  EXPECT_EQ(set.merged().size(), 8u) << "touching regions are one range (7 runs and the far one)";
  ExpectSameAsNaive(rs);
}

TEST(AddressRanges, UnalignedOverlappingAndEmptyRanges) {
  ExpectSameAsNaive({{0x10010, 0x20003},
                     {0x20003, 0x20004},
                     {0x15000, 0x18000},
                     {0x40001, 0x40001},
                     {0x50000, 0x40000},
                     {0x90123, 0x95555}});
}

TEST(AddressRanges, RangesTooFarApartForAFineTable) {
  // A span of 2^46 bytes: the granule grows so the table stays within its bound.
  ExpectSameAsNaive({{0x1000, 0x5000},
                     {uint64_t{1} << 40, (uint64_t{1} << 40) + 0x123456},
                     {(uint64_t{1} << 46) - 0x10000, uint64_t{1} << 46}});
}

TEST(AddressRanges, NoRangesContainNothing) {
  AddressRanges set;
  set.Assign({});
  EXPECT_TRUE(set.empty());
  EXPECT_FALSE(set.Contains(0));
  EXPECT_FALSE(set.Contains(0x7f0000000000));
  ExpectSameAsNaive({});
}

}  // namespace
}  // namespace xrpm::dotnet
