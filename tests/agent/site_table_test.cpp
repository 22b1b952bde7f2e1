// The agent's allocation-site table (device-agent: xrpm/agent/site_table.h), which the Mono and
// .NET ports intern their sampled allocations' stacks in: ids, names computed once per method,
// the bound and what happens past it (the emulator's table, tests/emulator/origins_test.cpp,
// is asked the same), and the walk reporter that describes each site once per walk.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "origin_calls_sink.h"
#include "xrpm/agent/origin_reporter.h"
#include "xrpm/agent/site_table.h"
#include "xrpm/protocol/allocation_sites.h"

namespace xrpm::agent {
namespace {

std::atomic<int> g_name_calls{0};
std::string NameOf(void* ctx, uint64_t key) {
  ++g_name_calls;
  return std::string(ctx ? static_cast<const char*>(ctx) : "NS.C.M") + std::to_string(key);
}

TEST(SiteTable, InternsStacksAndNamesEachMethodOnce) {
  SiteTable s;
  g_name_calls = 0;
  const uint64_t a[] = {10, 20, 30};
  const uint64_t b[] = {10, 20};
  EXPECT_EQ(s.Intern(nullptr, 0, &NameOf), protocol::kOutsideManagedCode)
      << "no managed frame is a site too, always id 1 as in the emulator";
  EXPECT_EQ(s.Intern(a, 3, &NameOf), 2u);
  EXPECT_EQ(s.Intern(b, 2, &NameOf), 3u);
  EXPECT_EQ(s.Intern(a, 3, &NameOf), 2u);
  EXPECT_EQ(g_name_calls.load(), 3);
  ASSERT_EQ(s.count(), 3u);
  EXPECT_EQ(s.site(2).depth, 3u);
  EXPECT_EQ(*s.site(2).names[0], "NS.C.M10");
  EXPECT_EQ(*s.site(2).names[2], "NS.C.M30");
  EXPECT_EQ(s.site(protocol::kOutsideManagedCode).depth, 0u);
  std::vector<uint64_t> deep(kMaxSampleStackDepth + 5, 7);
  const uint32_t id = s.Intern(deep.data(), static_cast<uint32_t>(deep.size()), &NameOf);
  EXPECT_EQ(s.site(id).depth, kMaxSampleStackDepth);
  EXPECT_EQ(s.truncated(), 0u);
}

TEST(SiteTable, AFullTableFallsBackToTheAllocatingMethodThenGivesNoId) {
  SiteTable s(4);  // the empty stack + 3 full stacks, then 1 one-method stack past the bound
  const uint64_t ab[] = {1, 2}, ac[] = {1, 3}, b[] = {2}, c[] = {3}, dx[] = {4, 9}, ex[] = {5, 9};
  EXPECT_EQ(s.Intern(ab, 2, &NameOf), 2u);
  EXPECT_EQ(s.Intern(b, 1, &NameOf), 3u);
  EXPECT_EQ(s.Intern(c, 1, &NameOf), 4u);
  EXPECT_EQ(s.count(), 4u);
  // Full: {1, 3} becomes {1}, interned past the bound, once.
  const uint32_t cut = s.Intern(ac, 2, &NameOf);
  EXPECT_EQ(cut, 5u);
  EXPECT_EQ(s.site(cut).depth, 1u);
  EXPECT_EQ(*s.site(cut).names[0], "NS.C.M1");
  EXPECT_EQ(s.Intern(ac, 2, &NameOf), cut);
  EXPECT_EQ(s.truncated(), 2u);
  EXPECT_EQ(s.Intern(ab, 2, &NameOf), 2u) << "known stacks keep their ids";
  EXPECT_EQ(s.Intern(dx, 2, &NameOf), protocol::kNoSite)
      << "{4} would need a sixth site: no room left";
  EXPECT_EQ(s.Intern(ex, 1, &NameOf), protocol::kNoSite);
  EXPECT_EQ(s.count(), 5u);
}

TEST(SiteTable, PassesItsContextToTheNamingFunction) {
  SiteTable s;
  const uint64_t a[] = {4};
  char prefix[] = "Game.M";
  const uint32_t id = s.Intern(a, 1, &NameOf, prefix);
  EXPECT_EQ(*s.site(id).names[0], "Game.M4");
}

using ReporterSink = testing::OriginCallsSink;

TEST(OriginReporter, DescribesEachSiteOncePerWalkAndSkipsUnknownSites) {
  SiteTable sites;
  const uint64_t a[] = {1, 2};
  const uint32_t id = sites.Intern(a, 2, &NameOf);
  OriginReporter r;
  ReporterSink sink;
  ASSERT_EQ(r.Begin(sink, sites, 9, 100), WalkResult::kOk);
  EXPECT_TRUE(r.open());
  r.Report(sink, sites, 64, 3, id);
  r.Report(sink, sites, 128, 4, id);
  r.Report(sink, sites, 192, 4, 77);  // never interned: no call
  r.End();
  EXPECT_FALSE(r.open());
  EXPECT_EQ(sink.calls, (std::vector<std::string>{"clock 9 100", "site 2: NS.C.M1 NS.C.M2",
                                                  "origin 64 3 2", "origin 128 4 2"}));
  ReporterSink again;
  r.Begin(again, sites, 10, 100);
  r.Report(again, sites, 64, 3, id);
  EXPECT_EQ(again.calls.size(), 3u) << "a new walk describes the site again";
}

}  // namespace
}  // namespace xrpm::agent
