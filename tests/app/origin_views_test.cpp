// The session side of the allocation-origin views: DocAnalysis carries the per-site rows and
// the age histogram, the Instances site narrowing and the Age bar choice the script drives,
// the state JSON the scripted GUI tests assert on, and the notes for snapshots without origins
// (never blank, never invented) or objects whose allocation was not sampled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "xrpm/app/app_session.h"
#include "xrpm/app/doc_origins.h"
#include "xrpm/app/dominator_browser.h"
#include "xrpm/app/script.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

// A game heap: a static list holding 40 handlers allocated at Bubble.OnSpawn between frames
// 100 and 139, 10 strings allocated at frame 5 by Game1.LoadContent, and one object of unknown
// origin (sample_bytes set when `sampled`). Capture at frame 200.
Snapshot LeakHeap(bool sampled = false) {
  Snapshot s;
  s.AddSection({.version = 2, .name = "leak.exe"});
  const uint32_t list = s.AddType(2, "System.Object[]", 0);
  const uint32_t handler = s.AddType(3, "Bubbles.Handler", 0);
  const uint32_t str = s.AddType(4, "System.String", 0);
  AllocationOrigins o;
  o.capture_frame = 200;
  o.sample_bytes = sampled ? 4096 : 0;
  o.methods = {"Bubbles.Bubble.OnSpawn", "Bubbles.BubbleField.Spawn", "Game1.Update",
               "Game1.LoadContent"};
  o.sites = {{{0, 1, 2}}, {{3}}, {{}}};
  s.origins = o;
  std::vector<ObjectId> refs;
  for (int i = 0; i < 40; ++i) refs.push_back(0x1000 + 0x10 * i);
  for (int i = 0; i < 10; ++i) refs.push_back(0x2000 + 0x10 * i);
  refs.push_back(0x3000);
  s.AddObject(0x100, list, 512, refs);
  s.AddObjectOrigin(0, 2);  // depth-0 site
  for (int i = 0; i < 40; ++i) {
    s.AddObject(0x1000 + 0x10 * i, handler, 32, {});
    s.AddObjectOrigin(100 + i, 0);
  }
  for (int i = 0; i < 10; ++i) {
    s.AddObject(0x2000 + 0x10 * i, str, 64, {});
    s.AddObjectOrigin(5, 1);
  }
  s.AddObject(0x3000, str, 1000, {});
  s.AddObjectOrigin(0, kUnknownSite);
  s.AddRoot(0x100, RootKind::kStatic, 0, 3);
  s.CloseSectionRanges();
  return s;
}

class OriginViews : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_origin_views_" + std::to_string(getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name();
  AppSession s{{dir, /*persist=*/false, {}}};

  SnapshotDoc& Add(Snapshot snap) {
    const uint32_t id =
        s.documents().AddSnapshot(std::move(snap), DocOrigin::kCaptured, "Capture 1");
    EXPECT_TRUE(s.WaitIdle(60s));
    SnapshotDoc* d = s.documents().doc(id);
    EXPECT_TRUE(d && d->analysis);
    return *d;
  }
};

TEST_F(OriginViews, AnalysisCarriesSitesTypeSitesAndAges) {
  SnapshotDoc& d = Add(LeakHeap());
  const DocOrigins& o = d.analysis->origins;
  ASSERT_TRUE(o.present);
  EXPECT_FALSE(o.sampled);
  EXPECT_EQ(o.known_objects, 51u);
  ASSERT_FALSE(o.sites.empty());
  // The handlers' 1280 bytes lead; the unknown object's 1000 bytes form their own row.
  EXPECT_EQ(o.sites.front().site, 0u);
  EXPECT_EQ(o.sites.front().count, 40u);
  EXPECT_EQ(analysis::SiteLabel(*d.snapshot, o.sites.front().site, 0),
            "Bubbles.Bubble.OnSpawn \xE2\x86\x90 Bubbles.BubbleField.Spawn \xE2\x86\x90 "
            "Game1.Update");
  EXPECT_EQ(o.ages.unknown_count, 1u);
  EXPECT_EQ(o.ages.unknown_bytes, 1000u);
  EXPECT_EQ(o.ages.capture_frame, 200u);
  ASSERT_FALSE(o.type_sites.empty());
  EXPECT_EQ(o.type_sites.front().type, "Bubbles.Handler");
}

