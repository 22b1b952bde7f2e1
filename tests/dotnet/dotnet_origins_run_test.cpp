// Allocation origins on .NET end to end (dotnet_origins.h): the Origins program (the Mono test's
// source, compiled by the SDK) under xrpm-dotnet --allocations, captured by the host client over
// the wire. Origins N PAD 5 M makes N Origins.Tracked objects (each with a PAD-byte payload) in
// Origins.Maker.MakeTracked inside the frame method when 5 frames have completed, then moves them
// out of generation 0 with GC.Collect(); M Origins.Early come from Origins.Program.MakeEarly
// before any frame.
//   - exact route, one sample per byte: every Tracked object, payload and Early object has its
//     origin, before and after further collections (which compact: the origins follow the moves);
//   - the runtime's sampling (the default route): only sampled objects have one, each right;
//   - --no-origins: the capture has none;
//   - the sample game's leak: three captures saved as .xrpm, `xrpm leaks A B C --json` names the
//     leaking Bubble and its site (XnaBubbles.BubblesGame.Spawn), not the particles it frees.
// Every capture's agent line says no origin was dropped for another class at its address.
// Waits on log lines and frames, bounded; no sleeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dotnet_process.h"
#include "mono_process.h"
#include "origins_program.h"
#include "sample_game_leaks.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/snapshot_io.h"

#ifndef XRPM_CLI_BIN
#define XRPM_CLI_BIN ""
#endif

namespace xrpm::testing {
namespace {

constexpr uint32_t kDotnetOriginsFrame = 5;

std::shared_ptr<const Snapshot> DotnetCaptureOf(DotnetRun& run) {
  return CaptureFrom(run.endpoint, *run.proc);
}

void ExpectNoClassMismatch(DotnetRun& run) {
  EXPECT_NE(run.proc->log().WaitFor("allocation origins:", 30000), "") << run.proc->log().All();
  EXPECT_EQ(run.proc->log().All().find("another class at the address"), std::string::npos)
      << run.proc->log().All();
}

TEST(DotnetOrigins, EverySampledObjectKeepsItsSiteAndFrameAcrossCollections) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({"--frame", "Origins.Program:Tick", "--allocations=exact", "--sample-bytes", "1"},
                DotnetProgram("Origins"), {"400", "64", std::to_string(kDotnetOriginsFrame), "30"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 60000).empty()) << run.proc->log().All();
  const auto first = DotnetCaptureOf(run);
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->has_origins());
  EXPECT_EQ(first->origins->sample_bytes, 1u);
  EXPECT_GT(first->origins->capture_frame, kDotnetOriginsFrame);
  const OriginsCounts a = CheckOriginsProgram(*first, kDotnetOriginsFrame);
  EXPECT_EQ(a.tracked, 400u);
  EXPECT_EQ(a.tracked_known, 400u) << "every allocation was sampled";
  EXPECT_EQ(a.payloads_known, 400u);
  EXPECT_EQ(a.early_known, 30u);

  // After more collections (the capture's own compacted the heap again): unchanged, older.
  const auto second = DotnetCaptureOf(run);
  ASSERT_TRUE(second);
  ASSERT_TRUE(second->has_origins());
  EXPECT_GT(second->origins->capture_frame, first->origins->capture_frame);
  const OriginsCounts b = CheckOriginsProgram(*second, kDotnetOriginsFrame);
  EXPECT_EQ(b.tracked_known, 400u);
  EXPECT_EQ(b.payloads_known, 400u);
  EXPECT_EQ(b.early_known, 30u);
  ExpectNoClassMismatch(run);
}

TEST(DotnetOrigins, TheRuntimesSamplingGivesOnlySampledObjectsAnOrigin) {
  SKIP_WITHOUT_DOTNET();
  // 2,000 8 KiB payloads: each sampled with p = 1 - e^(-8216/102400) ~ 7.7% (about 150).
  DotnetRun run({"--frame", "Origins.Program:Tick", "--allocations"}, DotnetProgram("Origins"),
                {"2000", "8192", std::to_string(kDotnetOriginsFrame), "0"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 60000).empty()) << run.proc->log().All();
  const auto s = DotnetCaptureOf(run);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->has_origins());
  EXPECT_EQ(s->origins->sample_bytes, 102400u) << "the runtime's interval";
  const OriginsCounts n = CheckOriginsProgram(*s, kDotnetOriginsFrame);  // each known one right
  EXPECT_EQ(n.payloads, 2000u);
  EXPECT_GT(n.payloads_known, 40u);
  EXPECT_LT(n.payloads_known, 400u) << "a sample, not every object";
  size_t unknown = 0;
  for (size_t i = 0; i < s->object_count(); ++i) unknown += !s->origin_known(i);
  EXPECT_GT(unknown, s->object_count() / 2);
  ExpectNoClassMismatch(run);
}

TEST(DotnetOrigins, WithoutOriginsACaptureHasNone) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({"--frame", "Origins.Program:Tick", "--allocations", "--no-origins"},
                DotnetProgram("Origins"), {"10", "16", "1", "0"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Origins: made", 60000).empty());
  const auto s = DotnetCaptureOf(run);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->has_origins()) << "absent, not made up";
  EXPECT_TRUE(s->object_alloc_site.empty());
  EXPECT_NE(run.proc->log().All().find("no allocation origins"), std::string::npos);
}

TEST(DotnetOrigins, TheLeakFilterNamesTheSampleGamesLeakAndItsSite) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({"--allocations=exact", "--sample-bytes", "1"}, DotnetProgram("XnaBubbles"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("XnaBubbles: running", 60000).empty())
      << run.proc->log().All();
  auto c = ConnectTo(run.endpoint);
  ASSERT_TRUE(c);
  c->SubscribeCounters(100);  // its samples (every 100 ms) space the tries of a capture
  const SampleGameLeaks leaks = LeaksOfTheSampleGame(*c, XRPM_CLI_BIN);
  ASSERT_TRUE(leaks.error.empty()) << leaks.error << run.proc->log().All();
  EXPECT_TRUE(leaks.bubble_from_spawn) << leaks.json;
  EXPECT_GT(leaks.bubbles, 0u) << leaks.json;
  EXPECT_EQ(leaks.particles, 0u) << "freed by the game (CoreCLR scans stacks precisely)";
  ExpectNoClassMismatch(run);
}

}  // namespace
}  // namespace xrpm::testing
