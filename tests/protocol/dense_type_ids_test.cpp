// DenseTypeIds: the per-object type lookups of a capture's host (dense_type_ids.h).
#include "xrpm/protocol/dense_type_ids.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xrpm::protocol {
namespace {

TEST(DenseTypeIds, FindsWhatWasSetAndAnswersAbsentForTheRest) {
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  DenseTypeIds<uint32_t> ids(kNone);
  EXPECT_EQ(ids.Find(0), kNone);  // nothing set yet
  ids.Set(7, 70);
  ids.Set(3, 30);
  EXPECT_EQ(ids.Find(7), 70u);
  EXPECT_EQ(ids.Find(3), 30u);
  EXPECT_EQ(ids.Find(5), kNone);  // between two set ids
  EXPECT_EQ(ids.Find(8), kNone);  // past the largest
  ids.Set(7, 71);
  EXPECT_EQ(ids.Find(7), 71u);
  // A sparse id beyond the array is the caller's to keep: not stored, not found.
  const uint32_t far = DenseTypeIds<uint32_t>::kLimit;
  EXPECT_FALSE(ids.Covers(far));
  EXPECT_TRUE(ids.Covers(far - 1));
  ids.Set(far, 1);
  EXPECT_EQ(ids.Find(far), kNone);
}

}  // namespace
}  // namespace xrpm::protocol
