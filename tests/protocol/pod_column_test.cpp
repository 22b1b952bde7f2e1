// PodColumn: the heap batch's numeric columns (pod_column.h).
#include "xrpm/protocol/pod_column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace xrpm::protocol {
namespace {

TEST(PodColumn, AppendsKeepEveryValueAcrossGrowth) {
  PodColumn<uint64_t> c;
  std::vector<uint64_t> expected;
  std::vector<uint64_t> run(40);
  std::iota(run.begin(), run.end(), 1000);
  for (size_t i = 0; i < 5000; ++i) {
    const size_t n = i % 13;  // short runs by the loop, longer ones by memcpy
    c.Append(run.data(), n);
    expected.insert(expected.end(), run.begin(), run.begin() + static_cast<long>(n));
    c.push_back(i);
    expected.push_back(i);
    if (i % 97 == 0) {
      uint64_t* w = c.Extend(3);
      w[0] = 7, w[1] = 8, w[2] = 9;
      expected.insert(expected.end(), {7, 8, 9});
    }
  }
  c.Append(run.data(), run.size());
  expected.insert(expected.end(), run.begin(), run.end());
  EXPECT_EQ(c, expected);
  EXPECT_GE(c.capacity(), c.size());
}

TEST(PodColumn, BehavesAsTheVectorItReplaces) {
  PodColumn<uint32_t> c{1, 2, 3};
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.back(), 3u);
  c.resize(5, 9);
  EXPECT_EQ(c, (std::vector<uint32_t>{1, 2, 3, 9, 9}));
  c.resize(2);
  EXPECT_EQ(c, (std::vector<uint32_t>{1, 2}));
  const std::vector<uint64_t> wide{4, 5};
  c.AppendRange(wide.begin(), wide.end());  // each converted, as vector::insert would
  EXPECT_EQ(c, (std::vector<uint32_t>{1, 2, 4, 5}));
  c.assign(3, 7);
  EXPECT_EQ(c, (std::vector<uint32_t>{7, 7, 7}));

  PodColumn<uint32_t> copy = c;
  c[0] = 1;
  EXPECT_EQ(copy[0], 7u);  // a copy owns its values
  PodColumn<uint32_t> moved = std::move(copy);
  EXPECT_EQ(moved, (std::vector<uint32_t>{7, 7, 7}));
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty

  moved.clear();
  EXPECT_TRUE(moved.empty());
  EXPECT_GT(moved.capacity(), 0u);  // clear keeps the buffer (a batch's columns are reused)
  moved.shrink_to_fit();
  EXPECT_EQ(moved.capacity(), 0u);
  EXPECT_EQ(moved.data(), nullptr);
}

TEST(PodColumn, EmptyColumnsCompareEqual) {
  PodColumn<uint64_t> a, b;
  b.reserve(100);
  EXPECT_EQ(a, b);
  b.push_back(1);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.Extend(0), a.data());
}

}  // namespace
}  // namespace xrpm::protocol
