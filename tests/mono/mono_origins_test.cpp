// Allocation origins end to end: Origins.exe under xrpm-mono --allocations, captured
// by the host client over the wire into a Snapshot. Origins.exe N PAD 5 M makes N
// Origins.Tracked objects (each with a PAD-byte payload) in Origins.Maker.MakeTracked inside the
// frame method when 5 frames have completed, then moves them out of the nursery with
// GC.Collect(); M Origins.Early objects come from Origins.Program.MakeEarly before any frame.
//   - sample interval 1 byte: every object is sampled, so every Tracked object and its payload
//     show MakeTracked <- Tick and frame 5, before and after further collections;
//   - the default interval (16 KiB): only a fraction of them has an origin, the rest unknown;
//   - a frames subscription's interval is the one in force (and reported) while it lasts;
//   - origins off (--sample-bytes 0, or no --allocations): the capture has none;
//   - the sample game's leak (XnaBubbles.exe, every allocation sampled): three captures saved as
//     .xrpm, `xrpm leaks A B C --json` names the leaking Bubble and its site
//     (XnaBubbles.BubblesGame.Spawn) and not the particles the game frees.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "mono_process.h"
#include "origins_program.h"
#include "sample_game_leaks.h"
#include "subprocess.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/snapshot_io.h"

#ifndef XRPM_CLI_BIN
#define XRPM_CLI_BIN ""
#endif

namespace xrpm::testing {
namespace {

constexpr uint32_t kOriginsMakeFrame = 5;

std::shared_ptr<const Snapshot> CaptureOf(MonoRun& run) {
  return CaptureFrom(run.endpoint, *run.proc);
}

OriginsCounts CheckTracked(const Snapshot& s) {
  return CheckOriginsProgram(s, kOriginsMakeFrame);
}

TEST(MonoOrigins, EverySampledObjectKeepsItsSiteAndFrameAcrossCollections) {
  SKIP_WITHOUT_MONO();
  // Every capture at a frame boundary (a 30 s window, so a stalled program is waited for, not
  // stopped at a safe point): each one follows a frame of its own, so capture frames increase.
  MonoRun run({"--frame", "Origins.Program:Tick", "--frame-window-ms", "30000", "--allocations",
               "--sample-bytes", "1"},
              "Origins.exe", {"400", "64", std::to_string(kOriginsMakeFrame), "30"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 30000).empty()) << run.proc->log().All();
  const auto first = CaptureOf(run);
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->has_origins());
  EXPECT_EQ(first->origins->sample_bytes, 1u);
  EXPECT_GT(first->origins->capture_frame, kOriginsMakeFrame);
  const OriginsCounts a = CheckTracked(*first);
  EXPECT_EQ(a.tracked, 400u);
  EXPECT_EQ(a.tracked_known, 400u) << "every allocation was sampled";
  EXPECT_EQ(a.payloads_known, 400u);
  EXPECT_EQ(a.early_known, 30u);
  size_t known = 0;
  for (size_t i = 0; i < first->object_count(); ++i) known += first->origin_known(i);
  EXPECT_EQ(known, first->object_count()) << "every object was sampled";

  // Later, after more collections (the capture's own moved them too): unchanged, older.
  const auto second = CaptureOf(run);
  ASSERT_TRUE(second);
  ASSERT_TRUE(second->has_origins());
  EXPECT_GT(second->origins->capture_frame, first->origins->capture_frame);
  const OriginsCounts b = CheckTracked(*second);
  EXPECT_EQ(b.tracked_known, 400u);
  EXPECT_EQ(b.payloads_known, 400u);
}

TEST(MonoOrigins, AtTheDefaultIntervalOnlySampledObjectsHaveAnOrigin) {
  SKIP_WITHOUT_MONO();
  // 2,000 1 KiB payloads: each sampled with p = 1 - e^(-1040/16384) ~ 6% (about 120 expected).
  MonoRun run({"--frame", "Origins.Program:Tick", "--allocations"}, "Origins.exe",
              {"2000", "1024", std::to_string(kOriginsMakeFrame), "0"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 30000).empty()) << run.proc->log().All();
  const auto s = CaptureOf(run);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->has_origins());
  EXPECT_EQ(s->origins->sample_bytes, 16384u) << "the default interval, in force";
  const OriginsCounts n = CheckTracked(*s);  // every known one names MakeTracked and frame 5
  EXPECT_EQ(n.payloads, 2000u);
  EXPECT_GT(n.payloads_known, 0u);
  EXPECT_LT(n.payloads_known, 600u) << "a sample, not every object";
  EXPECT_LT(n.tracked_known, 100u) << "32-byte objects: p ~ 0.2%";
  size_t unknown = 0;
  for (size_t i = 0; i < s->object_count(); ++i) unknown += !s->origin_known(i);
  EXPECT_GT(unknown, s->object_count() / 2);
  EXPECT_NE(run.proc->log().WaitFor("allocation origins:"), "") << run.proc->log().All();
}

TEST(MonoOrigins, AFramesSubscriptionSetsTheIntervalWhileItLasts) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "Origins.Program:Tick", "--allocations"}, "Origins.exe",
              {"10", "16", "1", "0"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 30000).empty());
  {
    auto c = ConnectTo(run.endpoint);
    ASSERT_TRUE(c);
    c->SubscribeFrames(1024);
    ASSERT_TRUE(c->WaitFrames(2, 30000)) << c->frames_status().error;
    const client::CaptureResult r = CaptureOnce(*c, 120000);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.snapshot->has_origins());
    EXPECT_EQ(r.snapshot->origins->sample_bytes, 1024u);
  }
  // The host left (its subscription with it): the start-up interval again.
  ASSERT_FALSE(run.proc->log().WaitFor("disconnected", 30000).empty());
  const auto s = CaptureOf(run);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->has_origins());
  EXPECT_EQ(s->origins->sample_bytes, 16384u);
}

TEST(MonoOrigins, WithoutOriginsACaptureHasNone) {
  SKIP_WITHOUT_MONO();
  for (const std::vector<std::string>& opts :
       {std::vector<std::string>{"--frame", "Origins.Program:Tick", "--allocations",
                                 "--sample-bytes", "0"},
        std::vector<std::string>{"--frame", "Origins.Program:Tick"}}) {
    MonoRun run(opts, "Origins.exe", {"10", "16", "1", "0"});
    ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
    ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 30000).empty());
    const auto s = CaptureOf(run);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->has_origins()) << "absent, not made up";
    EXPECT_TRUE(s->object_alloc_site.empty());
  }
}

TEST(MonoOrigins, TheLeakFilterNamesTheSampleGamesLeakAndItsSite) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--allocations", "--sample-bytes", "1"}, "XnaBubbles.exe", {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("XnaBubbles: running", 30000).empty());
  auto c = ConnectTo(run.endpoint);
  ASSERT_TRUE(c);
  c->SubscribeCounters(100);  // its samples (every 100 ms) space the tries of a capture
  const SampleGameLeaks leaks = LeaksOfTheSampleGame(*c, XRPM_CLI_BIN);
  ASSERT_TRUE(leaks.error.empty()) << leaks.error << run.proc->log().All();
  EXPECT_TRUE(leaks.bubble_from_spawn) << leaks.json;
  EXPECT_GT(leaks.bubbles, 0u) << leaks.json;
  EXPECT_LE(leaks.particles, 4u) << "freed by the game (up to what conservative stack scanning "
                                    "keeps)";
}

}  // namespace
}  // namespace xrpm::testing
