// Snapshot diff by type name, and leak suspects (big objects, big types, growing types).
#include <gtest/gtest.h>

#include "game_heap.h"
#include "heap_builder.h"
#include "xrpm/analysis/diff.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/suspects.h"

namespace xrpm::analysis {
namespace {

using testing::GameSnapshot;
using testing::HeapBuilder;

std::string a_name(const HeapAnalysis& a, const Suspect& s) {
  return a.index.group_name(s.group);
}

const TypeSeries* SuspectRow(const HeapDiff& d, const std::string& name) {
  for (const auto& r : d.rows)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(Diff, ComparesByTypeNameAcrossUnstableIds) {
  Snapshot a = GameSnapshot(10, 3, 0, 0x10000000), b = GameSnapshot(25, 0, 4, 0x20000000);
  HeapAnalysis aa = HeapAnalysis::Run(a), ab = HeapAnalysis::Run(b);
  std::vector<HeapSummary> sums{Summarize(aa), Summarize(ab)};
  HeapDiff d = DiffSummaries(sums);
  ASSERT_EQ(d.sources, (std::vector<std::string>{"dump1.gclog", "dump2.gclog"}));
  EXPECT_TRUE(d.warnings.empty());
  ASSERT_FALSE(d.rows.empty());
  // Sorted by retained growth: Enemy[] holds every enemy and its sprite.
  EXPECT_EQ(d.rows[0].name, "Enemy[]");
  const TypeSeries* enemy = SuspectRow(d, "Enemy");
  ASSERT_TRUE(enemy);
  EXPECT_EQ(enemy->at[0].count, 10u);
  EXPECT_EQ(enemy->at[1].count, 25u);
  EXPECT_EQ(enemy->count_delta, 15);
  EXPECT_EQ(enemy->shallow_delta, 15 * 32);
  EXPECT_EQ(enemy->retained_delta, 15 * 100);
  EXPECT_TRUE(enemy->grows_steadily);
  EXPECT_FALSE(enemy->is_new);
  const TypeSeries* bullet = SuspectRow(d, "Bullet");
  ASSERT_TRUE(bullet);
  EXPECT_TRUE(bullet->is_new);
  EXPECT_FALSE(bullet->present[0]);
  const TypeSeries* expl = SuspectRow(d, "Explosion");
  ASSERT_TRUE(expl);
  EXPECT_TRUE(expl->vanished);
  EXPECT_EQ(expl->count_delta, -3);
  EXPECT_EQ(d.rows.back().name, "Explosion");  // shrank the most
  const TypeSeries* game = SuspectRow(d, "Game");
  ASSERT_TRUE(game);
  EXPECT_EQ(game->count_delta, 0);
  EXPECT_FALSE(game->grows_steadily);
}

TEST(Diff, SteadyGrowthNeedsEverySnapshot) {
  std::vector<HeapSummary> sums;
  int counts[] = {10, 30, 20};
  for (int i = 0; i < 3; ++i) {
    Snapshot s = GameSnapshot(counts[i], 0, 0, ObjectId(i + 1) << 28);
    sums.push_back(Summarize(HeapAnalysis::Run(s)));
  }
  HeapDiff d = DiffSummaries(sums);
  const TypeSeries* enemy = SuspectRow(d, "Enemy");
  ASSERT_TRUE(enemy);
  EXPECT_EQ(enemy->count_delta, 10);
  EXPECT_FALSE(enemy->grows_steadily);
  sums[2].apps = {"other.exe"};
  EXPECT_EQ(DiffSummaries(sums).warnings.size(), 1u);
}

TEST(Suspects, FindsTheAccumulationPointOfABigObject) {
  Snapshot s = GameSnapshot(1000, 5, 0, 0x10000000);
  HeapAnalysis a = HeapAnalysis::Run(s);
  std::vector<Suspect> sus = FindSuspects(a);
  ASSERT_FALSE(sus.empty());
  const Suspect& top = sus[0];
  EXPECT_EQ(top.kind, Suspect::Kind::kObject);
  EXPECT_EQ(top.node, a.index.Find(0x10000300));  // Enemy[]: the memory spreads out there
  EXPECT_EQ(a.index.group_name(top.top_child_group), "Enemy");
  EXPECT_EQ(top.top_child_count, 1000u);
  EXPECT_EQ(top.count, 2001u);
  EXPECT_GT(top.share, 0.9);
  ASSERT_TRUE(top.path.found());
  EXPECT_EQ(top.path.nodes.size(), 3u);  // Enemy[] <- List <- Game
  EXPECT_NE(top.reason.find("Enemy[]"), std::string::npos);
  // Enemy and Sprite retain most of the heap too, but all inside the Enemy[]: no type suspects.
  for (const Suspect& x : sus) EXPECT_EQ(x.kind, Suspect::Kind::kObject);
}

TEST(Suspects, FindsTypesOfManySmallObjects) {
  Snapshot s = GameSnapshot(10, 0, 2000, 0x10000000);  // 2000 separately rooted bullets
  HeapAnalysis a = HeapAnalysis::Run(s);
  std::vector<Suspect> sus = FindSuspects(a);
  const Suspect* bullets = nullptr;
  for (const Suspect& x : sus)
    if (x.kind == Suspect::Kind::kType && a.index.group_name(x.group) == "Bullet") bullets = &x;
  ASSERT_TRUE(bullets);
  EXPECT_EQ(bullets->count, 2000u);
  EXPECT_EQ(bullets->retained_bytes, 2000u * 24);
  ASSERT_EQ(bullets->holders.paths.size(), 1u);
  EXPECT_EQ(bullets->holders.paths[0].root_kind, RootKind::kFinalizer);
  for (const Suspect& x : sus) EXPECT_NE(a.index.group_name(x.group), "Game");  // too small
}

TEST(Suspects, GrowingTypesComeWithTheirHolders) {
  std::vector<Snapshot> snaps;
  std::vector<HeapSummary> sums;
  for (int i = 0; i < 3; ++i) {
    snaps.push_back(GameSnapshot(100 + 50 * i, 20 - 5 * i, 10, ObjectId(i + 1) << 28));
    sums.push_back(Summarize(HeapAnalysis::Run(snaps.back())));
  }
  HeapAnalysis last = HeapAnalysis::Run(snaps.back());
  std::vector<Suspect> sus = FindGrowthSuspects(DiffSummaries(sums), last);
  ASSERT_GE(sus.size(), 2u);
  // Ranked by retained growth; the one Enemy[] grows in bytes, not in count: not a suspect.
  EXPECT_EQ(a_name(last, sus[0]), "Enemy");
  EXPECT_EQ(a_name(last, sus[1]), "Sprite");
  const Suspect* enemy = &sus[0];
  EXPECT_EQ(enemy->count_growth, 100);
  EXPECT_EQ(enemy->count, 200u);
  ASSERT_FALSE(enemy->holders.paths.empty());
  const MergedPath& p = enemy->holders.paths[0];
  EXPECT_EQ(p.count, 200u);
  std::vector<std::string> names;
  for (const MergedStep& st : p.steps) names.push_back(last.index.group_name(st.group));
  EXPECT_EQ(names, (std::vector<std::string>{"Game", "List", "Enemy[]", "Enemy"}));
  for (const Suspect& x : sus) {
    EXPECT_NE(a_name(last, x), "Explosion");  // shrinking
    EXPECT_NE(a_name(last, x), "Bullet");     // steady
    EXPECT_NE(a_name(last, x), "Enemy[]");
  }
}

}  // namespace
}  // namespace xrpm::analysis
