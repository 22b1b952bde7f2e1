// Frames and allocation samples from real Mono (xrpm-mono --allocations): LiveSet.exe allocates
// exactly 2,000 objects a frame (1,000 LiveSet.Garbage, each with a 256-byte array) in
// LiveSet.Program.MakeGarbage, called from its frame method; the frame records must say so
// exactly (from frame 3 on: frame 2 also writes the program's "ready" line; the recording says
// its frame totals are exact) and the samples
// must carry that stack (from frame 3 on, likewise). Without --allocations the agent refuses a
// frames subscription, as for any runtime that does not report frames.
#include <gtest/gtest.h>

#include "mono_process.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"

namespace xrpm::testing {
namespace {

TEST(MonoFrames, ExactFrameAllocationsAndSampledStacks) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "LiveSet.Program:Tick", "--allocations"}, "LiveSet.exe", {"10", "10"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(16384);
  ASSERT_TRUE(c.WaitFrames(40, 30000)) << c.frames_status().error << run.proc->log().All();
  FrameRecording rec;
  c.TakeFrames(&rec);
  ASSERT_GE(rec.frames.size(), 40u);
  EXPECT_EQ(rec.frame_totals, FrameTotals::kExact) << "Mono reports every allocation";
  for (size_t i = 1; i < rec.frames.size(); ++i) {
    const auto& f = rec.frames[i];
    EXPECT_EQ(f.frame, rec.frames[i - 1].frame + 1) << "consecutive";
    // Frame 2 also holds the "LiveSet: ready" line the program writes after its second frame.
    if (f.frame >= 3) {
      EXPECT_EQ(f.alloc_objects, 2000u) << "frame " << f.frame;
    }
    EXPECT_GE(f.alloc_bytes, 1000u * 256) << "frame " << f.frame;
    EXPECT_GE(f.duration_us, 10000u) << "the program sleeps 16 ms between frames";
    EXPECT_LE(f.work_us, f.duration_us);
  }
  ASSERT_FALSE(rec.samples.empty());
  size_t from_make_garbage = 0, from_frame_3 = 0;
  for (const auto& s : rec.samples) {
    // Frame 2 also writes the "ready" line (sampling starts at once when the subscription
    // arrives, so a host that subscribes early sees those samples).
    if (s.frame < 3) continue;
    ++from_frame_3;
    const auto& stack = rec.Stack(s.stack);
    ASSERT_FALSE(stack.empty());
    if (rec.MethodName(stack[0]) == "LiveSet.Program.MakeGarbage") {
      ++from_make_garbage;
      const std::string& type = rec.TypeName(s.type);
      EXPECT_TRUE(type == "LiveSet.Garbage" || type == "System.Byte[]") << type;
      ASSERT_GE(stack.size(), 2u);
      EXPECT_EQ(rec.MethodName(stack[1]), "LiveSet.Program.Tick");
    }
  }
  EXPECT_GT(from_frame_3, 0u);
  EXPECT_EQ(from_make_garbage, from_frame_3) << "the game thread allocates nowhere else";
}

TEST(MonoFrames, WithoutAllocationsTheSubscriptionIsRefused) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "LiveSet.Program:Tick"}, "LiveSet.exe", {"10", "10"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(16384);
  // Bounded (30 s): each WaitFrames waits at most 200 ms for frames that must not come, and
  // returns at once when the refusal arrives.
  for (int i = 0; i < 150 && c.frames_status().error.empty(); ++i)
    EXPECT_FALSE(c.WaitFrames(1, 200));
  EXPECT_NE(c.frames_status().error.find("does not report frames"), std::string::npos)
      << c.frames_status().error;
}

}  // namespace
}  // namespace xrpm::testing
