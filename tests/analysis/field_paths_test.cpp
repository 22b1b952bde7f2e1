// Paths to roots with the field of every step: single paths, the forest's parent
// slots, merged paths keyed by field and root label, and the same heap without contents.
#include <gtest/gtest.h>

#include <set>

#include "fields_game.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/paths.h"

namespace xrpm::analysis {
namespace {

constexpr const char* kList = "System.Collections.Generic.List<Bubbles.Bubble>";

struct PathsHeap {
  Snapshot snap;
  GraphIndex g;
  explicit PathsHeap(Snapshot s) : snap(std::move(s)), g(GraphIndex::Build(snap)) {}
};

TEST(FieldPaths, AShortestPathNamesTheFieldOfEveryStepAndTheRoot) {
  PathsHeap h(testing::MakeFieldsGame());
  PathFinder finder(h.g);
  const RootPath popped = finder.ShortestPathToRoot(h.g.Find(0x1340));
  ASSERT_TRUE(popped.found());
  EXPECT_EQ(RootPathText(h.g, popped, " -> "),
            "static Bubbles.GameEvents.Popped -> System.EventHandler._target -> Bubbles.Bubble");
  const RootPath name = finder.ShortestPathToRoot(h.g.Find(0x1580));
  EXPECT_EQ(RootPathText(h.g, name, " -> "),
            std::string("local in Bubbles.Game1.Update, thread 1 -> Bubbles.Game1.bubbles -> ") +
                kList + "._items -> Bubbles.Bubble[] [2] -> Bubbles.Bubble.name -> System.String");
  EXPECT_EQ(HoldingField(h.g, h.g.Find(0x1200), h.g.Find(0x1380)), "[2]");
  EXPECT_EQ(RootLabel(DescribeRoot(h.g, 1)), "static Bubbles.GameEvents.Popped");
}

TEST(FieldPaths, TheForestKnowsEachParentSlot) {
  PathsHeap h(testing::MakeFieldsGame());
  const RootPathForest f = RootPathForest::Build(h.g);
  EXPECT_EQ(f.parent_slot(h.g.Find(0x1380)), 2u);       // element 2
  EXPECT_EQ(f.parent_slot(h.g.Find(0x1100)), 0u);       // Game1.bubbles
  EXPECT_EQ(f.parent_slot(h.g.Find(0x1000)), kNoSlot);  // a root
  // The forest's path and the finder's agree, fields included.
  PathFinder finder(h.g);
  const uint32_t v = h.g.Find(0x1580);
  EXPECT_EQ(RootPathText(h.g, f.PathTo(v), " -> "),
            RootPathText(h.g, finder.ShortestPathToRoot(v), " -> "));
}

TEST(FieldPaths, MergedPathsAreKeyedByFieldAndRootLabel) {
  PathsHeap h(testing::MakeFieldsGame());
  const RootPathForest f = RootPathForest::Build(h.g);
  const MergedPaths m = MergeShortestPaths(h.g, f, nullptr, h.g.FindGroup("Bubbles.Bubble"));
  ASSERT_EQ(m.paths.size(), 2u);
  EXPECT_EQ(m.paths[0].count, 2u);
  EXPECT_EQ(MergedPathLabel(h.g, m.paths[0], " -> "),
            std::string("local in Bubbles.Game1.Update, thread 1 -> Bubbles.Game1.bubbles -> ") +
                kList + "._items -> Bubbles.Bubble[] [] -> Bubbles.Bubble");
  EXPECT_EQ(m.paths[0].steps.back().field, "[]");
  EXPECT_EQ(m.paths[1].root_label, "Bubbles.GameEvents.Popped");
  EXPECT_EQ(MergedPathLabel(h.g, m.paths[1], " -> "),
            "static Bubbles.GameEvents.Popped -> System.EventHandler._target -> Bubbles.Bubble");
}

TEST(FieldPaths, TwoFieldsOfOneTypeAreTwoMergedPaths) {
  testing::FieldsHeapBuilder b;
  const uint32_t holder = b.Type(1, "Holder", TypeShape::kClass,
                                 {testing::Field("first", "Item", 8, FieldKind::kReference),
                                  testing::Field("second", "Item", 12, FieldKind::kReference)});
  const uint32_t item = b.Type(2, "Item", TypeShape::kClass);
  b.Object(0x100, holder, 16, {{0x200, 0}, {0x300, 1}}, {});
  b.Object(0x200, item, 8, {}, {});
  b.Object(0x300, item, 8, {}, {});
  b.Root(0x100, RootKind::kLocal, 0, "");
  PathsHeap h(b.Take());
  const RootPathForest f = RootPathForest::Build(h.g);
  const MergedPaths m = MergeShortestPaths(h.g, f, nullptr, h.g.FindGroup("Item"));
  ASSERT_EQ(m.paths.size(), 2u);
  std::set<std::string> labels;
  for (const MergedPath& p : m.paths) labels.insert(MergedPathLabel(h.g, p, " -> "));
  EXPECT_EQ(labels, (std::set<std::string>{"local -> Holder.first -> Item",
                                           "local -> Holder.second -> Item"}));
}

TEST(FieldPaths, DanglingReferencesDoNotShiftTheSlots) {
  testing::FieldsHeapBuilder b;
  const uint32_t holder = b.Type(1, "Holder", TypeShape::kClass,
                                 {testing::Field("gone", "Item", 8, FieldKind::kReference),
                                  testing::Field("kept", "Item", 12, FieldKind::kReference)});
  const uint32_t item = b.Type(2, "Item", TypeShape::kClass);
  b.Object(0x100, holder, 16, {{0xdead, 0}, {0x200, 1}}, {});
  b.Object(0x200, item, 8, {}, {});
  b.Root(0x100, RootKind::kLocal, 0, "");
  PathsHeap h(b.Take());
  const RootPathForest f = RootPathForest::Build(h.g);
  EXPECT_EQ(f.parent_slot(h.g.Find(0x200)), 1u);
  EXPECT_EQ(RootPathText(h.g, f.PathTo(h.g.Find(0x200)), " -> "), "local -> Holder.kept -> Item");
}

TEST(FieldPaths, WithoutContentsPathsReadAsBefore) {
  Snapshot s = testing::MakeFieldsGame();
  s.fields.Clear();
  PathsHeap h(std::move(s));
  const RootPathForest f = RootPathForest::Build(h.g);
  EXPECT_EQ(f.parent_slot(h.g.Find(0x1380)), kNoSlot);
  const MergedPaths m = MergeShortestPaths(h.g, f, nullptr, h.g.FindGroup("Bubbles.Bubble"));
  ASSERT_EQ(m.paths.size(), 2u);
  EXPECT_EQ(MergedPathLabel(h.g, m.paths[1], " -> "),
            "static Bubbles.GameEvents -> System.EventHandler -> Bubbles.Bubble");
  EXPECT_EQ(RootPathText(h.g, f.PathTo(h.g.Find(0x1340)), " -> "),
            "static Bubbles.GameEvents -> System.EventHandler -> Bubbles.Bubble");
}

}  // namespace
}  // namespace xrpm::analysis