TEST_F(OriginViews, SiteNarrowingAndAgeBarsFollowTheScriptSteps) {
  SnapshotDoc& d = Add(LeakHeap());
  ASSERT_TRUE(s.selection().SelectType("System.String"));
  EXPECT_FALSE(s.selection().SelectSite("Bubble.OnSpawn"));  // no string comes from there
  ASSERT_TRUE(s.selection().SelectSite("LoadContent"));
  EXPECT_EQ(d.selection.site, 1u);
  ASSERT_TRUE(s.selection().SelectSite("unknown"));
  EXPECT_EQ(d.selection.site, kUnknownSite);
  ASSERT_TRUE(s.selection().SelectSite("all"));
  EXPECT_FALSE(d.selection.site);
  ASSERT_TRUE(s.selection().SelectType("Bubbles.Handler"));
  ASSERT_TRUE(s.selection().SelectSite("Spawn"));
  EXPECT_EQ(d.selection.site, 0u);

  // The handlers are 61..100 frames old: log2 bins 32-63 and 64-127.
  ASSERT_TRUE(s.selection().SelectAgeBin("70"));
  const auto& bins = d.analysis->origins.ages.bins;
  const auto& b = bins[size_t(d.selection.age_bin)];
  EXPECT_EQ(b.first, 64u);
  EXPECT_EQ(b.last, 127u);
  AgeRangeContents c = ContentsOfAge(*d.snapshot, b.first, b.last);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].type, "Bubbles.Handler");
  EXPECT_EQ(c.count, 37u);  // ages 64..100
  ASSERT_TRUE(s.selection().SelectAgeBin("oldest"));
  EXPECT_EQ(bins[size_t(d.selection.age_bin)].last, 255u);  // the list and the strings: 195-200
  c = ContentsOfAge(*d.snapshot, 128, 255);
  EXPECT_EQ(c.count, 11u);
  EXPECT_FALSE(s.selection().SelectAgeBin("5"));  // empty bin

  const auto state = nlohmann::json::parse(s.StateJson());
  const auto& jo = state["docs"][0]["origins"];
  EXPECT_TRUE(jo["present"].get<bool>());
  EXPECT_EQ(jo["unknown_objects"], 1);
  EXPECT_EQ(jo["top_sites"][0]["count"], 40);
  EXPECT_EQ(jo["selected_age"][0], 128);
  EXPECT_NE(jo["selected_site"].get<std::string>().find("Bubble.OnSpawn"), std::string::npos);
}

TEST_F(OriginViews, SnapshotsWithoutOriginsSayWhyAndSelectNothing) {
  Snapshot plain = LeakHeap();
  plain.origins.reset();
  plain.object_alloc_frame.clear();
  plain.object_alloc_site.clear();
  SnapshotDoc& d = Add(std::move(plain));
  EXPECT_FALSE(d.analysis->origins.present);
  EXPECT_TRUE(d.analysis->origins.sites.empty());
  EXPECT_FALSE(s.selection().SelectSite("all"));
  EXPECT_FALSE(s.selection().SelectAgeBin("largest"));
  EXPECT_EQ(NoOriginsNote(*d.snapshot, "/tmp/game.gclog"),
            "This capture has no allocation sites and ages \xE2\x80\x94 .gclog files cannot hold "
            "them; capture from a device or open an .xrpm that has them.");
  EXPECT_NE(NoOriginsNote(*d.snapshot, "old.xrpm").find("saved without them"), std::string::npos);
  EXPECT_NE(NoOriginsNote(*d.snapshot, "").find("did not"), std::string::npos);
  const auto state = nlohmann::json::parse(s.StateJson());
  EXPECT_FALSE(state["docs"][0]["origins"]["present"].get<bool>());
  EXPECT_NE(state["docs"][0]["origins"]["note"].get<std::string>().find("no allocation sites"),
            std::string::npos);
}

TEST_F(OriginViews, UnsampledObjectsAreUnknownNotGuessed) {
  SnapshotDoc& d = Add(LeakHeap(/*sampled=*/true));
  EXPECT_TRUE(d.analysis->origins.sampled);
  const Snapshot& snap = *d.snapshot;
  const uint32_t unknown = uint32_t(snap.object_count() - 1);
  EXPECT_NE(UnknownOriginNote(snap, unknown).find("not sampled"), std::string::npos);
  EXPECT_EQ(AgeText(snap, unknown), UnknownOriginNote(snap, unknown));
  EXPECT_EQ(AgeText(snap, 1), "age 100 frames (allocated in frame 100; captured at frame 200)");
  EXPECT_EQ(UnknownOriginNote(snap, 1), "");
  EXPECT_EQ(SiteOfObject(snap, unknown), kUnknownSite);
  EXPECT_EQ(analysis::SiteLabel(snap, SiteOfObject(snap, 0)), "(no managed frame)");
}

