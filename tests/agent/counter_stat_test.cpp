// ctest-labels: agent threaded
// agent::CounterStat, the one counter accumulator of both runtimes: event and level semantics
// of the .stat columns, the empty counter, and (any-writer policy) exact totals, counts and
// extremes when several threads update one counter at once.
#include "xrpm/agent/counter_stat.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace xrpm::agent {
namespace {

TEST(CounterStat, AnEmptyCounterReadsAllZero) {
  CounterStat<CounterWriters::kOne> s;
  const CounterValue v = s.Value();
  EXPECT_EQ(v.n, 0u);
  EXPECT_EQ(v.total, 0);
  EXPECT_EQ(v.min, 0);
  EXPECT_EQ(v.max, 0);
  EXPECT_EQ(v.mean, 0.0);
}

TEST(CounterStat, AnEventCounterAddsEachDatumToItsTotal) {
  CounterStat<CounterWriters::kOne> s;
  for (int64_t d : {40, -8, 100, 12}) s.Add(d);
  const CounterValue v = s.Value();
  EXPECT_EQ(v.total, 144);
  EXPECT_EQ(s.total(), 144);
  EXPECT_EQ(v.n, 4u);
  EXPECT_EQ(s.count(), 4u);
  EXPECT_EQ(v.last, 12);
  EXPECT_EQ(v.min, -8);
  EXPECT_EQ(v.max, 100);
  EXPECT_DOUBLE_EQ(v.mean, 36.0);
}

TEST(CounterStat, ALevelCounterTotalIsTheCurrentLevel) {
  CounterStat<CounterWriters::kMany> s;
  for (int64_t level : {4096, 8192, 2048}) s.Set(level);
  const CounterValue v = s.Value();
  EXPECT_EQ(v.total, 2048);
  EXPECT_EQ(v.last, 2048);
  EXPECT_EQ(v.n, 3u);
  EXPECT_EQ(v.min, 2048);
  EXPECT_EQ(v.max, 8192);
  EXPECT_DOUBLE_EQ(v.mean, 14336.0 / 3);
}

TEST(CounterStat, ManyWritersLoseNoUpdate) {
  CounterStat<CounterWriters::kMany> s;
  constexpr int kThreads = 4, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&s, t] {
      for (int i = 1; i <= kEach; ++i) s.Add(t * kEach + i);
    });
  for (auto& th : threads) th.join();
  const CounterValue v = s.Value();
  const int64_t n = int64_t{kThreads} * kEach;
  EXPECT_EQ(v.n, static_cast<uint64_t>(n));
  EXPECT_EQ(v.total, n * (n + 1) / 2);
  EXPECT_EQ(v.min, 1);
  EXPECT_EQ(v.max, n);
}

}  // namespace
}  // namespace xrpm::agent
