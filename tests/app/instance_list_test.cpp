// The Instances view's data (app/instance_list.h): which instances it lists for a type, a site
// and a field filter, their order for each column, the field columns, and that it rebuilds and
// re-sorts only when what it shows changes.
#include <gtest/gtest.h>

#include <memory>

#include "fields_game.h"
#include "test_heaps.h"
#include "xrpm/app/instance_list.h"

namespace xrpm::app {
namespace {

using Objects = std::vector<uint32_t>;
Objects Listed(const InstanceListView& v) {
  return {v.objects().begin(), v.objects().end()};
}

// Game.Bubble twice in the type table (its instances are one list), allocated at two sites:
//   0: 0x10 Game.Bubble  40 B -> 0x40, 0x50   site 0 (Spawn)
//   1: 0x20 Game.Bubble  80 B                 site 1 (Load)
//   2: 0x30 Game.Bubble' 60 B -> 0x40         site 0
//   3: 0x40 String 10 B (held by 0 and 2), 4: 0x50 String 20 B (held by 0 only)
// Retained: 0: 60, 1: 80, 2: 60.
Snapshot Bubbles() {
  Snapshot s;
  s.AddSection({.version = 2, .name = "game.exe"});
  const uint32_t bub = s.AddType(2, "Game.Bubble", 0);
  const uint32_t bub2 = s.AddType(3, "Game.Bubble", 0);
  const uint32_t str = s.AddType(4, "System.String", 0);
  AllocationOrigins o;
  o.capture_frame = 100;
  o.methods = {"Game.Spawn", "Game.Load"};
  o.sites = {{{0}}, {{1}}};
  s.origins = o;
  const ObjectId r0[] = {0x40, 0x50};
  const ObjectId r2[] = {0x40};
  s.AddObject(0x10, bub, 40, r0);
  s.AddObjectOrigin(10, 0);
  s.AddObject(0x20, bub, 80, {});
  s.AddObjectOrigin(20, 1);
  s.AddObject(0x30, bub2, 60, r2);
  s.AddObjectOrigin(30, 0);
  s.AddObject(0x40, str, 10, {});
  s.AddObjectOrigin(10, 1);
  s.AddObject(0x50, str, 20, {});
  s.AddObjectOrigin(10, 1);
  for (ObjectId id : {0x10, 0x20, 0x30}) s.AddRoot(id, RootKind::kStatic, 0, 3);
  s.CloseSectionRanges();
  return s;
}

std::shared_ptr<DocAnalysis> Analyse(const Snapshot& s) {
  auto a = std::make_shared<DocAnalysis>();
  a->heap = analysis::HeapAnalysis::Run(s);
  return a;
}

InstanceSort By(InstanceColumn c, bool descending = true, std::string field = {}) {
  return {c, std::move(field), descending};
}

TEST(InstanceListView, ListsEveryInstanceOfTheTypeNameBeforeTheAnalysis) {
  const Snapshot s = Bubbles();
  InstanceListView v;
  EXPECT_TRUE(v.Update(s, nullptr, {.doc = 1, .type = 0}));
  EXPECT_EQ(Listed(v), (Objects{0, 1, 2}));
  EXPECT_TRUE(v.sites().empty());        // sites need the analysis
  EXPECT_TRUE(v.field_names().empty());  // and so do fields
  EXPECT_TRUE(v.filter_error().empty());
}

TEST(InstanceListView, SortsBySizeRefsAndRetainedBothWays) {
  const Snapshot s = Bubbles();
  InstanceListView v;
  v.Update(s, nullptr, {.doc = 1, .type = 0});
  v.Sort(s, nullptr, By(InstanceColumn::kSize));
  EXPECT_EQ(Listed(v), (Objects{1, 2, 0}));
  v.Sort(s, nullptr, By(InstanceColumn::kSize, false));
  EXPECT_EQ(Listed(v), (Objects{0, 2, 1}));
  v.Sort(s, nullptr, By(InstanceColumn::kRefs));
  EXPECT_EQ(Listed(v), (Objects{0, 2, 1}));
  v.Sort(s, nullptr, By(InstanceColumn::kRefs, false));
  EXPECT_EQ(Listed(v), (Objects{1, 2, 0}));
  v.Sort(s, nullptr, By(InstanceColumn::kRetained));  // no analysis yet: by size
  EXPECT_EQ(Listed(v), (Objects{1, 2, 0}));

  const auto a = Analyse(s);
  v.Update(s, a.get(), {.doc = 1, .type = 0});
  v.Sort(s, a.get(), By(InstanceColumn::kRetained));
  EXPECT_EQ(Listed(v), (Objects{1, 0, 2}));  // 80, then the two 60s in snapshot order
  v.Sort(s, a.get(), By(InstanceColumn::kRetained, false));
  EXPECT_EQ(Listed(v), (Objects{0, 2, 1}));
}

TEST(InstanceListView, NarrowsToASiteAndListsTheTypesSites) {
  const Snapshot s = Bubbles();
  const auto a = Analyse(s);
  InstanceListView v;
  v.Update(s, a.get(), {.doc = 1, .type = 1});  // the namesake's index: the same list
  ASSERT_EQ(v.sites().size(), 2u);
  EXPECT_EQ(v.sites()[0].site, 0u);  // 100 bytes at Spawn
  EXPECT_EQ(v.sites()[0].count, 2u);
  EXPECT_EQ(v.sites()[1].site, 1u);
  EXPECT_EQ(Listed(v), (Objects{0, 1, 2}));
  v.Update(s, a.get(), {.doc = 1, .type = 1, .site = 0});
  EXPECT_EQ(Listed(v), (Objects{0, 2}));
  EXPECT_EQ(v.sites().size(), 2u);  // still every site of the type
  v.Update(s, a.get(), {.doc = 1, .type = 1, .site = 1});
  EXPECT_EQ(Listed(v), (Objects{1}));
}

TEST(InstanceListView, RebuildsAndResortsOnlyWhenWhatItShowsChanges) {
  const Snapshot s = Bubbles();
  const auto a = Analyse(s);
  InstanceListView v;
  EXPECT_TRUE(v.Update(s, nullptr, {.doc = 1, .type = 0}));
  EXPECT_TRUE(v.Sort(s, nullptr, By(InstanceColumn::kSize)));
  EXPECT_FALSE(v.Update(s, nullptr, {.doc = 1, .type = 0}));
  EXPECT_FALSE(v.Sort(s, nullptr, By(InstanceColumn::kSize)));
  EXPECT_EQ(v.rebuilds(), 1u);
  EXPECT_EQ(v.sorts(), 1u);

  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 1, .type = 0}));    // the analysis arrived
  EXPECT_TRUE(v.Sort(s, a.get(), By(InstanceColumn::kSize)));  // a new list is sorted again
  EXPECT_EQ(v.sites().size(), 2u);
  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 1, .type = 0, .site = 0}));
  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 1, .type = 0, .site = 0, .filter = "x=1"}));
  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 2, .type = 0, .site = 0, .filter = "x=1"}));
  EXPECT_EQ(v.doc(), 2u);
  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 2, .type = 2, .site = 0, .filter = "x=1"}));
  EXPECT_EQ(v.rebuilds(), 6u);
  EXPECT_TRUE(v.Update(s, a.get(), {.doc = 2, .type = 2}));
  EXPECT_EQ(Listed(v), (Objects{3, 4}));  // the strings
}

