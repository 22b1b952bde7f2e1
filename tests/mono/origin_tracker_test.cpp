// ctest-labels: threaded
// The Mono port's allocation-origin tables without Mono (device-agent/ports/mono/src:
// OriginTable, OriginTracker; the SiteTable is the agent's: tests/agent/site_table_test.cpp):
// recording, address reuse, moves, full buckets, the prune after a walk, and the exact walker-API
// calls a walk makes (a recording HeapInfoCallback), so these run in every configuration,
// sanitizers included. The same code inside real Mono is tested end to end in
// mono_origins_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "origin_calls_sink.h"
#include "origin_table.h"
#include "origin_tracker.h"

namespace xrpm::mono {
namespace {

using agent::WalkResult;

std::atomic<int> g_name_calls{0};
std::string NameOf(void*, uint64_t key) {
  ++g_name_calls;
  return "NS.C.M" + std::to_string(key);
}

using OriginSink = testing::OriginCallsSink;

TEST(OriginTable, RecordsFindsAndForgetsAReusedAddress) {
  OriginTable t(64);
  EXPECT_EQ(t.capacity(), 64u);
  EXPECT_EQ(t.bytes(), 64u * 16 + 16) << "slots and one count byte per bucket";
  ASSERT_TRUE(t.Record(0x1000, {7, 3}));
  ObjectOrigin o;
  ASSERT_TRUE(t.FindAndMark(0x1000, &o));
  EXPECT_EQ(o.frame, 7u);
  EXPECT_EQ(o.site, 3u);
  EXPECT_FALSE(t.FindAndMark(0x1008, &o));
  // A new (unsampled) object allocated at the dead object's address: its origin is unknown.
  t.Forget(0x1000);
  EXPECT_FALSE(t.FindAndMark(0x1000, &o));
  EXPECT_EQ(t.size(), 0u);
}

TEST(OriginTable, MoveKeepsTheOriginAndDropsADeadEntryAtTheDestination) {
  OriginTable t(64);
  ASSERT_TRUE(t.Record(0x2000, {1, 1}));  // dead object's stale entry at the destination
  ASSERT_TRUE(t.Record(0x1000, {5, 2}));
  ASSERT_EQ(t.Move(0x1000, 0x2000), OriginTable::MoveResult::kMoved);
  ObjectOrigin o;
  EXPECT_FALSE(t.FindAndMark(0x1000, &o));
  ASSERT_TRUE(t.FindAndMark(0x2000, &o));
  EXPECT_EQ(o.frame, 5u);
  EXPECT_EQ(o.site, 2u);
  EXPECT_EQ(t.size(), 1u);
  // An unsampled object moved onto a stale entry: the stale entry goes, nothing comes.
  ASSERT_TRUE(t.Record(0x3000, {9, 9}));
  ASSERT_EQ(t.Move(0x4000, 0x3000), OriginTable::MoveResult::kNotRecorded);
  EXPECT_FALSE(t.FindAndMark(0x3000, &o));
}

TEST(OriginTable, AFullBucketRefusesAndSaysSo) {
  OriginTable t(4);  // one 4-way bucket: every address lands in it
  for (uintptr_t a = 1; a <= 4; ++a) ASSERT_TRUE(t.Record(a * 8, {0, 1}));
  EXPECT_FALSE(t.Record(5 * 8, {0, 1}));
  EXPECT_EQ(t.size(), 4u);
  t.Forget(8);  // a dead object's address reused: room again
  EXPECT_TRUE(t.Record(5 * 8, {0, 1}));
  OriginTable none(0);  // no table (allocation failed): nothing is recorded, nothing breaks
  EXPECT_FALSE(none.Record(8, {0, 1}));
  ObjectOrigin o;
  EXPECT_FALSE(none.FindAndMark(8, &o));
  EXPECT_EQ(none.PruneUnmarked(), 0u);
}

TEST(OriginTable, AFullHomeBucketOverflowsAndTheEntriesStayFindable) {
  OriginTable t(64);  // 16 buckets: addresses 1 KiB apart share a home bucket
  std::vector<uintptr_t> recorded;
  for (uintptr_t k = 0; k < 8; ++k) {
    const uintptr_t a = 0x100000 + k * 1024;
    if (t.Record(a, {static_cast<uint32_t>(k), 1})) recorded.push_back(a);
  }
  EXPECT_GT(recorded.size(), 4u) << "beyond the home bucket's 4 ways";
  ObjectOrigin o;
  for (size_t i = 0; i < recorded.size(); ++i) {
    ASSERT_TRUE(t.FindAndMark(recorded[i], &o)) << i;
    EXPECT_EQ(o.frame, (recorded[i] - 0x100000) / 1024);
  }
  // Reused addresses forget overflowed entries too; a move carries one out.
  EXPECT_EQ(t.Move(recorded.back(), 0x900000), OriginTable::MoveResult::kMoved);
  for (uintptr_t a : recorded) t.Forget(a);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_TRUE(t.FindAndMark(0x900000, &o));
  t.Forget(0x900000);
  EXPECT_EQ(t.size(), 0u);
}

TEST(OriginTable, PruneErasesWhatTheWalkDidNotSee) {
  OriginTable t(64);
  ASSERT_TRUE(t.Record(0x100, {1, 1}));
  ASSERT_TRUE(t.Record(0x200, {2, 1}));
  ObjectOrigin o;
  ASSERT_TRUE(t.FindAndMark(0x100, &o));
  EXPECT_EQ(t.PruneUnmarked(), 1u);
  EXPECT_TRUE(t.FindAndMark(0x100, &o));
  EXPECT_FALSE(t.FindAndMark(0x200, &o));
  // Marks do not outlive a prune: an object not seen by the next walk goes too.
  t.ClearMarks();
  EXPECT_EQ(t.PruneUnmarked(), 1u);
  EXPECT_EQ(t.size(), 0u);
}

TEST(OriginTable, ConcurrentMutatorsRecordAndForgetWithoutLosingEntries) {
  OriginTable t(size_t{1} << 16);
  constexpr int kThreads = 4, kPer = 2000;
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&t, k] {
      for (int i = 0; i < kPer; ++i) {
        const uintptr_t a = (static_cast<uintptr_t>(k) << 32) + 32 * (i + 1);
        t.Forget(a);
        t.Record(a, {static_cast<uint32_t>(i), static_cast<uint32_t>(k + 1)});
        if (i % 2) t.Forget(a);  // odd ones reused by an unsampled object
      }
    });
  for (auto& th : threads) th.join();
  size_t found = 0, right = 0;
  for (int k = 0; k < kThreads; ++k)
    for (int i = 0; i < kPer; i += 2) {
      ObjectOrigin o;
      if (t.FindAndMark((static_cast<uintptr_t>(k) << 32) + 32 * (i + 1), &o)) {
        ++found;
        right += o.frame == static_cast<uint32_t>(i) && o.site == static_cast<uint32_t>(k + 1);
      }
    }
  EXPECT_EQ(t.size(), found);
  EXPECT_EQ(right, found);
  // 4,000 entries in 16,384 4-way buckets, two per 64-byte line: a full bucket is rare.
  EXPECT_GE(found, static_cast<size_t>(kThreads * kPer / 2 * 99 / 100));
}

