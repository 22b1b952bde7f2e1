// The frame rows' collection kinds (xrpm/protocol/gc_kinds.h): one byte per collection, packed
// in order, checked for what a device could have sent.
#include "xrpm/protocol/gc_kinds.h"

#include <gtest/gtest.h>

namespace xrpm::protocol {
namespace {

TEST(GcKinds, PacksTheFirstFourCollectionsInOrder) {
  uint32_t k = 0;
  EXPECT_EQ(GcKindCount(k), 0u);
  k = AppendGcKind(k, 0, GcReason::kAllocation);
  k = AppendGcKind(k, 2, GcReason::kInduced);
  ASSERT_EQ(GcKindCount(k), 2u);
  EXPECT_EQ(GcKindAt(k, 0).generation, 0);
  EXPECT_EQ(GcKindAt(k, 0).reason, GcReason::kAllocation);
  EXPECT_EQ(GcKindAt(k, 1).generation, 2);
  EXPECT_EQ(GcKindAt(k, 1).reason, GcReason::kInduced);
  k = AppendGcKind(k, 1, GcReason::kUnknown);  // Mono: the reason is not known
  k = AppendGcKind(k, 99, GcReason::kLowMemory);
  EXPECT_EQ(GcKindCount(k), 4u);
  EXPECT_EQ(GcKindAt(k, 2).reason, GcReason::kUnknown) << "a known generation, no reason";
  EXPECT_EQ(GcKindAt(k, 3).generation, kMaxGcGeneration) << "cut at 15";
  EXPECT_EQ(AppendGcKind(k, 0, GcReason::kOther), k) << "a fifth collection keeps the first four";
  EXPECT_STREQ(GcReasonName(GcReason::kLowMemory), "low memory");
}

TEST(GcKinds, RefusesWhatNoDeviceSends) {
  const uint32_t two =
      AppendGcKind(AppendGcKind(0, 0, GcReason::kAllocation), 2, GcReason::kInduced);
  EXPECT_TRUE(GcKindsValid(0, 0));
  EXPECT_TRUE(GcKindsValid(0, 3)) << "kinds not known";
  EXPECT_TRUE(GcKindsValid(two, 2));
  EXPECT_TRUE(GcKindsValid(two, 9)) << "more collections than the four kinds kept";
  EXPECT_FALSE(GcKindsValid(two, 1)) << "more kinds than collections";
  EXPECT_FALSE(GcKindsValid(0x80u << 8, 2)) << "a gap before the second";
  EXPECT_FALSE(GcKindsValid(0x01u, 1)) << "a byte without its presence bit";
  EXPECT_FALSE(GcKindsValid(0x80u | (7u << 4), 1)) << "reason 7";
}

}  // namespace
}  // namespace xrpm::protocol
