// Allocations on .NET (xrpm-dotnet --allocations, dotnet_allocations.h), both routes: the C#
// program Allocations (csharp/Allocations) allocates exactly 1,000 Allocations.Garbage a frame in
// Allocations.Program.MakeGarbage, called from its frame method Allocations.Program:Tick, and
// nothing else on the game thread from frame 3 on (frame 2 holds its "ready" lines), while a
// background thread allocates Allocations.Background all the time.
// Exact route (--allocations=exact): the frame rows' objects (1,000) and bytes (1,000 x the size
// the runtime itself counts for one Garbage, which the program prints): the other thread's
// allocations are not the frame's; sampled: both threads' allocations, each with its own stack;
// estimated within reason: `xrpm allocations` (sampling) puts Garbage's bytes per frame near that
// and names MakeGarbage, under Tick, as the allocating method; a capture works with
// --allocations on.
// Sampled route (--allocations, the runtime's AllocationSampled events over EventPipe; .NET 10):
// the agent announces the runtime's interval (102,400 bytes) whatever the host asked; samples
// name Garbage with MakeGarbage under Tick, and Background with Worker; over 600 frames the
// per-type estimate and the frame rows' estimate of the game thread's bytes are within reason
// of 24,000 B a frame.
// Frame totals: the exact route's frame rows say they are exact counts and the sampled route's
// that they are estimates, through FramesStarted into the recording, `xrpm allocations`' JSON
// and a recording it saves.
// --allocations=exact is refused on attach (with the reason; the sampled route attaches:
// dotnet_attach_test.cpp) and --allocations with --no-frame. Waits on frames and
// log lines, bounded; no sleeps.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "dotnet_process.h"
#include "mono_process.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/client/host_client.h"

