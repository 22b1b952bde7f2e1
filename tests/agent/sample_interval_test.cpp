// SampleInterval (xrpm/agent/sample_interval.h): the interval in force is the subscription's
// while one lasts and the start-up interval otherwise; a thread's sampler follows a change at its
// next allocation; 0 samples nothing; at a fixed interval the samples' weighted bytes estimate
// the bytes allocated (p(s) = 1 - exp(-s/N)), whatever the allocation sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "xrpm/agent/sample_interval.h"

namespace xrpm::agent {
namespace {

TEST(SampleInterval, TheSubscriptionsIntervalReplacesTheStartupOneWhileItLasts) {
  SampleInterval interval(16384);
  EXPECT_EQ(interval.startup_bytes(), 16384u);
  EXPECT_EQ(interval.mean_bytes(), 16384u);
  interval.SetSubscription(256);
  EXPECT_EQ(interval.mean_bytes(), 256u);
  interval.SetSubscription(0);  // the subscription ended
  EXPECT_EQ(interval.mean_bytes(), 16384u);
}

TEST(SampleInterval, ZeroSamplesNothingAndAThreadFollowsAChangeAtItsNextAllocation) {
  SampleInterval interval(0);
  ThreadSampler t;
  for (int i = 0; i < 100000; ++i) ASSERT_FALSE(interval.Take(t, 1024, 7));
  interval.SetSubscription(64);  // now one per 64 bytes: a 1 MiB object is always sampled
  EXPECT_TRUE(interval.Take(t, 1 << 20, 7));
  interval.SetSubscription(0);
  for (int i = 0; i < 100000; ++i) ASSERT_FALSE(interval.Take(t, 1024, 7));
}

TEST(SampleInterval, WeightedSamplesEstimateTheBytesWithoutSizeBias) {
  constexpr double kMean = 4096;
  SampleInterval interval(static_cast<uint32_t>(kMean));
  ThreadSampler t;
  double exact = 0, estimate = 0;
  for (int i = 0; i < 2000000; ++i) {
    const uint64_t size = (i % 3 == 0) ? 24 : (i % 3 == 1) ? 200 : 9000;
    exact += double(size);
    if (interval.Take(t, size, 42))
      estimate += double(size) / (1 - std::exp(-double(size) / kMean));
  }
  EXPECT_NEAR(estimate / exact, 1.0, 0.02);
}

}  // namespace
}  // namespace xrpm::agent
