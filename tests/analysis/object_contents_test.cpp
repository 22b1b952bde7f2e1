// One object's contents and a type's instances filtered by field (analysis/object_contents.h)
// on the synthetic game heap of tests/core/fields_game.h.
#include <gtest/gtest.h>

#include "fields_game.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/object_contents.h"

namespace xrpm::analysis {
namespace {

struct ContentsHeap {
  Snapshot snap = testing::MakeFieldsGame();
  GraphIndex g = GraphIndex::Build(snap);
};

std::vector<ObjectId> Ids(const ContentsHeap& h, const InstanceList& l) {
  std::vector<ObjectId> ids;
  for (uint32_t v : l.rows) ids.push_back(h.snap.object_id[v]);
  return ids;
}

TEST(ObjectContents, DescribesFieldsTargetsTextAndReferrers) {
  ContentsHeap h;
  const ObjectContents c = DescribeContents(h.g, h.g.Find(0x1340));
  EXPECT_TRUE(c.has_layout);
  ASSERT_EQ(c.fields.size(), 15u);
  EXPECT_EQ(c.fields[0].name, "name");
  EXPECT_EQ(c.fields[0].ref_node, h.g.Find(0x1540));
  ASSERT_TRUE(c.fields[0].text);
  EXPECT_EQ(c.fields[0].text->text, "Bubble 1");
  EXPECT_EQ(FormatValue(c.fields[1].value), "false");
  ASSERT_EQ(c.referrers.size(), 1u);
  EXPECT_EQ(c.referrers[0].node, h.g.Find(0x1600));
  EXPECT_EQ(c.referrers[0].field, "_target");
  EXPECT_FALSE(c.text);
  EXPECT_FALSE(c.length);

  const ObjectContents arr = DescribeContents(h.g, h.g.Find(0x1200));
  EXPECT_EQ(arr.length, 4u);
  EXPECT_EQ(arr.referrers[0].field, "_items");
  const ObjectContents str = DescribeContents(h.g, h.g.Find(0x1580));
  ASSERT_TRUE(str.text);
  EXPECT_TRUE(str.text->cut);
  const ObjectContents events = DescribeContents(h.g, h.g.Find(0x1600));
  EXPECT_EQ(events.fields[1].name, "_methodPtr");
}

TEST(ObjectContents, InstancesFilterByEveryKindOfValue) {
  ContentsHeap h;
  const uint32_t bubble = h.g.FindGroup("Bubbles.Bubble");
  auto ids = [&](std::vector<FieldFilter> where, size_t max_rows = 100) {
    return Ids(h, ListInstances(h.g, bubble, where, max_rows));
  };
  using V = std::vector<ObjectId>;
  EXPECT_EQ(ids({{"IsAlive", "false"}}), V{0x1340});
  EXPECT_EQ(ids({{"IsAlive", "true"}}), (V{0x1300, 0x1380}));
  EXPECT_EQ(ids({{"state", "Popped"}}), V{0x1340});
  EXPECT_EQ(ids({{"state", "1"}}), V{0x1340});  // an enum by number too
  EXPECT_EQ(ids({{"state", "7"}}), V{0x1380});
  EXPECT_EQ(ids({{"name", "Bubble 0"}}), V{0x1300});
  EXPECT_EQ(ids({{"name", "\"Bubble 0\""}}), V{0x1300});
  EXPECT_EQ(ids({{"name", "1540"}}), V{0x1340});  // a reference by id
  EXPECT_EQ(ids({{"position.X", "1.50"}}), V{0x1300});
  EXPECT_EQ(ids({{"initial", "A"}}), V{0x1300});
  EXPECT_EQ(ids({{"id", "-42"}}), V{0x1380});
  EXPECT_EQ(ids({{"IsAlive", "true"}, {"id", "40"}}), V{0x1300});
  EXPECT_EQ(ids({{"IsAlive", "maybe"}}), V{});
  const InstanceList capped = ListInstances(h.g, bubble, {}, 1);
  EXPECT_EQ(capped.count, 3u);
  EXPECT_EQ(capped.rows.size(), 1u);
  EXPECT_THROW(ListInstances(h.g, bubble, std::vector<FieldFilter>{{"nope", "1"}}, 10),
               std::invalid_argument);
}

TEST(ObjectContents, FilterParsingAndFieldNames) {
  EXPECT_FALSE(ParseFieldFilter("IsAlive"));
  EXPECT_FALSE(ParseFieldFilter("=1"));
  const auto f = ParseFieldFilter("name=a=b");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->field, "name");
  EXPECT_EQ(f->value, "a=b");
  ContentsHeap h;
  const std::vector<std::string> names = GroupFieldNames(h.g, h.g.FindGroup("Bubbles.Game1"));
  EXPECT_EQ(names, (std::vector<std::string>{"bubbles", "score", "paused"}));
}

TEST(ObjectContents, WithoutContentsNothingIsMadeUp) {
  ContentsHeap h;
  h.snap.fields.Clear();
  const ObjectContents c = DescribeContents(h.g, h.g.Find(0x1340));
  EXPECT_FALSE(c.has_layout);
  EXPECT_TRUE(c.fields.empty());
  EXPECT_EQ(c.referrers[0].field, "");
  EXPECT_THROW(ListInstances(h.g, h.g.FindGroup("Bubbles.Bubble"),
                             std::vector<FieldFilter>{{"IsAlive", "false"}}, 10),
               std::invalid_argument);
}

}  // namespace
}  // namespace xrpm::analysis
