// ctest-labels: threaded
// The .NET port's allocation origins across collections without a runtime (dotnet_origins.h):
// samples recorded, then collections that compact (moves), sweep (survivors in place) or leave
// a generation alone, with the generation bounds they start with; what a capture's snapshot
// holds after each. Runs in every configuration, sanitizers included; the same code inside
// CoreCLR is tested end to end in dotnet_origins_run_test.cpp.
#include "dotnet_origins.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace xrpm::dotnet {
namespace {

std::string OriginTestName(void*, uint64_t key) {
  return "NS.C.M" + std::to_string(key);
}

// Generation 0 at [0x10000, 0x20000), 1 at [0x20000, 0x30000), 2 at [0x30000, 0x40000).
const DotnetOrigins::GenerationRange kOriginTestRanges[] = {
    {0x10000, 0x20000, 0}, {0x20000, 0x30000, 1}, {0x30000, 0x40000, 2}};

// One collection of generations 0..up_to_generation; the bounds after it are the same unless a
// test sets `after` (a region promoted in place).
struct OriginCollection {
  DotnetOrigins& o;
  std::vector<DotnetOrigins::GenerationRange> after{std::begin(kOriginTestRanges),
                                                    std::end(kOriginTestRanges)};
  explicit OriginCollection(DotnetOrigins& origins, int up_to_generation) : o(origins) {
    bool collected[5] = {};
    for (int g = 0; g <= up_to_generation; ++g) collected[g] = true;
    o.BeginCollection(kOriginTestRanges, 3, collected, 5);
  }
  void Move(uintptr_t from, uintptr_t to, size_t len) { o.Moved(&from, &to, &len, 1); }
  void Survive(uintptr_t start, size_t len) { o.Survived(&start, &len, 1); }
  ~OriginCollection() { o.EndCollection(after.data(), after.size()); }
};

void Record(DotnetOrigins& o, uint64_t address, uint64_t klass, uint64_t frame, uint64_t method) {
  const uint64_t keys[] = {method, 99};
  o.Record(address, klass, frame, keys, 2, &OriginTestName, nullptr);
}

std::vector<uint64_t> Addresses(const DotnetOrigins& o) {
  std::vector<DotnetOrigins::Entry> e;
  o.Snapshot(&e);
  std::vector<uint64_t> a;
  for (const auto& x : e) a.push_back(x.address);
  return a;
}

TEST(DotnetOrigins, ACompactingCollectionMovesSurvivorsAndDropsTheRest) {
  DotnetOrigins o(64);
  Record(o, 0x10100, 7, 3, 1);  // survives, moved into generation 1
  Record(o, 0x10200, 7, 3, 1);  // dies
  Record(o, 0x10300, 8, 4, 2);  // survives in the same plug
  {
    OriginCollection gc(o, 0);
    gc.Move(0x10100, 0x20500, 0x40);   // a plug of one object
    gc.Move(0x10280, 0x20600, 0x100);  // 0x10300 is inside: offset 0x80
  }
  std::vector<DotnetOrigins::Entry> e;
  o.Snapshot(&e);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].address, 0x20500u);
  EXPECT_EQ(e[0].klass, 7u);
  EXPECT_EQ(e[0].frame, 3u);
  EXPECT_EQ(e[1].address, 0x20680u);
  EXPECT_EQ(e[1].klass, 8u);
  EXPECT_EQ(e[1].frame, 4u);
  const auto& site = o.sites().site(e[1].site);
  ASSERT_EQ(site.depth, 2u);
  EXPECT_EQ(*site.names[0], "NS.C.M2");
  EXPECT_EQ(*site.names[1], "NS.C.M99");
  EXPECT_EQ(o.stats().moved, 2u);
  EXPECT_EQ(o.stats().died, 1u);
  EXPECT_EQ(o.stats().tracked, 2u);
}

TEST(DotnetOrigins, GenerationsNotCollectedKeepTheirEntriesUnreported) {
  DotnetOrigins o(64);
  Record(o, 0x30100, 1, 1, 1);  // generation 2: a generation 0 collection leaves it alone
  Record(o, 0x20100, 1, 1, 1);  // generation 1: the same
  Record(o, 0x10100, 1, 1, 1);  // generation 0: condemned, not reported: dead
  { OriginCollection gc(o, 0); }
  EXPECT_EQ(Addresses(o), (std::vector<uint64_t>{0x20100, 0x30100}));
  // A full collection that reports only the generation 2 survivor, in place (a sweep).
  {
    OriginCollection gc(o, 2);
    gc.Survive(0x30000, 0x1000);
  }
  EXPECT_EQ(Addresses(o), (std::vector<uint64_t>{0x30100}));
  EXPECT_EQ(o.stats().moved, 0u);
  EXPECT_EQ(o.stats().died, 2u);
}

