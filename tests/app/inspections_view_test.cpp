// The Inspections view's model (app/inspection_rows.h) on the planted game heap of
// tests/support/inspect_game.h, opened as a file as a user would: each document's analysis
// carries the six inspections, rows per finding with severity, type and first object, the
// select-finding link selects that type and object, and the session state shows it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "inspect_game.h"
#include "xrpm/app/app_session.h"
#include "xrpm/app/inspection_rows.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;

class InspectionsView : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_inspections_view_" + std::to_string(getpid());
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(InspectionsView, RowsPerFindingWithSeverityTypeAndLinks) {
  const std::string file = dir + "/game.xrpm";
  formats::SaveSnapshot(testing::MakeInspectGame(), file);
  AppSession s({dir, /*persist=*/false, {}});
  const uint32_t id = s.documents().OpenFile(file);
  ASSERT_TRUE(s.WaitIdle(60s));
  SnapshotDoc* d = s.documents().doc(id);
  ASSERT_EQ(d->state, DocState::kReady) << d->problem;
  const DocAnalysis& a = *d->analysis;
  ASSERT_EQ(a.inspections.size(), 6u);

  const std::vector<InspectionRow> rows = InspectionRows(a);
  ASSERT_EQ(rows.size(), 7u);  // 1 + 1 + 1 + 2 + 1 + 1 findings, in the inspections' order
  auto name = [&](const InspectionRow& r) { return a.inspections[r.inspection].name; };
  auto type = [&](const InspectionRow& r) { return a.snapshot->types[r.type].name; };
  EXPECT_EQ(name(rows[0]), "duplicate-strings");
  EXPECT_EQ(type(rows[0]), "System.String");
  EXPECT_EQ(rows[0].severity, Severity::kWarning);  // 68 B of a ~2 KB heap is over 1 %
  EXPECT_EQ(name(rows[1]), "event-handler-leaks");
  EXPECT_EQ(rows[1].severity, Severity::kProblem);
  EXPECT_EQ(type(rows[1]), "Bubbles.Bubble");
  EXPECT_EQ(a.snapshot->object_id[rows[1].object], 0x1700u);
  EXPECT_EQ(name(rows[2]), "disposed-but-held");
  EXPECT_EQ(rows[2].severity, Severity::kProblem);
  EXPECT_EQ(a.snapshot->object_id[rows[2].object], 0x1800u);
  EXPECT_EQ(name(rows[3]), "sparse-collections");
  EXPECT_EQ(name(rows[4]), "sparse-collections");
  EXPECT_EQ(rows[4].finding, 1u);
  EXPECT_EQ(name(rows[6]), "finalizable");

  // A heap of ~2 KB makes every finding >= 1 %; on a big heap a small one is info.
  analysis::Inspection big = a.inspections[4];
  analysis::Finding small = big.findings[0];
  DocAnalysis huge;
  huge.totals.reachable_bytes = 1'000'000;
  EXPECT_EQ(SeverityOf(huge, big, small), Severity::kInfo);
  small.count = 100;
  EXPECT_EQ(SeverityOf(huge, big, small), Severity::kWarning);

  // The link: the finding's type and first object become the selection.
  EXPECT_FALSE(s.selection().SelectFinding("event-handler-leaks", 1));  // there is one finding
  EXPECT_FALSE(s.selection().SelectFinding("nope", 0));
  ASSERT_TRUE(s.selection().SelectFinding("disposed-but-held", 0));
  EXPECT_EQ(d->selection.object, int64_t(rows[2].object));
  EXPECT_EQ(d->snapshot->types[d->selection.type].name,
            "Microsoft.Xna.Framework.Graphics.Texture2D");

  // The state scripts assert on.
  const nlohmann::json st = nlohmann::json::parse(s.StateJson());
  const nlohmann::json& ins = st["docs"][0]["inspections"];
  ASSERT_EQ(ins.size(), 6u);
  EXPECT_EQ(ins[1]["name"], "event-handler-leaks");
  EXPECT_EQ(ins[1]["findings"][0]["what"], "static Bubbles.GameEvents.Popped -> Bubbles.Bubble");
  EXPECT_EQ(ins[1]["findings"][0]["severity"], "problem");
  EXPECT_EQ(ins[1]["findings"][0]["count"], 2);
  EXPECT_TRUE(ins[0]["skipped"].is_null());
}

}  // namespace
}  // namespace xrpm::app
