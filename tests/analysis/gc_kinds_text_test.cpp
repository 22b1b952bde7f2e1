// How the CLI and the monitor word a frame's collections (frame_summary.h: GcKindText,
// GcKindsText, FrameGcsText): each kind, the list, and the count with "..." when the row carries
// the kinds of only its first four collections.
#include <gtest/gtest.h>

#include "xrpm/analysis/frame_summary.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::analysis {
namespace {

using protocol::AppendGcKind;
using protocol::GcReason;

TEST(GcKindsText, NamesEachCollectionAndSaysWhenKindsAreMissing) {
  uint32_t k = AppendGcKind(0, 0, GcReason::kAllocation);
  k = AppendGcKind(k, 2, GcReason::kInduced);
  EXPECT_EQ(GcKindsText(k), "gen 0 allocation, gen 2 induced");
  EXPECT_EQ(FrameGcsText(2, k), "2 GC (gen 0 allocation, gen 2 induced)");
  EXPECT_EQ(FrameGcsText(6, k), "6 GC (gen 0 allocation, gen 2 induced, ...)")
      << "more collections than kinds carried";
  EXPECT_EQ(FrameGcsText(1, 0), "1 GC") << "an older peer sends no kinds";
  EXPECT_EQ(GcKindsText(0), "");
  EXPECT_EQ(GcKindText(protocol::GcKindAt(AppendGcKind(0, 1, GcReason::kUnknown), 0)), "gen 1");
}

}  // namespace
}  // namespace xrpm::analysis
