// What the frame rows' allocation figures are called (analysis/allocation_profile.h): a profile
// and both sides of a diff carry the recording's FrameTotals, and the wording the CLI and the
// monitor use follows it: "exact N" for a runtime's count, "frame totals N, estimated from
// samples" (never "exact") for .NET's sampled route.
#include <gtest/gtest.h>

#include <string>

#include "xrpm/analysis/allocation_diff.h"
#include "xrpm/analysis/allocation_profile.h"

namespace xrpm::analysis {
namespace {

FrameRecording TotalsRecording(FrameTotals totals) {
  FrameRecording r;
  r.sample_bytes = 1024;
  r.frame_totals = totals;
  r.methods = {"Game.Update"};
  r.types = {"Bubble"};
  r.stacks = {{1}};
  r.frames = {{1, 16'667, 16'667, 1'000, 2'048, 32}, {2, 33'334, 16'667, 1'000, 0, 0}};
  r.samples = {{1, 1, 1, 64, 0}};
  return r;
}

TEST(FrameTotals, TheProfileAndTheDiffCarryTheRecordingsFrameTotals) {
  const FrameRecording exact = TotalsRecording(FrameTotals::kExact);
  const FrameRecording estimated = TotalsRecording(FrameTotals::kEstimated);
  const AllocationProfile pe = BuildAllocationProfile(exact);
  const AllocationProfile ps = BuildAllocationProfile(estimated);
  EXPECT_EQ(pe.frame_totals, FrameTotals::kExact);
  EXPECT_EQ(ps.frame_totals, FrameTotals::kEstimated);
  // The figures themselves are the rows' sums either way.
  EXPECT_EQ(ps.exact_bytes, 2'048u);
  EXPECT_EQ(ps.exact_objects, 32u);
  EXPECT_EQ(ps.ExactBytesPerFrame(), 1'024.0);

  const AllocationDiff d = DiffAllocations(exact, estimated, AllocSiteKind::kType);
  EXPECT_EQ(d.a.frame_totals, FrameTotals::kExact);
  EXPECT_EQ(d.b.frame_totals, FrameTotals::kEstimated);
  EXPECT_EQ(d.b.exact_per_frame, 1'024.0);
}

TEST(FrameTotals, TheWordingFollowsTheFlag) {
  EXPECT_STREQ(FrameTotalsName(FrameTotals::kExact), "exact");
  EXPECT_STREQ(FrameTotalsName(FrameTotals::kEstimated), "estimated");
  EXPECT_STREQ(FrameTotalsLabel(FrameTotals::kExact), "exact");
  EXPECT_STREQ(FrameTotalsLabel(FrameTotals::kEstimated), "estimated from samples");
  EXPECT_EQ(FrameTotalsPhrase(FrameTotals::kExact, "1.00 KiB"), "exact 1.00 KiB");
  const std::string est = FrameTotalsPhrase(FrameTotals::kEstimated, "1.00 KiB");
  EXPECT_EQ(est, "frame totals 1.00 KiB, estimated from samples");
  EXPECT_EQ(est.find("exact"), std::string::npos);
  EXPECT_EQ(std::string(FrameTotalsHelp(FrameTotals::kEstimated)).find("Exact"), std::string::npos);
  EXPECT_NE(std::string(FrameTotalsHelp(FrameTotals::kExact)).find("runtime's own count"),
            std::string::npos);
}

// A device that does not say, and a new subscription, are exact; appending to the same
// subscription takes what the device said last.
TEST(FrameTotals, AnUnsaidRecordingIsExactAndAppendKeepsTheSubscriptionsFlag) {
  FrameRecording r;
  EXPECT_EQ(r.frame_totals, FrameTotals::kExact);
  r.subscription = 3;
  FrameRecording delta = TotalsRecording(FrameTotals::kEstimated);
  delta.subscription = 3;
  r.Append(std::move(delta));
  EXPECT_EQ(r.frame_totals, FrameTotals::kEstimated);
  FrameRecording next;
  next.subscription = 4;
  r.Append(std::move(next));
  EXPECT_EQ(r.frame_totals, FrameTotals::kExact) << "a new subscription starts over";
}

}  // namespace
}  // namespace xrpm::analysis
