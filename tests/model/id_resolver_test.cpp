// IdResolver (xrpm/model/id_resolver.h): both layouts, duplicates, misses.
#include "xrpm/model/id_resolver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace xrpm {
namespace {

TEST(IdResolver, FindsEveryIdInBothLayouts) {
  std::mt19937_64 rng(7);
  for (bool shuffled : {false, true}) {
    std::vector<ObjectId> ids;
    ObjectId next = 0x10000;
    for (int i = 0; i < 50'000; ++i)
      ids.push_back(next += 8 + (rng() % 4) * 8 + (i % 1000 == 0 ? 1 << 24 : 0));
    if (shuffled) std::shuffle(ids.begin(), ids.end(), rng);
    IdResolver r = IdResolver::Build(ids, 2);
    EXPECT_EQ(r.sorted(), !shuffled);
    EXPECT_EQ(r.duplicate_ids(), 0u);
    for (uint32_t i = 0; i < ids.size(); ++i) ASSERT_EQ(r.Find(ids[i]), i);
    EXPECT_EQ(r.Find(0), kNoIndex);
    EXPECT_EQ(r.Find(0x10000 + 1), kNoIndex);
    EXPECT_EQ(r.Find(~ObjectId{0}), kNoIndex);
    EXPECT_EQ(r.Find(ids[5] + 1), kNoIndex);
  }
}

TEST(IdResolver, DuplicateIdsResolveToTheFirstObject) {
  std::vector<ObjectId> ids;
  for (int i = 0; i < 200'000; ++i) ids.push_back(0x1000 + 16 * (i % 70'000));  // 3 copies
  IdResolver r = IdResolver::Build(ids, 2);
  EXPECT_FALSE(r.sorted());
  EXPECT_EQ(r.duplicate_ids(), 130'000u);
  for (uint32_t i = 0; i < 70'000; i += 7) ASSERT_EQ(r.Find(ids[i]), i);
  std::vector<std::pair<uint32_t, uint32_t>> dups;
  r.ForEachDuplicate([&](uint32_t first, uint32_t dup) { dups.emplace_back(first, dup); });
  ASSERT_EQ(dups.size(), 130'000u);
  EXPECT_EQ(dups.front(), std::make_pair(0u, 70'000u));
  EXPECT_EQ(dups.back(), std::make_pair(129'999u - 70'000u, 199'999u));
  EXPECT_TRUE(IdResolver::Build({}).sorted());
  EXPECT_EQ(IdResolver::Build({}).Find(5), kNoIndex);
}

TEST(IdResolver, SortedIdsSpanningTheWhole64BitRange) {
  // Few ids far apart: the bucket shift must stop at 63 (a shift by 64 is undefined behaviour,
  // found by the ibm_classic fuzz target on two objects at 0x10 and 0x8000000000000010).
  for (std::vector<ObjectId> ids :
       {std::vector<ObjectId>{0x10, 0x8000'0000'0000'0010}, std::vector<ObjectId>{0, ~ObjectId{0}},
        std::vector<ObjectId>{0, 1, ~ObjectId{0}}}) {
    IdResolver r = IdResolver::Build(ids, 1);
    ASSERT_TRUE(r.sorted());
    for (uint32_t i = 0; i < ids.size(); ++i) EXPECT_EQ(r.Find(ids[i]), i);
    EXPECT_EQ(r.Find(0x8000'0000'0000'0000), kNoIndex);
    EXPECT_EQ(r.Find(ids.front() + 2), kNoIndex);
  }
}

TEST(IdResolver, FindManyAnswersAsFindInBothLayoutsAndEveryGroupSize) {
  std::mt19937_64 rng(11);
  for (bool shuffled : {false, true}) {
    std::vector<ObjectId> ids;
    ObjectId next = 0x10000;
    for (int i = 0; i < 20'000; ++i) ids.push_back(next += 8 + (rng() % 4) * 8);
    if (shuffled) std::shuffle(ids.begin(), ids.end(), rng);
    const IdResolver r = IdResolver::Build(ids, 2);
    // Ids present, absent between them, below, above and at the extremes, in random order.
    std::vector<ObjectId> asked;
    for (int i = 0; i < 5'000; ++i) {
      const ObjectId id = ids[rng() % ids.size()];
      switch (rng() % 4) {
        case 0:
          asked.push_back(id + 1);
          break;
        case 1:
          asked.push_back(rng() % 2 ? 0 : ~ObjectId{0});
          break;
        default:
          asked.push_back(id);
      }
    }
    for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, asked.size()}) {
      std::vector<uint32_t> out(n, 12345);
      r.FindMany(std::span<const ObjectId>(asked.data(), n), out.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], r.Find(asked[i])) << "id " << asked[i];
    }
  }
  uint32_t none = 7;
  const ObjectId one = 5;
  IdResolver::Build({}).FindMany(std::span<const ObjectId>(&one, 1), &none);
  EXPECT_EQ(none, kNoIndex);
}

}  // namespace
}  // namespace xrpm
