// Saved recordings in the monitor's model (Recordings, recordings.h; Compare's Allocations mode
// is Comparisons', comparisons.h), through AppSession as the GUI uses them: the Timeline's
// recording saved to an .xrpm opens back equal (markers where the Timeline puts them) and is
// shown instead of the live one; File > Open tells recordings from snapshots; a truncated,
// corrupt or non-recording file is refused with the reader's error, never half shown; Compare's
// Allocations mode gives exactly analysis::DiffAllocations' rows, the live recording against a
// saved one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "xrpm/app/app_session.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::app {
namespace {
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// `n` frames; each samples one 64-byte Bubble from Spawn <- Update (tag "AI") and, when
// `strings`, one 40-byte String from Concat <- Update; a marker every 50 frames.
FrameRecording Recording(uint64_t n, bool strings, uint32_t bubble_size = 64) {
  FrameRecording r;
  r.app = "bubbles.exe";
  r.sample_bytes = 1024;
  r.methods = {"Spawn", "Update", "Concat"};
  r.types = {"Bubbles.Bubble", "System.String"};
  r.stacks = {{1, 2}, {3, 2}};
  r.tags = {"AI"};
  for (uint64_t f = 1; f <= n; ++f) {
    r.frames.push_back({f, f * 16'667, 16'667, 2'000, 2'048, 20, f % 100 == 0, 14'000, 100'000});
    r.samples.push_back({f, 1, 1, bubble_size, 1});
    if (strings) r.samples.push_back({f, 2, 2, 40, 0});
    if (f % 50 == 0)
      r.markers.push_back({f % 100 ? MarkerKind::kMarker : MarkerKind::kCaptureRequest,
                           "wave " + std::to_string(f / 50), f, f * 16'667});
  }
  return r;
}

class RecordingsTest : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_recordings_test_" + std::to_string(getpid()) +
                    "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  AppSession::Options Opts() { return {dir + "/config", false, {}}; }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

TEST_F(RecordingsTest, SavedRecordingOpensBackEqualAndIsShownWithItsMarkers) {
  FrameRecording rec = Recording(200, true);
  rec.frame_totals = FrameTotals::kEstimated;  // as from .NET's sampled route: kept, and shown
  const std::string path = dir + "/rec.xrpm";
  {
    AppSession s(Opts());
    s.device().live_frames().Load(rec);
    ASSERT_TRUE(s.recordings().Save(path));
    ASSERT_TRUE(s.WaitIdle(30s));
    EXPECT_EQ(s.recordings().last_saved(), path) << s.last_error();
  }
  // The same format as the CLI's: formats::LoadRecordingFile reads it back equal.
  EXPECT_EQ(formats::LoadRecordingFile(path).rec, rec);
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  AppSession s(Opts());
  const AppSession::Opened o = s.Open(path);  // File > Open: decided by the file's contents
  ASSERT_TRUE(o.recording);
  EXPECT_EQ(s.documents().docs().size(), 0u) << "a recording is not a snapshot";
  ASSERT_TRUE(s.WaitIdle(30s));
  const RecordingDoc* r = s.recordings().doc(o.id);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->state, RecordingDoc::State::kReady) << r->problem;
  EXPECT_EQ(r->title, "rec.xrpm");
  EXPECT_EQ(s.recordings().shown_id(), o.id);
  EXPECT_EQ(s.recordings().shown().recording(), rec);
  EXPECT_TRUE(s.device().live_frames().recording().frames.empty());
  // The Timeline's markers: frames 50, 100, 150, 200 in the window of the last 600 frames.
  const auto marks = s.recordings().shown().MarkersIn(s.recordings().shown().window_first(),
                                                      s.recordings().shown().window_count());
  ASSERT_EQ(marks.size(), 4u);
  EXPECT_EQ(s.recordings().shown().recording().frames[marks[1].row].frame, 100u);
  EXPECT_EQ(s.recordings().shown().recording().markers[marks[1].marker].kind,
            MarkerKind::kCaptureRequest);
  // The Allocations view's table, as for a live session.
  EXPECT_EQ(s.recordings().shown().profile().frames, 200u);
  EXPECT_EQ(s.recordings().shown().profile().total.samples, 400u);
  EXPECT_EQ(s.recordings().shown().profile().frame_totals, FrameTotals::kEstimated);
  const auto st = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(st["frames"]["shown"], "rec.xrpm");
  EXPECT_EQ(st["frames"]["frame_totals"], "estimated");
  EXPECT_EQ(st["frames"]["markers"], 4);
  EXPECT_EQ(st["recordings"][0]["state"], "ready");
  EXPECT_EQ(st["recent_files"][0], fs::absolute(path).lexically_normal().string());

  s.recordings().Show(kLiveRecording);
  EXPECT_TRUE(s.recordings().shown().recording().frames.empty());
  s.recordings().Show(o.id);
  s.recordings().Close(o.id);
  EXPECT_EQ(s.recordings().shown_id(), kLiveRecording);
  EXPECT_EQ(s.recordings().doc(o.id), nullptr);
}

TEST_F(RecordingsTest, NothingRecordedIsNotSaved) {
  AppSession s(Opts());
  EXPECT_FALSE(s.recordings().Save(dir + "/empty.xrpm"));
  EXPECT_NE(s.last_error().find("no frames recorded"), std::string::npos) << s.last_error();
  EXPECT_TRUE(s.Idle());
  EXPECT_FALSE(fs::exists(dir + "/empty.xrpm"));
}

TEST_F(RecordingsTest, BadRecordingsAreRefusedWithTheReadersError) {
  formats::SavedRecording saved{Recording(300, true), "127.0.0.1:4510"};
  const std::string good = dir + "/good.xrpm";
  formats::SaveRecordingFile(saved, good);
  const std::string bytes = Read(good);
  std::string corrupt = bytes;
  corrupt[bytes.size() / 2] ^= 0x5a;
  const std::string corrupt_path = Write("corrupt.xrpm", corrupt);
  const std::string truncated_path = Write("truncated.xrpm", bytes.substr(0, bytes.size() - 40));
  // A heap snapshot: a valid .xrpm without a recording.
  const std::string snapshot_path = dir + "/heap.xrpm";
  formats::WriteXrpmFile(Snapshot{}, snapshot_path);

  AppSession s(Opts());
  s.device().live_frames().Load(Recording(10, false));
  auto live_still_shown = [&] {
    EXPECT_EQ(s.recordings().shown_id(), kLiveRecording);
    EXPECT_EQ(s.recordings().shown().recording().frames.size(), 10u);
  };
  struct Case {
    std::string path, expect;
  };
  for (const Case& c : {Case{corrupt_path, "corrupt.xrpm: "}, Case{truncated_path, "truncated"},
                        Case{snapshot_path, "without a recording"}}) {
    SCOPED_TRACE(c.path);
    s.ClearError();
    const uint32_t id = s.recordings().Open(c.path);
    ASSERT_TRUE(s.WaitIdle(30s));
    const RecordingDoc* r = s.recordings().doc(id);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->state, RecordingDoc::State::kFailed);
    EXPECT_EQ(r->problem.rfind("Could not open the recording " + c.path + ": ", 0), 0u)
        << r->problem;
    EXPECT_NE(r->problem.find(c.expect), std::string::npos) << r->problem;
    EXPECT_EQ(s.last_error(), r->problem);
    live_still_shown();       // nothing half shown
    s.recordings().Show(id);  // a refused recording cannot be shown
    live_still_shown();
    s.recordings().Close(id);
  }
  // File > Open of the damaged recordings: refused as recordings when their table of contents
  // still says so, else by the snapshot reader; either way with the reader's error, never an
  // empty snapshot or a recording shown.
  for (const std::string& path : {corrupt_path, truncated_path}) {
    SCOPED_TRACE(path);
    const AppSession::Opened o = s.Open(path);
    ASSERT_TRUE(s.WaitIdle(30s));
    const std::string problem =
        o.recording ? s.recordings().doc(o.id)->problem : s.documents().doc(o.id)->problem;
    if (o.recording)
      EXPECT_EQ(s.recordings().doc(o.id)->state, RecordingDoc::State::kFailed);
    else
      EXPECT_EQ(s.documents().doc(o.id)->state, DocState::kFailed);
    EXPECT_NE(problem.find(path), std::string::npos) << problem;
    EXPECT_EQ(s.last_error(), problem);
    live_still_shown();
  }
  EXPECT_FALSE(IsRecordingFile(truncated_path));
  EXPECT_FALSE(IsRecordingFile(dir + "/missing.xrpm"));
  EXPECT_FALSE(IsRecordingFile(snapshot_path));
  EXPECT_TRUE(IsRecordingFile(good));
  // The heap snapshot opens as a snapshot.
  EXPECT_FALSE(s.Open(snapshot_path).recording);
}

TEST_F(RecordingsTest, CompareGivesTheRowsOfDiffAllocationsLiveAgainstSaved) {
  // A: bubbles only, 64 B each; B (saved): bubbles of 128 B and strings (only in B).
  const FrameRecording a = Recording(400, false, 64);
  const FrameRecording b = Recording(200, true, 128);
  const std::string path = dir + "/after.xrpm";
  formats::SaveRecordingFile({b, ""}, path);

  AppSession s(Opts());
  s.device().live_frames().Load(a);
  const uint32_t id = s.recordings().Open(path);
  ASSERT_TRUE(s.WaitIdle(30s));
  for (auto by : {analysis::AllocSiteKind::kStack, analysis::AllocSiteKind::kMethod,
                  analysis::AllocSiteKind::kType, analysis::AllocSiteKind::kTag}) {
    SCOPED_TRACE(analysis::AllocSiteKindName(by));
    ASSERT_TRUE(s.comparisons().CompareAllocations(kLiveRecording, id, by));
    ASSERT_TRUE(s.WaitIdle(30s));
    ASSERT_TRUE(s.comparisons().allocations());
    const AllocCompareResult& r = *s.comparisons().allocations();
    EXPECT_EQ(r.titles[0], "Live recording (bubbles.exe)");
    EXPECT_EQ(r.titles[1], "after.xrpm");
    const analysis::AllocationDiff want = analysis::DiffAllocations(a, b, by);
    ASSERT_EQ(r.diff.rows.size(), want.rows.size());
    for (size_t i = 0; i < want.rows.size(); ++i) {
      EXPECT_EQ(r.diff.rows[i].site, want.rows[i].site);
      EXPECT_EQ(r.diff.rows[i].change, want.rows[i].change);
      EXPECT_EQ(r.diff.rows[i].change_error, want.rows[i].change_error);
      EXPECT_EQ(r.diff.rows[i].only_a, want.rows[i].only_a);
      EXPECT_EQ(r.diff.rows[i].only_b, want.rows[i].only_b);
    }
    EXPECT_EQ(r.diff.a.frames, 400u);
    EXPECT_EQ(r.diff.b.frames, 200u);
  }
  // By type: the bubble's bytes per frame doubled, the string is only in B; both rows carry a
  // sampling error, and the order is by |change|.
  ASSERT_TRUE(
      s.comparisons().CompareAllocations(kLiveRecording, id, analysis::AllocSiteKind::kType));
  ASSERT_TRUE(s.WaitIdle(30s));
  const auto& rows = s.comparisons().allocations()->diff.rows;
  ASSERT_EQ(rows.size(), 2u);
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_GE(std::fabs(rows[i - 1].change), std::fabs(rows[i].change));
  const auto* bubble = rows[0].site == "Bubbles.Bubble" ? &rows[0] : &rows[1];
  const auto* str = rows[0].site == "System.String" ? &rows[0] : &rows[1];
  // One sample per frame of s bytes estimates s / (1 - exp(-s / 1024)) bytes per frame.
  EXPECT_NEAR(bubble->a_per_frame, 64 / (1 - std::exp(-64 / 1024.0)), 1e-6);
  EXPECT_NEAR(bubble->b_per_frame, 128 / (1 - std::exp(-128 / 1024.0)), 1e-6);
  EXPECT_FALSE(bubble->only_a || bubble->only_b);
  EXPECT_GT(bubble->change_error, 0);
  EXPECT_TRUE(str->only_b);
  EXPECT_EQ(str->a_per_frame, 0);
  const auto st = nlohmann::json::parse(s.StateJson());
  EXPECT_EQ(st["alloc_compare"]["by"], "type");
  EXPECT_EQ(st["alloc_compare"]["sites"].size(), 2u);
  // Swapped: the string is only in A.
  ASSERT_TRUE(
      s.comparisons().CompareAllocations(id, kLiveRecording, analysis::AllocSiteKind::kType));
  ASSERT_TRUE(s.WaitIdle(30s));
  for (const auto& row : s.comparisons().allocations()->diff.rows)
    EXPECT_EQ(row.only_a, row.site == "System.String");
  // A closed recording cannot be compared.
  s.recordings().Close(id);
  EXPECT_FALSE(
      s.comparisons().CompareAllocations(kLiveRecording, id, analysis::AllocSiteKind::kType));
  EXPECT_FALSE(s.last_error().empty());
}

}  // namespace
}  // namespace xrpm::app