// The order the Instances view opens with, largest retained first, is the analysis' own
// (DocAnalysis::by_retained) for every instance of a type, and the order a sort gives.
TEST(InstanceListView, LargestRetainedFirstIsTheAnalysisOrderForAWholeType) {
  const Snapshot s = testing::MakeHeap({.seed = 5, .objects = 4000, .types = 6});
  const auto sorted = Analyse(s);
  const auto ordered = Analyse(s);
  ordered->by_retained = analysis::RetainedOrder::Build(ordered->heap.index, ordered->heap.dom, 3);
  for (uint32_t t = 0; t < s.type_count(); ++t) {
    InstanceListView v, w;
    v.Update(s, sorted.get(), {.doc = 1, .type = t});
    w.Update(s, ordered.get(), {.doc = 1, .type = t});
    EXPECT_EQ(w.widest_id_label(), v.widest_id_label());
    EXPECT_TRUE(v.Sort(s, sorted.get(), By(InstanceColumn::kRetained)));
    EXPECT_FALSE(w.Sort(s, ordered.get(), By(InstanceColumn::kRetained)));  // listed so
    EXPECT_EQ(Listed(w), Listed(v)) << t;
    EXPECT_TRUE(w.Sort(s, ordered.get(), By(InstanceColumn::kRetained, false)));  // sorted
    EXPECT_TRUE(v.Sort(s, sorted.get(), By(InstanceColumn::kRetained, false)));
    EXPECT_EQ(Listed(w), Listed(v)) << t;
    EXPECT_TRUE(w.Sort(s, ordered.get(), By(InstanceColumn::kRetained)));  // copied back
    EXPECT_TRUE(v.Sort(s, sorted.get(), By(InstanceColumn::kRetained)));
    EXPECT_EQ(Listed(w), Listed(v)) << t;
    // A field filter lists in node order, sorted as before.
    w.Update(s, ordered.get(), {.doc = 1, .type = t, .filter = "no_such_field=1"});
    EXPECT_FALSE(w.filter_error().empty());
  }
}

