// The open snapshots (Documents, documents.h) through AppSession as the GUI uses them: loading
// and generating in the background, closing with unsaved changes, saving and opening back with
// the recent files, and failures said in plain words.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_heaps.h"
#include "xrpm/app/app_session.h"
#include "xrpm/app/documents.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class DocumentsTest : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_documents_test_" + std::to_string(getpid()) +
                    "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  AppSession::Options Opts() { return {dir + "/config", true, {}}; }
};

TEST_F(DocumentsTest, DemoHeapLoadsInTheBackgroundAndBecomesReady) {
  AppSession s(Opts());
  const uint32_t id = s.documents().OpenDemo({.objects = 50'000});
  ASSERT_NE(s.documents().doc(id), nullptr);
  EXPECT_EQ(s.documents().active_id(), id);
  ASSERT_TRUE(s.WaitIdle(60s));
  SnapshotDoc* d = s.documents().doc(id);
  EXPECT_EQ(d->state, DocState::kReady);
  EXPECT_TRUE(d->unsaved);
  EXPECT_EQ(d->snapshot->object_count(), 50'000u);
  ASSERT_TRUE(d->types);
  ASSERT_TRUE(d->overview);
  EXPECT_EQ(d->overview->objects, 50'000u);
  EXPECT_TRUE(s.selection().SelectType("Game.Bubble"));
  EXPECT_FALSE(s.selection().SelectType("No.Such.Type"));
  auto j = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(j["docs"][0]["selected_type"], "Game.Bubble");
  EXPECT_EQ(j["docs"][0]["state"], "ready");
}

// What the Inspector shows of an object (Documents::DescribeObject): at once with the full
// index; with the lean one on the worker (the referrers are a scan), and the same either way.
TEST_F(DocumentsTest, ObjectDetailsAreTheSameOnTheLeanIndex) {
  std::shared_ptr<const ObjectDetails> want;
  uint32_t node = kNoIndex;
  for (const DocIndex index : {DocIndex::kFull, DocIndex::kLean}) {
    AppSession s(Opts());
    s.documents().set_index_choice(index);
    const uint32_t id = s.documents().OpenDemo({.objects = 20'000, .extra_refs_per_object = 2});
    ASSERT_TRUE(s.WaitIdle(60s));
    SnapshotDoc* d = s.documents().doc(id);
    ASSERT_TRUE(d && d->analysis);
    EXPECT_EQ(d->analysis->lean_index, index == DocIndex::kLean);
    if (node == kNoIndex) {  // the object with the most referrers
      for (uint32_t v = 0; v < d->analysis->index().node_count(); ++v)
        if (node == kNoIndex ||
            d->analysis->index().In(v).size() > d->analysis->index().In(node).size())
          node = v;
      ASSERT_GT(d->analysis->index().In(node).size(), 2u);
    }
    s.documents().DescribeObject(id, node);
    if (index == DocIndex::kLean) {
      EXPECT_FALSE(d->details);
      EXPECT_EQ(d->details_pending, node);
      ASSERT_TRUE(s.WaitIdle(60s));
      EXPECT_EQ(d->details_pending, kNoIndex);
    }
    ASSERT_TRUE(d->details);
    ASSERT_EQ(d->details->node, node);
    if (!want) {
      want = d->details;
      continue;
    }
    EXPECT_EQ(d->details->out, want->out);
    EXPECT_EQ(d->details->in, want->in);
    ASSERT_EQ(d->details->contents.referrers.size(), want->contents.referrers.size());
    for (size_t k = 0; k < want->contents.referrers.size(); ++k)
      EXPECT_EQ(d->details->contents.referrers[k].node, want->contents.referrers[k].node);
  }
}

// The selected type's traits (what the runtime said it is) are in the state, as the Inspector
// shows them.
TEST_F(DocumentsTest, TheSelectedTypesTraitsAreInTheState) {
  AppSession s(Opts());
  Snapshot snap;
  snap.AddSection({.name = "a.exe"});
  const uint32_t hit = snap.AddType(1, "Game.Hit", 0);
  snap.types[hit].traits.kind = TypeKind::kValueType;
  const uint32_t grid = snap.AddType(2, "System.Int32[,]", 0);
  snap.types[grid].traits = {TypeKind::kArray, 2, "", "System.Int32"};
  snap.AddObject(0x10, hit, 16, {});
  snap.AddObject(0x20, grid, 48, {});
  snap.CloseSectionRanges();
  s.documents().AddSnapshot(std::move(snap), DocOrigin::kCaptured, "");
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_TRUE(s.selection().SelectType("Game.Hit"));
  auto j = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(j["docs"][0]["selected_type_traits"]["kind"], "value type");
  EXPECT_EQ(j["docs"][0]["selected_type_traits"]["text"], "value type");
  ASSERT_TRUE(s.selection().SelectType("System.Int32[,]"));
  j = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(j["docs"][0]["selected_type_traits"]["array_rank"], 2);
  EXPECT_EQ(j["docs"][0]["selected_type_traits"]["text"], "array rank 2 of System.Int32");
}

TEST_F(DocumentsTest, UnsavedSnapshotsRefuseToCloseUntilDiscarded) {
  AppSession s(Opts());
  Snapshot snap;
  snap.AddSection({.name = "a.exe"});
  snap.AddType(1, "T", 0);
  snap.AddObject(0x10, 0, 12, {});
  snap.CloseSectionRanges();
  const uint32_t id = s.documents().AddSnapshot(std::move(snap), DocOrigin::kCaptured, "");
  EXPECT_EQ(s.documents().doc(id)->title, "Capture 1");
  EXPECT_TRUE(s.documents().HasUnsaved());
  EXPECT_FALSE(s.documents().Close(id));
  EXPECT_NE(s.documents().doc(id), nullptr);
  EXPECT_TRUE(s.documents().Close(id, /*discard=*/true));
  EXPECT_EQ(s.documents().doc(id), nullptr);
  EXPECT_EQ(s.documents().active_id(), 0u);
}

TEST_F(DocumentsTest, SaveThenOpenRoundTripsAndUpdatesRecentFiles) {
  const std::string path = dir + "/demo.gclog";
  // Recent files are kept as normalised absolute paths (they must open from any directory).
  const std::string recent = std::filesystem::path(path).lexically_normal().string();
  {
    AppSession s(Opts());
    const uint32_t id = s.documents().OpenDemo({.objects = 5'000});
    ASSERT_TRUE(s.WaitIdle(60s));
    s.documents().SaveAs(id, path);
    ASSERT_TRUE(s.WaitIdle(60s));
    EXPECT_TRUE(s.last_error().empty()) << s.last_error();
    EXPECT_FALSE(s.documents().doc(id)->unsaved);
    EXPECT_EQ(s.documents().doc(id)->path, path);
    EXPECT_TRUE(s.documents().Close(id));
    ASSERT_FALSE(s.settings().recent_files.empty());
    EXPECT_EQ(s.settings().recent_files.front(), recent);
  }
  // A new session remembers the recent file and can open it.
  AppSession s(Opts());
  ASSERT_FALSE(s.settings().recent_files.empty());
  EXPECT_EQ(s.settings().recent_files.front(), recent);
  const uint32_t id = s.documents().OpenFile(s.settings().recent_files.front());
  ASSERT_TRUE(s.WaitIdle(60s));
  SnapshotDoc* d = s.documents().doc(id);
  ASSERT_EQ(d->state, DocState::kReady) << d->problem;
  EXPECT_EQ(d->snapshot->object_count(), 5'000u);
  EXPECT_FALSE(d->unsaved);
  EXPECT_EQ(d->title, "demo.gclog");
}

// A capture saved as .xrpm keeps its origins and capture metadata; saved as .gclog, the log says
// what the file does not keep (the save dialog shows the same list before writing).
TEST_F(DocumentsTest, CaptureSavedAsXrpmKeepsEverythingAndGclogSaysWhatItDrops) {
  Snapshot snap = testing::OneObjectCapture();
  snap.capture->pause_us = 4321;
  const Snapshot original = snap;
  AppSession s(Opts());
  const uint32_t id = s.documents().AddSnapshot(std::move(snap), DocOrigin::kCaptured, "");
  ASSERT_TRUE(s.WaitIdle(60s));
  s.documents().SaveAs(id, dir + "/c.gclog");
  ASSERT_TRUE(s.WaitIdle(60s));
  std::string warnings;
  for (const LogEntry& e : s.log())
    if (e.level == LogEntry::kWarning) warnings += e.text + "\n";
  EXPECT_NE(warnings.find("does not keep root origins of 1 roots"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("does not keep the capture's metadata"), std::string::npos) << warnings;

  const size_t before = s.log().size();
  s.documents().SaveAs(id, dir + "/c.xrpm");
  ASSERT_TRUE(s.WaitIdle(60s));
  for (size_t i = before; i < s.log().size(); ++i)
    EXPECT_NE(s.log()[i].level, LogEntry::kWarning) << s.log()[i].text;
  const uint32_t back = s.documents().OpenFile(dir + "/c.xrpm");
  ASSERT_TRUE(s.WaitIdle(60s));
  ASSERT_EQ(s.documents().doc(back)->state, DocState::kReady) << s.documents().doc(back)->problem;
  EXPECT_TRUE(*s.documents().doc(back)->snapshot == original);
  EXPECT_EQ(s.settings().recent_files.front(),
            std::filesystem::path(dir + "/c.xrpm").lexically_normal().string());
}

TEST_F(DocumentsTest, OpeningABadFileFailsInPlainWordsWithoutCrashing) {
  AppSession s(Opts());
  const uint32_t missing = s.documents().OpenFile(dir + "/nope.gclog");
  ASSERT_TRUE(s.WaitIdle(60s));
  EXPECT_EQ(s.documents().doc(missing)->state, DocState::kFailed);
  EXPECT_NE(s.documents().doc(missing)->problem.find("nope.gclog"), std::string::npos);
  EXPECT_NE(s.last_error().find("Could not open"), std::string::npos);
}

// Regression: an empty file opened silently as an empty snapshot. The monitor now
// shows the reader's no-records warning (the document's diagnostics, the log's warning).
TEST_F(DocumentsTest, OpeningAnEmptyFileShowsTheNoRecordsWarning) {
  const std::string empty = dir + "/empty.gclog";
  { std::ofstream(empty) << "\n  \n"; }
  AppSession s(Opts());
  const uint32_t id = s.documents().OpenFile(empty);
  ASSERT_TRUE(s.WaitIdle(60s));
  SnapshotDoc* d = s.documents().doc(id);
  ASSERT_EQ(d->state, DocState::kReady) << d->problem;
  EXPECT_EQ(d->diagnostics_total, 1u);
  ASSERT_EQ(d->diagnostics.size(), 1u);
  EXPECT_NE(d->diagnostics[0].find("[no-records]"), std::string::npos) << d->diagnostics[0];
  EXPECT_EQ(nlohmann::json::parse(s.StateJson())["docs"][0]["diagnostics"], 1);
}

TEST_F(DocumentsTest, SavingToAnUnwritablePlaceReportsAndKeepsTheSnapshotUnsaved) {
  AppSession s(Opts());
  const uint32_t id = s.documents().OpenDemo({.objects = 1'000});
  ASSERT_TRUE(s.WaitIdle(60s));
  s.documents().SaveAs(id, dir + "/no/such/dir/x.gclog");
  ASSERT_TRUE(s.WaitIdle(60s));
  EXPECT_TRUE(s.documents().doc(id)->unsaved);
  EXPECT_NE(s.last_error().find("Could not save"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/no/such/dir/x.gclog"));
}

// Documents needs no facade: a worker, a log and settings are all it uses (the GUI-free parts of
// AppSession can be driven one at a time).
TEST(Documents, WorkWithTheirOwnWorkerLogAndSettings) {
  Worker worker;
  SessionLog log;
  Settings settings;
  Documents docs(worker, log, settings);
  const uint32_t id = docs.OpenDemo({.objects = 2'000});
  EXPECT_EQ(docs.active_id(), id);
  while (!worker.Idle()) {
    ASSERT_TRUE(worker.WaitTasksDone(60s));
    worker.RunCompletions();
  }
  const SnapshotDoc* d = docs.doc(id);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->state, DocState::kReady) << d->problem;
  EXPECT_TRUE(d->analysis);
  EXPECT_EQ(log.last_error(), "");
  ASSERT_FALSE(log.entries().empty());
  EXPECT_EQ(log.entries().front().text.rfind("Generated Demo heap", 0), 0u)
      << log.entries().front().text;
  EXPECT_EQ(docs.NewCaptureTitle("bubbles.exe"), "Capture 1 — bubbles.exe");
  EXPECT_FALSE(docs.Close(id)) << "a generated heap is unsaved";
  EXPECT_TRUE(docs.Close(id, /*discard=*/true));
  EXPECT_TRUE(docs.docs().empty());
}

}  // namespace
}  // namespace xrpm::app