// The cheap events report compacting collections only: a sweep says nothing.
TEST(DotnetOrigins, SweepsKeepTheirEntriesWhereTheSpaceIsNotReusedForAllocation) {
  DotnetOrigins o(64);
  Record(o, 0x30100, 1, 1, 1);  // generation 2
  Record(o, 0x10100, 2, 1, 1);  // generation 0, its region promoted in place by a sweep
  Record(o, 0x18100, 3, 1, 1);  // generation 0, its region reset for allocation: dead
  {
    OriginCollection gc(o, 2);  // a full collection that compacted nothing: no reports
    gc.after = {
        {0x10000, 0x18000, 1}, {0x18000, 0x20000, 0}, {0x20000, 0x30000, 1}, {0x30000, 0x40000, 2}};
  }
  EXPECT_EQ(Addresses(o), (std::vector<uint64_t>{0x10100, 0x30100}));
  EXPECT_EQ(o.stats().swept, 2u);
  EXPECT_EQ(o.stats().died, 1u);
  // A full collection that compacted generation 2 (some of it moved): the unreported died.
  Record(o, 0x30200, 4, 1, 1);
  {
    OriginCollection gc(o, 2);
    gc.Move(0x30200, 0x30180, 0x20);
  }
  EXPECT_EQ(Addresses(o), (std::vector<uint64_t>{0x30180}))
      << "0x10100 (generation 0 in "
         "these bounds): collected, unreported: dead";
}

TEST(DotnetOrigins, AnAddressOutsideEveryRangeCountsAsCondemned) {
  DotnetOrigins o(64);
  Record(o, 0x90000, 1, 1, 1);  // beyond the bounds (an allocation context, say)
  Record(o, 0x90100, 1, 1, 1);
  {
    OriginCollection gc(o, 1);  // generation 2 not collected
    gc.Survive(0x90100, 0x10);  // reported: kept
  }
  EXPECT_EQ(Addresses(o), (std::vector<uint64_t>{0x90100}));
}

TEST(DotnetOrigins, ADeadObjectsSpaceReusedBySurvivorsKeepsTheSurvivorsOrigin) {
  DotnetOrigins o(64);
  Record(o, 0x20100, 1, 1, 1);  // generation 1, alive, left alone by a generation 0 collection
  Record(o, 0x10100, 2, 2, 2);
  // A generation 0 object promoted onto an address an entry still holds must win; the stale
  // entry cannot be alive there (only a dead object's space can be a destination).
  {
    OriginCollection gc(o, 0);
    gc.Move(0x10100, 0x20100, 0x20);
  }
  std::vector<DotnetOrigins::Entry> e;
  o.Snapshot(&e);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].klass, 2u) << "the moved object's origin, not the unreported one's";
}

TEST(DotnetOrigins, ANewSampleAtAnAddressReplacesTheOldEntry) {
  DotnetOrigins o(64);
  Record(o, 0x30100, 1, 1, 1);
  { OriginCollection gc(o, 0); }  // generation 2 untouched: kept
  Record(o, 0x30100, 5, 9, 3);    // the runtime says a new object lives there
  { OriginCollection gc(o, 0); }
  std::vector<DotnetOrigins::Entry> e;
  o.Snapshot(&e);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].klass, 5u);
  EXPECT_EQ(e[0].frame, 9u);
}

TEST(DotnetOrigins, BoundedSamplesAreCountedAndFramesSaturate) {
  DotnetOrigins o(2);
  Record(o, 0x10100, 1, uint64_t{1} << 40, 1);
  Record(o, 0x10200, 1, 1, 1);
  Record(o, 0x10300, 1, 1, 1);  // no room
  EXPECT_EQ(o.stats().recorded, 2u);
  EXPECT_EQ(o.stats().table_full, 1u);
  {
    OriginCollection gc(o, 0);
    gc.Survive(0x10000, 0x1000);
  }
  std::vector<DotnetOrigins::Entry> e;
  o.Snapshot(&e);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].frame, UINT32_MAX);
  Record(o, 0x10400, 1, 1, 1);
  EXPECT_EQ(o.stats().table_full, 2u) << "two tracked fill a table of two";
}

TEST(DotnetOrigins, NothingRecordedCostsNothingAndCallsOutsideACollectionAreIgnored) {
  DotnetOrigins o(64);
  uintptr_t from = 0x10000, to = 0x20000;
  size_t len = 0x10000;
  o.Moved(&from, &to, &len, 1);  // no collection begun: ignored
  { OriginCollection gc(o, 2); }
  EXPECT_TRUE(Addresses(o).empty());
  o.EndCollection(kOriginTestRanges, 3);  // a second end: ignored
  EXPECT_EQ(o.stats().died, 0u);
}

TEST(DotnetOrigins, SamplesFromManyThreadsWhileCollectionsRun) {
  DotnetOrigins o(1 << 14);
  constexpr int kOriginThreads = 4, kOriginPer = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kOriginThreads; ++t)
    threads.emplace_back([&o, t] {
      for (int i = 0; i < kOriginPer; ++i)
        Record(o, 0x30000 + (static_cast<uint64_t>(t) * kOriginPer + i) * 16 % 0x10000 + 0x8,
               static_cast<uint64_t>(t), static_cast<uint64_t>(i), static_cast<uint64_t>(t));
    });
  for (int c = 0; c < 50; ++c) {
    OriginCollection gc(o, 0);  // generation 2 entries stay
  }
  for (auto& t : threads) t.join();
  { OriginCollection gc(o, 0); }
  // 8,000 samples on 4,096 distinct generation 2 addresses: one entry per address.
  EXPECT_EQ(o.stats().tracked, 4096u);
  EXPECT_EQ(o.stats().recorded, static_cast<uint64_t>(kOriginThreads * kOriginPer));
}

}  // namespace
}  // namespace xrpm::dotnet
