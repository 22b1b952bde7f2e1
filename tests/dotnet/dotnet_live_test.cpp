// Live channels on .NET: frame records from xrpm-dotnet (dotnet_frames.h) and the counters. The
// sample game XnaBubbles runs Microsoft.Xna.Framework.Game:Tick; with --collect-at N it calls
// GC.Collect(2) in the update of frame N, so that frame's record must hold a collection. Rows
// arrive in order, frame numbers consecutive; `xrpm frames --connect` prints them. Waits on
// frames and log lines, bounded; no sleeps.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "device_link_poll.h"
#include "dotnet_process.h"
#include "mono_process.h"
#include "temp_dir.h"
#include "test_util.h"
#include "tool_process.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/app/device_link.h"
#include "xrpm/client/host_client.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::testing {
namespace {

TEST(DotnetLive, FrameRowsArriveInOrderAndAForcedCollectionIsInItsFrame) {
  SKIP_WITHOUT_DOTNET();
  // Frame 150: after the subscription started (a loaded machine may take seconds to connect;
  // at 60 frames a second that is 2.5 s, and the test waits for frames before deciding).
  constexpr uint64_t kCollectAt = 150;
  DotnetRun run({}, DotnetProgram("XnaBubbles"), {"--collect-at", std::to_string(kCollectAt)});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(65536);
  FrameRecording rec;
  bool seen = false;
  // Bounded: at most 120 waits of up to 1 s for more rows.
  for (int i = 0; i < 120 && !seen; ++i) {
    c.WaitFrames(rec.frames.size() + 30, 1000);
    ASSERT_TRUE(c.frames_status().error.empty()) << c.frames_status().error;
    c.TakeFrames(&rec);
    seen = !rec.frames.empty() && rec.frames.back().frame > kCollectAt;
  }
  ASSERT_TRUE(seen) << rec.frames.size() << " rows" << run.proc->log().All();
  ASSERT_LE(rec.frames.front().frame, kCollectAt) << "subscribed too late for the test's frame";
  bool found = false;
  for (size_t i = 0; i < rec.frames.size(); ++i) {
    const auto& f = rec.frames[i];
    if (i > 0) {
      EXPECT_EQ(f.frame, rec.frames[i - 1].frame + 1) << "consecutive";
      EXPECT_GT(f.end_us, rec.frames[i - 1].end_us);
      EXPECT_GT(f.duration_us, 0u) << "frame " << f.frame;
    }
    EXPECT_LE(f.work_us, f.duration_us == 0 ? f.work_us : f.duration_us) << "frame " << f.frame;
    EXPECT_EQ(f.gc_budget_left, -1) << "CoreCLR has no byte budget";
    if (f.gcs == 0) {
      EXPECT_EQ(f.gc_pause_us, 0u) << "frame " << f.frame;
    }
    EXPECT_EQ(protocol::GcKindCount(f.gc_kinds), std::min<size_t>(f.gcs, protocol::kMaxGcKinds))
        << "every collection of frame " << f.frame << " has its kind";
    if (f.frame == kCollectAt) {
      found = true;
      EXPECT_GE(f.gcs, 1u) << "GC.Collect(2) ran in frame " << kCollectAt;
      bool induced_full = false;  // GC.Collect(2): generation 2, induced
      for (size_t k = 0; k < protocol::GcKindCount(f.gc_kinds); ++k) {
        const protocol::GcKind kind = protocol::GcKindAt(f.gc_kinds, k);
        induced_full |= kind.generation == 2 && kind.reason == protocol::GcReason::kInduced;
      }
      EXPECT_TRUE(induced_full) << "kinds of frame " << kCollectAt << ": "
                                << analysis::GcKindsText(f.gc_kinds);
      EXPECT_GT(f.gc_pause_us, 0u);
      EXPECT_GE(f.work_us, f.gc_pause_us) << "the collection ran inside the frame's work";
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetLive, TheFramesVerbPrintsTheGame) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-live");
  DotnetRun run({}, DotnetProgram("XnaBubbles"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  const RunResult r =
      RunXrpm("frames --connect " + run.endpoint + " --count 60 --csv " + dir.Path("f.csv"), true);
  ASSERT_EQ(r.exit_code, 0) << r.out << run.proc->log().All();
  EXPECT_NE(r.out.find("frames"), std::string::npos) << r.out;
  std::ifstream in(dir.Path("f.csv"));
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(csv.rfind("frame,ms,work_ms,", 0), 0u) << csv;
  EXPECT_GE(std::count(csv.begin(), csv.end(), '\n'), 61) << csv;
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetLive, WithoutTheFrameHookFramesAreRefused) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({"--no-frame"}, DotnetProgram("XnaBubbles"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(65536);
  for (int i = 0; i < 150 && c.frames_status().error.empty(); ++i)
    EXPECT_FALSE(c.WaitFrames(1, 200));
  EXPECT_NE(c.frames_status().error.find("does not report frames"), std::string::npos)
      << c.frames_status().error;
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

TEST(DotnetLive, CountersAtTheChosenInterval) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({}, DotnetProgram("XnaBubbles"), {"--collect-at", "1"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("XnaBubbles: running", 30000).empty());
  const RunResult r =
      RunXrpm("counters --connect " + run.endpoint + " --duration 2 --interval 250 --json", true);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["interval_ms"], 250) << r.out;
  EXPECT_GE(j["samples"].get<int>(), 4) << "2 s at 250 ms: " << r.out;
  auto total = [&](const std::string& name) -> int64_t {
    for (const auto& c : j["counters"])
      if (c["name"] == name) return c["total"].get<int64_t>();
    return -1;  // absent
  };
  EXPECT_GE(total("Garbage Collections (GC)"), 1) << r.out;
  EXPECT_GE(total("Calls to GC.Collect"), 1) << "GC.Collect(2) in frame 1: " << r.out;
  EXPECT_GT(total("Classes Loaded"), 10) << r.out;
  EXPECT_GE(total("GC Latency Time (ms)"), 0) << r.out;
  EXPECT_GT(total("Managed Bytes Allocated"), 0) << r.out;
  EXPECT_EQ(total("Objects Finalized"), -1) << "not reported by this port: absent, not zero";
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

// "Managed Bytes Allocated" against the runtime's own count: Allocations' bench mode allocates
// 3,000,000 32-byte objects between two lines of a gate, then prints
// GC.GetTotalAllocatedBytes(true) and waits at the gate; a capture's full collection then counts
// what generation 0 still holds, so the counter equals the runtime's figure but for what a
// collection left in generation 0 (little here: one object in 64 survives, and moves out).
TEST(DotnetLive, BytesAllocatedFollowTheRuntimesCount) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-allocated");
  const std::string gate = dir.Path("gate");
  ASSERT_EQ(mkfifo(gate.c_str(), 0600), 0);
  DotnetRun run({"--no-frame"}, DotnetProgram("Allocations"),
                {"bench", "3000000", "1", "--gate", gate});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  const int fd = open(gate.c_str(), O_WRONLY);  // the program opens it at start
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "go\n", 3), 3);
  const std::string line = run.proc->log().WaitFor("total_bytes ", 120000);
  ASSERT_FALSE(line.empty()) << run.proc->log().All();
  const double runtime_total =
      std::strtod(line.c_str() + line.find("total_bytes ") + std::strlen("total_bytes "), nullptr);
  ASSERT_GT(runtime_total, 96e6) << line;  // 3 M x 32 bytes at least
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  const client::CaptureResult cap = CaptureOnce(*client, 120000);
  ASSERT_TRUE(cap.ok) << cap.error;
  client->SubscribeCounters(100);
  const uint64_t before = client->counters().received();
  ASSERT_TRUE(client->WaitCounterSamples(before + 2, 30000));
  client::CounterSampleRow row;
  ASSERT_TRUE(client->counters().Latest(&row));
  const int at = client->counters().Find(protocol::NetcfCounter::kManagedBytesAllocated);
  ASSERT_GE(at, 0);
  const double counted = static_cast<double>(row.values[static_cast<size_t>(at)].total);
  EXPECT_NEAR(counted / runtime_total, 1.0, 0.05)
      << "counted " << counted << ", GC.GetTotalAllocatedBytes " << runtime_total;
  (void)!write(fd, "done\n", 5);
  close(fd);
  EXPECT_EQ(run.proc->Wait(60000), 0) << run.proc->log().All();
}

// The monitor's "Launch C# sample game under .NET" (DeviceSession::LaunchDotnet): its link starts
// xrpm-dotnet on a fixed port, connects, and the Timeline's frames subscription gets rows;
// Disconnect stops the program.
// A port for the monitor's launch (which names it): below the ephemeral ports, by process.
int LaunchPort() {
  int low = 0;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low;
  if (low <= 11000) low = 32768;
  return 10000 + int((getpid() + 7) % (low - 10000));
}

TEST(DotnetLive, TheMonitorsLaunchConnectsAndRecordsFrames) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-launch");
  const int port = LaunchPort();
  app::DeviceLink link;
  std::string error;
  ASSERT_TRUE(link.LaunchDotnet(DotnetLauncher(), DotnetProgram("XnaBubbles"), port,
                                dir.Path("dotnet.log"), &error))
      << error;
  ASSERT_EQ(PollUntilSettled(link), app::DeviceLink::Phase::kConnected) << link.error();
  EXPECT_EQ(link.client()->device().app_name, "XnaBubbles.dll");
  link.client()->SubscribeFrames(65536);
  EXPECT_TRUE(link.client()->WaitFrames(10, 30000)) << link.client()->frames_status().error;
  link.Disconnect();
  EXPECT_FALSE(link.emulator_running());
}

TEST(DotnetLive, TheMonitorsLaunchWithAllocationSamples) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-launch");
  app::DeviceLink link;
  std::string error;
  // What the monitor passes with "Allocation samples" on (DeviceSession::AgentArgs).
  ASSERT_TRUE(link.LaunchDotnet(DotnetLauncher(), DotnetProgram("Allocations"), LaunchPort(),
                                dir.Path("dotnet.log"), &error, {"frames"},
                                {"--frame", "Allocations.Program:Tick", "--allocations"}))
      << error;
  ASSERT_EQ(PollUntilSettled(link), app::DeviceLink::Phase::kConnected) << link.error();
  link.client()->SubscribeFrames(65536);
  // ~24,000 B a frame at one sample per 100 KiB: a sample every ~4 frames.
  ASSERT_TRUE(link.client()->WaitFrames(80, 60000)) << link.client()->frames_status().error;
  FrameRecording rec;
  link.client()->TakeFrames(&rec);
  size_t garbage = 0;
  for (const auto& sample : rec.samples)
    garbage += rec.TypeName(sample.type) == "Allocations.Garbage";
  EXPECT_GT(garbage, 3u) << rec.samples.size() << " samples";
  link.Disconnect();
  EXPECT_FALSE(link.emulator_running());
}

}  // namespace
}  // namespace xrpm::testing