TEST(OriginTracker, AWalkDescribesEachSiteOnceBeforeItsFirstOrigin) {
  OriginTracker t(64);
  const uint64_t make[] = {1, 2};  // MakeTracked <- Tick
  const uint64_t other[] = {3};    // MakeEarly
  t.Record(0x100, 5, make, 2, &NameOf);
  t.Record(0x200, 5, make, 2, &NameOf);
  t.Record(0x300, 0, other, 1, &NameOf);
  t.Record(0x400, 1, other, 1, &NameOf);  // dies before the capture
  t.Move(0x100, 0x900);                   // the collection moves one

  OriginSink sink;
  ASSERT_EQ(t.BeginWalk(sink, 12, 16384), WalkResult::kOk);
  for (uint64_t obj : {0x200u, 0x900u, 0x500u, 0x300u}) t.ReportObject(sink, obj);
  t.EndWalk(true);
  // Site 1 is the empty stack (protocol::kOutsideManagedCode).
  const std::vector<std::string> want = {"clock 12 16384",  "site 2: NS.C.M1 NS.C.M2",
                                         "origin 512 5 2",   // 0x200
                                         "origin 2304 5 2",  // 0x900: moved, same frame and site
                                         "site 3: NS.C.M3",  // 0x500 has no origin: nothing
                                         "origin 768 0 3"};  // 0x300
  EXPECT_EQ(sink.calls, want);
  const OriginTracker::Stats s = t.stats();
  EXPECT_EQ(s.recorded, 4u);
  EXPECT_EQ(s.pruned, 1u) << "0x400 was not seen live";
  EXPECT_EQ(s.moved, 1u);
  EXPECT_EQ(s.tracked, 3u);
  EXPECT_EQ(s.sites, 3u) << "the empty stack and two";

  // The next walk describes its sites again (ids stay the same).
  OriginSink again;
  t.BeginWalk(again, 13, 16384);
  t.ReportObject(again, 0x300);
  t.EndWalk(true);
  EXPECT_EQ(again.calls,
            (std::vector<std::string>{"clock 13 16384", "site 3: NS.C.M3", "origin 768 0 3"}));
  EXPECT_EQ(t.stats().tracked, 1u);
}

TEST(OriginTracker, AnAbortedWalkPrunesNothing) {
  OriginTracker t(64);
  const uint64_t k[] = {1};
  t.Record(0x100, 1, k, 1, &NameOf);
  t.Record(0x200, 1, k, 1, &NameOf);
  OriginSink sink;
  sink.abort_on_site = WalkResult::kAbort;
  t.BeginWalk(sink, 2, 64);
  EXPECT_EQ(t.ReportObject(sink, 0x100), WalkResult::kAbort);
  t.EndWalk(false);
  EXPECT_EQ(t.stats().tracked, 2u);
  EXPECT_EQ(t.stats().pruned, 0u);
}

TEST(OriginTracker, FramesSaturateAndFullTablesAreCounted) {
  OriginTracker t(4);
  const uint64_t k[] = {1};
  t.Record(8, uint64_t{1} << 40, k, 1, &NameOf);
  for (uintptr_t a = 2; a <= 6; ++a) t.Record(a * 8, 1, k, 1, &NameOf);
  OriginSink sink;
  t.BeginWalk(sink, 3, 1);
  t.ReportObject(sink, 8);
  t.EndWalk(false);
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[2], "origin 8 4294967295 2");
  EXPECT_EQ(t.stats().recorded, 4u);
  EXPECT_EQ(t.stats().table_full, 2u);
}

}  // namespace
}  // namespace xrpm::mono