namespace xrpm::testing {
namespace {

constexpr uint32_t kGarbagePerFrame = 1000;
constexpr const char* kGarbageSizeLine = "Allocations: garbage size ";

// The program under xrpm-dotnet --allocations with its frame method; the size of one Garbage
// from its line (0 when it never came).
struct AllocationsRun {
  explicit AllocationsRun(const std::string& route = "--allocations=exact")
      : run({"--frame", "Allocations.Program:Tick", route}, DotnetProgram("Allocations"),
            {"frames"}) {
    const std::string line = run.proc->log().WaitFor(kGarbageSizeLine, 60000);
    const size_t at = line.find(kGarbageSizeLine);
    if (at != std::string::npos)
      garbage_size = std::strtoull(line.c_str() + at + std::strlen(kGarbageSizeLine), nullptr, 10);
  }
  DotnetRun run;
  uint64_t garbage_size = 0;
};

TEST(DotnetAllocations, FrameRowsCarryTheGameThreadsExactAllocationsAndSamplesTheirStack) {
  SKIP_WITHOUT_DOTNET();
  AllocationsRun a;
  ASSERT_FALSE(a.run.endpoint.empty()) << a.run.proc->log().All();
  ASSERT_GT(a.garbage_size, 0u) << a.run.proc->log().All();
  auto client = ConnectTo(a.run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(16384);
  ASSERT_TRUE(c.WaitFrames(40, 30000)) << c.frames_status().error << a.run.proc->log().All();
  FrameRecording rec;
  c.TakeFrames(&rec);
  ASSERT_GE(rec.frames.size(), 40u);
  EXPECT_EQ(c.frames_status().frame_totals, FrameTotals::kExact);
  EXPECT_EQ(rec.frame_totals, FrameTotals::kExact) << "the exact route counts every allocation";
  size_t checked = 0;
  for (size_t i = 0; i < rec.frames.size(); ++i) {
    const auto& f = rec.frames[i];
    if (i > 0) {
      EXPECT_EQ(f.frame, rec.frames[i - 1].frame + 1) << "consecutive";
    }
    if (f.frame < 3) continue;  // frame 2 also writes the program's lines
    ++checked;
    EXPECT_EQ(f.alloc_objects, kGarbagePerFrame) << "frame " << f.frame;
    EXPECT_EQ(f.alloc_bytes, kGarbagePerFrame * a.garbage_size) << "frame " << f.frame;
  }
  EXPECT_GT(checked, 30u);
  // About 24,000 B a frame at one sample per 16 KiB: ~60 samples over 40 frames.
  size_t garbage = 0, background = 0;
  for (const auto& s : rec.samples) {
    if (rec.TypeName(s.type) == "Allocations.Background") {
      ++background;
      const auto& stack = rec.Stack(s.stack);
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(rec.MethodName(stack[0]), "Allocations.Program.Worker");
      continue;
    }
    if (rec.TypeName(s.type) != "Allocations.Garbage") continue;
    ++garbage;
    EXPECT_EQ(s.size, a.garbage_size);
    const auto& stack = rec.Stack(s.stack);
    ASSERT_GE(stack.size(), 3u);
    EXPECT_EQ(rec.MethodName(stack[0]), "Allocations.Program.MakeGarbage");
    EXPECT_EQ(rec.MethodName(stack[1]), "Allocations.Program.Tick");
    EXPECT_EQ(rec.MethodName(stack[2]), "Allocations.Program.Frames");
  }
  EXPECT_GT(garbage, 10u) << rec.samples.size() << " samples";
  // ~480 KB/s on the other thread: ~20 samples over 40 frames.
  EXPECT_GT(background, 0u) << "samples from every thread";
  // A capture still works: its event masks keep the allocation bits (the runtime refuses a
  // mask that drops them), and frames go on after it.
  std::string error;
  client::CaptureResult res;
  ASSERT_TRUE(c.StartCapture(&error)) << error;
  ASSERT_TRUE(c.WaitCapture(60000, &res)) << a.run.proc->log().All();
  EXPECT_TRUE(res.ok) << res.error << a.run.proc->log().All();
  EXPECT_TRUE(c.WaitFrames(rec.frames.size() + 20, 30000)) << c.frames_status().error;
  EXPECT_EQ(a.run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetAllocations, XrpmAllocationsNamesTheTypeAndTheMethodWithAnEstimateInReason) {
  SKIP_WITHOUT_DOTNET();
  AllocationsRun a;
  ASSERT_FALSE(a.run.endpoint.empty()) << a.run.proc->log().All();
  ASSERT_GT(a.garbage_size, 0u) << a.run.proc->log().All();
  const double per_frame = double(kGarbagePerFrame * a.garbage_size);

  // 150 frames of 24,000 B at one sample per 16 KiB: ~220 samples, a relative error of ~7 %.
  const RunResult by_type = RunXrpm("allocations --connect " + a.run.endpoint +
                                    " --count 150 --duration 60 --by type --json");
  ASSERT_EQ(by_type.exit_code, 0) << by_type.out;
  const auto t = nlohmann::json::parse(by_type.out);
  EXPECT_EQ(t["frames"], 150);
  EXPECT_EQ(t["frame_totals"], "exact");
  // Exact: every frame but possibly frame 2 (its lines) holds the 1,000 objects alone.
  EXPECT_GE(t["exact_bytes_per_frame"].get<double>(), per_frame);
  EXPECT_LE(t["exact_bytes_per_frame"].get<double>(), per_frame * 1.05);
  bool type_found = false;
  for (const auto& row : t["types"]) {
    if (row["type"] != "Allocations.Garbage") continue;
    type_found = true;
    const double est = row["bytes_per_frame"].get<double>();
    EXPECT_NEAR(est, per_frame, per_frame * 0.3) << by_type.out.substr(0, 2000);
  }
  EXPECT_TRUE(type_found) << by_type.out.substr(0, 2000);

  const RunResult by_method = RunXrpm("allocations --connect " + a.run.endpoint +
                                      " --count 60 --duration 60 --by method --json");
  ASSERT_EQ(by_method.exit_code, 0) << by_method.out;
  const auto m = nlohmann::json::parse(by_method.out);
  ASSERT_GT(m["methods"].size(), 0u) << by_method.out.substr(0, 2000);
  EXPECT_EQ(m["methods"][0]["method"], "Allocations.Program.MakeGarbage") << "the top self";

  const RunResult tree =
      RunXrpm("allocations --connect " + a.run.endpoint + " --count 30 --duration 60 --by stack");
  ASSERT_EQ(tree.exit_code, 0) << tree.out;
  EXPECT_NE(tree.out.find("Allocations.Program.Tick"), std::string::npos) << tree.out;
  EXPECT_NE(tree.out.find("Allocations.Program.MakeGarbage"), std::string::npos) << tree.out;
  EXPECT_EQ(a.run.proc->Stop(30000), 128 + SIGTERM);
}

// The runtime's own sampling: its interval, whatever the host asked; both threads' samples with
// their stacks (EventPipe's instruction pointers mapped to methods).
TEST(DotnetAllocations, SampledRouteNamesTheTypesAndMethodsAtTheRuntimesInterval) {
  SKIP_WITHOUT_DOTNET();
  AllocationsRun a("--allocations");
  ASSERT_FALSE(a.run.endpoint.empty()) << a.run.proc->log().All();
  ASSERT_GT(a.garbage_size, 0u) << a.run.proc->log().All();
  EXPECT_FALSE(a.run.proc->log().WaitFor("AllocationSampled over EventPipe", 1000).empty())
      << a.run.proc->log().All();
  auto client = ConnectTo(a.run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(16384);
  // ~24,000 B a frame on the game thread and ~480 KB/s on the other at one sample per 100 KiB:
  // ~30 Garbage and ~25 Background samples over 200 frames.
  ASSERT_TRUE(c.WaitFrames(200, 60000)) << c.frames_status().error << a.run.proc->log().All();
  EXPECT_EQ(c.frames_status().sample_bytes, 102400u) << "the runtime's interval, not 16 KiB";
  EXPECT_EQ(c.frames_status().frame_totals, FrameTotals::kEstimated);
  FrameRecording rec;
  c.TakeFrames(&rec);
  EXPECT_EQ(rec.frame_totals, FrameTotals::kEstimated) << "the frame rows carry sample weights";
  size_t garbage = 0, background = 0;
  for (const auto& s : rec.samples) {
    const auto& stack = rec.Stack(s.stack);
    if (rec.TypeName(s.type) == "Allocations.Background") {
      ++background;
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(rec.MethodName(stack[0]), "Allocations.Program.Worker");
      continue;
    }
    if (rec.TypeName(s.type) != "Allocations.Garbage") continue;
    ++garbage;
    EXPECT_EQ(s.size, a.garbage_size);
    ASSERT_GE(stack.size(), 3u);
    EXPECT_EQ(rec.MethodName(stack[0]), "Allocations.Program.MakeGarbage");
    EXPECT_EQ(rec.MethodName(stack[1]), "Allocations.Program.Tick");
    EXPECT_EQ(rec.MethodName(stack[2]), "Allocations.Program.Frames");
  }
  EXPECT_GT(garbage, 5u) << rec.samples.size() << " samples";
  EXPECT_GT(background, 5u) << "samples from every thread";
  EXPECT_EQ(a.run.proc->Stop(30000), 128 + SIGTERM);
}

// The estimates (the runtime's sampling is unbiased): per type from the samples, and the frame
// rows' (the game thread's samples' weights) over enough frames.
TEST(DotnetAllocations, SampledRouteEstimatesPerTypeAndPerFrameWithinReason) {
  SKIP_WITHOUT_DOTNET();
  AllocationsRun a("--allocations");
  ASSERT_FALSE(a.run.endpoint.empty()) << a.run.proc->log().All();
  ASSERT_GT(a.garbage_size, 0u) << a.run.proc->log().All();
  const double per_frame = double(kGarbagePerFrame * a.garbage_size);
  // 600 frames of 24,000 B at one sample per 100 KiB: ~140 samples, a relative error of ~9 %.
  const TempDir dir("xrpm_dotnet_sampled");
  const std::string saved = dir.Path("sampled.xrpm");
  const RunResult by_type = RunXrpm("allocations --connect " + a.run.endpoint +
                                    " --count 600 --duration 120 --by type --json -o " + saved);
  ASSERT_EQ(by_type.exit_code, 0) << by_type.out;
  const auto t = nlohmann::json::parse(by_type.out);
  EXPECT_EQ(t["frames"], 600);
  EXPECT_EQ(t["sample_bytes"], 102400);
  EXPECT_EQ(t["frame_totals"], "estimated");
  // The saved recording keeps it, and the text says so instead of "exact".
  const RunResult from_file = RunXrpm("allocations " + saved);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.out;
  EXPECT_NE(from_file.out.find("estimated from samples"), std::string::npos) << from_file.out;
  EXPECT_EQ(from_file.out.find("exact"), std::string::npos) << from_file.out;
  // The frame rows carry the estimate: frame 2's lines add a little.
  EXPECT_NEAR(t["exact_bytes_per_frame"].get<double>(), per_frame, per_frame * 0.35)
      << by_type.out.substr(0, 2000);
  bool type_found = false;
  for (const auto& row : t["types"]) {
    if (row["type"] != "Allocations.Garbage") continue;
    type_found = true;
    EXPECT_NEAR(row["bytes_per_frame"].get<double>(), per_frame, per_frame * 0.35)
        << by_type.out.substr(0, 2000);
  }
  EXPECT_TRUE(type_found) << by_type.out.substr(0, 2000);
  EXPECT_EQ(a.run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetAllocations, ExactRefusedOnAttachAndBothWithoutTheFrameHook) {
  SKIP_WITHOUT_DOTNET();
  const RunResult attach = RunDotnetLauncher({"--attach", "1", "--allocations=exact"});
  EXPECT_EQ(attach.exit_code, 2);
  EXPECT_NE(attach.err.find("never on attach"), std::string::npos) << attach.err;
  EXPECT_NE(attach.err.find("--allocations (sampled)"), std::string::npos) << attach.err;
  const RunResult bad_route =
      RunDotnetLauncher({"--allocations=every", "--", DotnetProgram("Graph")});
  EXPECT_EQ(bad_route.exit_code, 2);
  EXPECT_NE(bad_route.err.find("every"), std::string::npos) << bad_route.err;
  const RunResult no_frame =
      RunDotnetLauncher({"--allocations", "--no-frame", "--", DotnetProgram("Graph")});
  EXPECT_EQ(no_frame.exit_code, 2);
  EXPECT_NE(no_frame.err.find("not with --no-frame"), std::string::npos) << no_frame.err;
  const RunResult alone =
      RunDotnetLauncher({"--sample-bytes", "4096", "--", DotnetProgram("Graph")});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--allocations"), std::string::npos) << alone.err;
}

}  // namespace
}  // namespace xrpm::testing
