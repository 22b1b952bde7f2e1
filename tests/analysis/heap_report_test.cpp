// The data of `xrpm report` (analysis/heap_report.h): which types and sites it lists, in which
// order and how many, and that its suspects and inspections are the engine's.
#include <gtest/gtest.h>

#include "xrpm/analysis/heap_report.h"

namespace xrpm::analysis {
namespace {

// Game.Holder@10 (site 0) holds Game.Blob@40 (site 0); two small holders (site 1); a type
// without instances. Retained: Holder 1120 (1100 + 10 + 10), Blob 1000; site 0 1100, site 1 20.
struct ReportHeap {
  Snapshot snap;
  HeapAnalysis a;
  ReportHeap() {
    snap.AddSection({.version = 2, .name = "game.exe"});
    const uint32_t holder = snap.AddType(2, "Game.Holder", 0);
    const uint32_t blob = snap.AddType(3, "Game.Blob", 0);
    snap.AddType(4, "Game.Unused", 0);
    AllocationOrigins o;
    o.capture_frame = 50;
    o.methods = {"Game.Load", "Game.Update"};
    o.sites = {{{0}}, {{1}}};
    snap.origins = o;
    const ObjectId held[] = {0x40};
    snap.AddObject(0x10, holder, 100, held);
    snap.AddObjectOrigin(1, 0);
    snap.AddObject(0x20, holder, 10, {});
    snap.AddObjectOrigin(2, 1);
    snap.AddObject(0x30, holder, 10, {});
    snap.AddObjectOrigin(3, 1);
    snap.AddObject(0x40, blob, 1000, {});
    snap.AddObjectOrigin(1, 0);
    for (ObjectId id : {0x10, 0x20, 0x30}) snap.AddRoot(id, RootKind::kStatic, 0, 2);
    snap.CloseSectionRanges();
    a = HeapAnalysis::Run(snap);
  }
  std::string Name(uint32_t group) const { return std::string(a.index.group_name(group)); }
};

TEST(HeapReport, TopTypesByRetainedWithoutEmptyTypesUpToTop) {
  const ReportHeap h;
  const HeapReport r = BuildHeapReport(h.a);
  EXPECT_EQ(r.totals.objects, 4u);
  EXPECT_EQ(r.totals.reachable_bytes, 1120u);
  ASSERT_EQ(r.top_types.size(), 2u);  // Game.Unused has no instances
  EXPECT_EQ(h.Name(r.top_types[0]), "Game.Holder");
  EXPECT_EQ(h.Name(r.top_types[1]), "Game.Blob");
  EXPECT_TRUE(r.top_sites.empty());  // only with by_site

  const HeapReport one = BuildHeapReport(h.a, {.top = 1});
  ASSERT_EQ(one.top_types.size(), 1u);
  EXPECT_EQ(h.Name(one.top_types[0]), "Game.Holder");
}

TEST(HeapReport, TopSitesByRetainedWithBySite) {
  const ReportHeap h;
  const HeapReport r = BuildHeapReport(h.a, {.by_site = true});
  ASSERT_EQ(r.top_sites.size(), 2u);
  EXPECT_EQ(r.top_sites[0].row.site, 0u);
  EXPECT_EQ(r.top_sites[0].retained, 1100u);
  EXPECT_EQ(r.top_sites[0].row.bytes, 1100u);
  EXPECT_EQ(r.top_sites[1].row.site, 1u);
  EXPECT_EQ(r.top_sites[1].retained, 20u);
  EXPECT_EQ(r.top_sites[1].row.count, 2u);
  EXPECT_EQ(BuildHeapReport(h.a, {.top = 1, .by_site = true}).top_sites.size(), 1u);
}

TEST(HeapReport, SuspectsAtTheShareAskedForAndEveryInspection) {
  const ReportHeap h;
  for (double share : {0.01, 0.5, 1.0}) {
    SuspectOptions so;
    so.min_share = share;
    EXPECT_EQ(BuildHeapReport(h.a, {.min_share = share}).suspects.size(),
              FindSuspects(h.a, so).size())
        << share;
  }
  EXPECT_EQ(BuildHeapReport(h.a).inspections.size(), RunInspections(h.a.index).size());
}

}  // namespace
}  // namespace xrpm::analysis
