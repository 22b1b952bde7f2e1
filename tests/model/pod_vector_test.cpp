// PodVector: growth from malloc'd to mapped memory keeps every value, and a mapping of
// huge-page size or more starts on a huge-page boundary however it grew (so the kernel can back
// it with 2 MiB pages and a move keeps them). resize_uninitialized leaves a fresh mapping's
// pages untouched, reading zero.
#include "xrpm/model/pod_vector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "resident_pages.h"

namespace xrpm {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

bool HugeAligned(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) & (kHugePage - 1)) == 0;
}

uint64_t ValueAt(size_t i) {
  return i * 0x9E3779B97F4A7C15ull;
}

TEST(PodVector, AppendGrowthKeepsEveryValueAndEndsHugeAligned) {
  PodVector<uint64_t> v;
  std::vector<uint64_t> chunk(1000);
  constexpr size_t kTotal = 3'000'000;  // 24 MB: malloc, then a mapping moved as it grows
  bool was_aligned_when_large = true;
  for (size_t i = 0; i < kTotal; i += chunk.size()) {
    for (size_t k = 0; k < chunk.size(); ++k) chunk[k] = ValueAt(i + k);
    v.append(chunk.data(), chunk.data() + chunk.size());
    if (v.capacity() * sizeof(uint64_t) >= kHugePage)
      was_aligned_when_large = was_aligned_when_large && HugeAligned(v.data());
  }
  ASSERT_EQ(v.size(), kTotal);
  EXPECT_TRUE(was_aligned_when_large);
  for (size_t i = 0; i < kTotal; ++i) ASSERT_EQ(v[i], ValueAt(i)) << "at " << i;
}

TEST(PodVector, PushBackOfOddSizedValuesKeepsThem) {
  struct Three {
    uint32_t a, b, c;
  };
  PodVector<Three> v;
  constexpr uint32_t kTotal = 700'000;  // 8.4 MB of 12-byte values: mappings not a multiple of 12
  for (uint32_t i = 0; i < kTotal; ++i) v.push_back({i, i ^ 0x5555u, i * 3});
  ASSERT_EQ(v.size(), kTotal);
  EXPECT_TRUE(HugeAligned(v.data()));
  for (uint32_t i = 0; i < kTotal; ++i) {
    ASSERT_EQ(v[i].a, i);
    ASSERT_EQ(v[i].b, i ^ 0x5555u);
    ASSERT_EQ(v[i].c, i * 3);
  }
  v.shrink_to_fit();
  ASSERT_EQ(v.size(), kTotal);
  EXPECT_GE(v.capacity(), kTotal);
  EXPECT_EQ(v[kTotal - 1].c, (kTotal - 1) * 3);
}

TEST(PodVector, ReserveResizeShrinkCopyAndMove) {
  PodVector<uint32_t> v;
  v.reserve(5'000'000);
  EXPECT_TRUE(HugeAligned(v.data()));
  EXPECT_GE(v.capacity(), 5'000'000u);
  v.resize(3'000'000, 7u);
  v[2'999'999] = 9;
  v.shrink_to_fit();  // shrinks in place
  ASSERT_EQ(v.size(), 3'000'000u);
  EXPECT_EQ(v[0], 7u);
  EXPECT_EQ(v[2'999'999], 9u);
  v.resize(6'000'000, 1u);  // grows again past what the shrink left
  EXPECT_EQ(v[2'999'999], 9u);
  EXPECT_EQ(v[5'999'999], 1u);

  PodVector<uint32_t> copy = v;
  EXPECT_TRUE(copy == v);
  PodVector<uint32_t> moved = std::move(v);
  EXPECT_TRUE(moved == copy);
  EXPECT_TRUE(v.empty());

  moved.resize(10);  // back under the mapping threshold: the data stays where it is, mapped
  moved.shrink_to_fit();
  ASSERT_EQ(moved.size(), 10u);
  EXPECT_EQ(moved[9], 7u);
  moved.push_back(3);
  EXPECT_EQ(moved[10], 3u);
}

TEST(PodVector, ResizeUninitializedLeavesAFreshMappingUntouchedAndReadingZero) {
  // Mapped (from 1 MiB): no page is written, so none is resident until read or written.
  PodVector<uint32_t> big;
  constexpr size_t kCount = size_t{16} << 20;  // 64 MiB
  big.resize_uninitialized(kCount);
  ASSERT_EQ(big.size(), kCount);
  EXPECT_EQ(testing::ResidentPages(big.data(), big.bytes_reserved()), 0u);
  EXPECT_EQ(big[0], 0u);
  EXPECT_EQ(big[kCount / 2], 0u);
  EXPECT_EQ(big[kCount - 1], 0u);
  // What was stored within the capacity is kept.
  PodVector<uint32_t> used;
  used.resize(100, 7);
  used.clear();
  used.resize_uninitialized(100);
  EXPECT_TRUE(std::all_of(used.begin(), used.end(), [](uint32_t v) { return v == 7; }));
}

}  // namespace
}  // namespace xrpm