TEST(InstanceListView, WidestIdLabelFollowsTheList) {
  const Snapshot s = Bubbles();
  InstanceListView v;
  v.Update(s, nullptr, {.doc = 1, .type = 0});
  EXPECT_EQ(v.widest_id_label(), "0x30");
  v.Update(s, nullptr, {.doc = 1, .type = 0, .site = 1});
  EXPECT_EQ(v.widest_id_label(), "0x20");
}

// The synthetic game heap with field values (tests/support/fields_game.h): Bubbles.Bubble
// 0x1300 (alive, x 1.5), 0x1340 (dead, x -1), 0x1380 (alive, x 0) are objects 3, 4 and 5.
struct FieldsHeap {
  Snapshot snap = testing::MakeFieldsGame();
  std::shared_ptr<DocAnalysis> a = Analyse(snap);
  uint32_t bubble = 0;
  FieldsHeap() {
    for (uint32_t t = 0; t < snap.type_count(); ++t)
      if (snap.types[t].name == "Bubbles.Bubble") bubble = t;
  }
  InstanceQuery Query(std::string filter = {}) const {
    return {.doc = 1, .type = bubble, .filter = std::move(filter)};
  }
};

TEST(InstanceListView, FiltersByAFieldAndSaysWhyAFilterFails) {
  FieldsHeap h;
  InstanceListView v;
  v.Update(h.snap, h.a.get(), h.Query("IsAlive=true"));
  EXPECT_EQ(Listed(v), (Objects{3, 5}));
  EXPECT_TRUE(v.filter_error().empty());
  v.Update(h.snap, h.a.get(), h.Query("state=Popped"));
  EXPECT_EQ(Listed(v), (Objects{4}));

  v.Update(h.snap, h.a.get(), h.Query("IsAlive"));  // no '=': every instance, and why
  EXPECT_EQ(Listed(v), (Objects{3, 4, 5}));
  EXPECT_EQ(v.filter_error(), "expected FIELD=VALUE, found 'IsAlive'");
  v.Update(h.snap, h.a.get(), h.Query("nope=1"));  // no such field
  EXPECT_EQ(Listed(v), (Objects{3, 4, 5}));
  EXPECT_NE(v.filter_error().find("nope"), std::string::npos) << v.filter_error();
  v.Update(h.snap, h.a.get(), h.Query());
  EXPECT_TRUE(v.filter_error().empty());
}

TEST(InstanceListView, SortsByAFieldColumn) {
  FieldsHeap h;
  InstanceListView v;
  v.Update(h.snap, h.a.get(), h.Query());
  v.Sort(h.snap, h.a.get(), By(InstanceColumn::kField, false, "position.X"));
  EXPECT_EQ(Listed(v), (Objects{4, 5, 3}));
  v.Sort(h.snap, h.a.get(), By(InstanceColumn::kField, true, "position.X"));
  EXPECT_EQ(Listed(v), (Objects{3, 5, 4}));
  v.Sort(h.snap, h.a.get(), By(InstanceColumn::kField, true, "id"));
  EXPECT_EQ(Listed(v), (Objects{4, 3, 5}));  // 41, 40, -42
}

TEST(InstanceListView, FieldColumnsStartWithTheFirstFieldsAndFollowTheChooser) {
  FieldsHeap h;
  InstanceListView v;
  v.Update(h.snap, h.a.get(), h.Query());
  ASSERT_EQ(v.field_names().size(), 15u);
  EXPECT_EQ(v.field_columns(),
            (std::vector<std::string>{"name", "IsAlive", "initial", "position.X"}));
  v.ShowFieldColumn("id", true);
  v.ShowFieldColumn("id", true);  // once only
  v.ShowFieldColumn("initial", false);
  EXPECT_EQ(v.field_columns(), (std::vector<std::string>{"name", "IsAlive", "position.X", "id"}));
  // Another filter, or the same type in a new analysis, keeps the chosen columns ...
  v.Update(h.snap, h.a.get(), h.Query("IsAlive=true"));
  const auto again = Analyse(h.snap);
  v.Update(h.snap, again.get(), h.Query());
  EXPECT_EQ(v.field_columns(), (std::vector<std::string>{"name", "IsAlive", "position.X", "id"}));
  // ... another type starts again from its own first fields.
  uint32_t list_type = 0;
  for (uint32_t t = 0; t < h.snap.type_count(); ++t)
    if (h.snap.types[t].name.starts_with("System.Collections.Generic.List")) list_type = t;
  v.Update(h.snap, again.get(), {.doc = 1, .type = list_type});
  EXPECT_EQ(v.field_columns(), (std::vector<std::string>{"_items", "_size"}));
}

}  // namespace
}  // namespace xrpm::app