TEST_F(OriginViews, DominatorTreeGroupsChildrenBySite) {
  SnapshotDoc& d = Add(LeakHeap());
  DominatorBrowser b;
  b.SetGroupBySite(true);
  b.Reset(d.analysis);
  // Top level: the static list (site "no managed frame") alone, its group open, the list open
  // (the largest retainer) and its largest site open: the handlers' (1280 B, a page of 40
  // members), then the unknown object's (1000 B) and the strings' (640 B).
  const auto open = b.Rows();
  ASSERT_EQ(open.size(), 2u + 1u + 40u + 2u);
  EXPECT_TRUE(open[0].group);
  EXPECT_EQ(open[0].site, 2u);
  EXPECT_EQ(open[1].node, 0u);
  EXPECT_TRUE(open[2].group);
  EXPECT_EQ(open[2].site, 0u);
  EXPECT_EQ(open[2].hidden, 40u);
  EXPECT_EQ(open[2].hidden_bytes, 40u * 32);
  EXPECT_TRUE(open[3].in_group);
  EXPECT_EQ(d.snapshot->type_name_of(open[3].node), "Bubbles.Handler");
  EXPECT_EQ(open[43].site, kUnknownSite);  // the 1000 B string
  EXPECT_EQ(open[44].site, 1u);            // ten 64 B strings
  // Close the handlers' site: the three site rows of the list remain.
  b.ToggleGroup(0, 0);
  const auto rows = b.Rows();
  ASSERT_EQ(rows.size(), 2u + 3u);
  EXPECT_FALSE(rows[3].in_group);
  // Reveal of a string of the third group opens that group.
  const int64_t at = b.Reveal(uint32_t(d.snapshot->object_count() - 2));
  ASSERT_GE(at, 0);
  EXPECT_TRUE(b.GroupExpanded(0, 1));
  b.SetGroupBySite(false);
  EXPECT_FALSE(b.Rows()[0].group);
}

TEST_F(OriginViews, LeakFilterOfThreeCapturesOnTheWorkerOrWhyNot) {
  auto at = [](uint64_t frame) {
    Snapshot snap = LeakHeap();
    snap.origins->capture_frame = frame;
    return snap;
  };
  const uint32_t a = s.documents().AddSnapshot(at(100), DocOrigin::kCaptured, "A");
  const uint32_t b = s.documents().AddSnapshot(at(150), DocOrigin::kCaptured, "B");
  const uint32_t c = s.documents().AddSnapshot(at(200), DocOrigin::kCaptured, "C");
  ASSERT_TRUE(s.WaitIdle(60s));
  s.comparisons().FindLeaks(a, b, c);
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_TRUE(s.comparisons().leaks());
  ASSERT_EQ(s.comparisons().leaks()->error, "");
  const auto& groups = s.comparisons().leaks()->report.groups;
  ASSERT_EQ(groups.size(), 1u);  // the handlers of frames 100..139; not the strings of frame 5
  EXPECT_EQ(groups[0].type, "Bubbles.Handler");
  EXPECT_EQ(groups[0].count, 40u);
  const auto by_site = LeakRollup(s.comparisons().leaks()->report, SiteGrouping::kSite);
  ASSERT_EQ(by_site.size(), 1u);
  EXPECT_EQ(by_site[0].site, 0u);
  EXPECT_EQ(by_site[0].bytes, 40u * 32);
  const auto state = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(state["leaks"]["groups"][0]["site"][0], "Bubbles.Bubble.OnSpawn");
  EXPECT_NE(state["leaks"]["groups"][0]["path"].get<std::string>().find("System.Object[]"),
            std::string::npos);

  s.comparisons().FindLeaks(c, b, a);  // out of order: said at once, nothing run
  ASSERT_TRUE(s.comparisons().leaks());
  EXPECT_NE(s.comparisons().leaks()->error, "");
  EXPECT_TRUE(s.comparisons().leaks()->report.groups.empty());
}

TEST(OriginScript, NewVerbsParseAndRejectBadArguments) {
  auto steps = ParseScript(
      "group-by type-site\nselect-site Bubble.OnSpawn\nselect-age largest\nselect-age 64\n"
      "view age\nleaks 1 2 3\n",
      "t.script");
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[5].args, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(steps[0].args[0], "type-site");
  EXPECT_EQ(steps[1].args[0], "Bubble.OnSpawn");
  for (const char* bad : {"group-by method\n", "select-age newest\n", "select-site\n",
                          "leaks 1 2\n", "leaks 1 2 x\n"})
    EXPECT_THROW(ParseScript(bad, "t.script"), InputError) << bad;
}

}  // namespace
}  // namespace xrpm::app
