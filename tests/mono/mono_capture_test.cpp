// ctest-labels: cpu_timing
// Captures of real C# programs running under Mono with the xrpm agent inside (xrpm-mono):
// a live set known by construction (LiveSet.exe), at the frame boundary and at a safe point;
// counters that move; captures in a row; a host killed mid-capture; hostile peers and tokens
// answered as the emulator's agent answers them.
//
// Conservative stack scanning: Mono scans thread stacks conservatively, so a stale stack slot
// can keep an object of the frame being left alive in the capture's collection. The program
// allocates its garbage in a callee of the frame method, so at most a few Garbage objects can
// be kept that way; the tests allow kConservativeSlack of them and none of anything else.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include "hostile_attacks.h"
#include "mono_process.h"
#include "test_heaps.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"

#ifndef XRPM_CLI_BIN
#define XRPM_CLI_BIN ""
#endif

namespace xrpm::testing {
namespace {

constexpr size_t kConservativeSlack = 4;
// The frame-boundary window these tests run with: a capture waits for the frame method's return
// if it returned within the last 30 s (default 1 s), so a loaded machine that stalls the program
// for a second does not turn a frame-boundary capture into a safe-point one.
const std::vector<std::string> kFrameWindow = {"--frame-window-ms", "30000"};
constexpr int kStatics = 300;  // N, held by the static list
constexpr int kLocals = 200;   // M, held by a local of Main

size_t ObjectIndexOfType(const Snapshot& s, const std::string& type) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.type_name_of(i) == type) return i;
  return kNoIndex;
}

std::string TypeNameOfId(const Snapshot& s, TypeId id) {
  for (const auto& t : s.types)
    if (t.id == id) return t.name;
  return "";
}

client::CaptureResult CaptureFrom(const std::string& endpoint, const std::string& token = "") {
  auto c = ConnectTo(endpoint, token);
  if (!c) return {};
  return CaptureOnce(*c, 120000);
}

// The known live set, whatever stopped the program.
void ExpectKnownLiveSet(const Snapshot& s) {
  const auto n = CountByType(s);
  auto count = [&](const std::string& t) { return n.count(t) ? n.at(t) : size_t{0}; };
  EXPECT_EQ(count("LiveSet.StaticHeld"), static_cast<size_t>(kStatics));
  EXPECT_EQ(count("LiveSet.LocalHeld"), static_cast<size_t>(kLocals));
  EXPECT_EQ(count("LiveSet.WeakOnly"), 0u) << "reachable only through a weak reference";
  EXPECT_LE(count("LiveSet.Garbage"), kConservativeSlack) << "garbage of earlier frames";

  // The static list is rooted as a static whose container is its declaring class.
  const size_t list = ObjectIndexOfType(s, "System.Collections.Generic.List<LiveSet.StaticHeld>");
  ASSERT_NE(list, kNoIndex);
  bool static_root = false;
  for (size_t r = 0; r < s.root_count(); ++r)
    if (s.root_object[r] == s.object_id[list] && s.root_kind_of(r) == RootKind::kStatic) {
      static_root = true;
      EXPECT_EQ(TypeNameOfId(s, s.root_container[r]), "LiveSet.Holder");
    }
  EXPECT_TRUE(static_root) << "the static list is a static root";

  // The pinned array is held by a pinned GC handle.
  const size_t blit = ObjectIndexOfType(s, "LiveSet.Blit[]");
  ASSERT_NE(blit, kNoIndex);
  bool pinned = false;
  for (size_t r = 0; r < s.root_count(); ++r)
    if (s.root_object[r] == s.object_id[blit] && s.root_kind_of(r) == RootKind::kHandle &&
        (s.root_flags[r] & kRootPinned))
      pinned = true;
  EXPECT_TRUE(pinned) << "the pinned array's handle root carries the pinned flag";

  // SGen scans stacks conservatively: every stack root says so, no other root does.
  size_t locals = 0;
  for (size_t r = 0; r < s.root_count(); ++r) {
    const bool local = s.root_kind_of(r) == RootKind::kLocal;
    locals += local;
    EXPECT_EQ((s.root_flags[r] & kRootConservative) != 0, local) << "root " << r;
  }
  EXPECT_GT(locals, 0u);

  // Every reference and root names a captured object (the walk saw live objects only).
  std::unordered_set<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  size_t dangling = 0;
  for (ObjectId r : s.refs) dangling += !ids.count(r);
  for (ObjectId r : s.root_object) dangling += !ids.count(r);
  EXPECT_EQ(dangling, 0u);
}

TEST(MonoCapture, KnownLiveSetAtTheFrameBoundary) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "LiveSet.Program:Tick", kFrameWindow[0], kFrameWindow[1]}, "LiveSet.exe",
              {std::to_string(kStatics), std::to_string(kLocals)});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("LiveSet: ready", 30000).empty()) << run.proc->log().All();
  const client::CaptureResult r = CaptureFrom(run.endpoint);
  ASSERT_TRUE(r.ok) << r.error << "\n" << run.proc->log().All();
  ExpectKnownLiveSet(*r.snapshot);
  EXPECT_GT(r.stats.pause_us, 0u);
  EXPECT_NE(run.proc->log().WaitFor("at the frame boundary (LiveSet.Program:Tick)", 30000), "")
      << run.proc->log().All();

  // A second capture in a row: the same live set (the objects may have moved).
  const client::CaptureResult again = CaptureFrom(run.endpoint);
  ASSERT_TRUE(again.ok) << again.error;
  ExpectKnownLiveSet(*again.snapshot);
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM) << "the program ran until stopped";
}

TEST(MonoCapture, WithoutTheFrameMethodAtTheNextSafePoint) {
  SKIP_WITHOUT_MONO();
  // The default frame method never runs: even a frame window of 30 s does not wait for it.
  MonoRun run(kFrameWindow, "LiveSet.exe",
              {std::to_string(kStatics), std::to_string(kLocals), "--no-frame"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("LiveSet: ready", 30000).empty());
  const client::CaptureResult r = CaptureFrom(run.endpoint);
  ASSERT_TRUE(r.ok) << r.error << "\n" << run.proc->log().All();
  ExpectKnownLiveSet(*r.snapshot);
  EXPECT_NE(run.proc->log().WaitFor(
                "at the next safe point (no frame method ran in the last 30000 ms)", 30000),
            "")
      << run.proc->log().All();
}

TEST(MonoCapture, CountersChangeAsTheProgramAllocatesAndCollects) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "LiveSet.Program:Tick"}, "LiveSet.exe", {"10", "10"});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  // Frames have run: the first collection's memory counters are in.
  ASSERT_FALSE(run.proc->log().WaitFor("LiveSet: ready", 30000).empty()) << run.proc->log().All();
  auto client = ConnectTo(run.endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeCounters(100);
  ASSERT_TRUE(c.WaitCounterSamples(2, 30000));
  const client::CounterHistory& h = c.counters();
  const int gcs = h.Find("Garbage Collections (GC)");
  const int in_use = h.Find("Managed Bytes In Use After GC");
  const int jitted = h.Find("Methods Jitted");
  ASSERT_GE(gcs, 0);
  ASSERT_GE(in_use, 0);
  ASSERT_GE(jitted, 0);
  EXPECT_EQ(h.Find("Managed Objects Allocated"), -1) << "not reported by Mono: not sent";
  client::CounterSampleRow first;
  ASSERT_TRUE(h.Latest(&first));
  // ~300 KB of garbage per frame: several collections a second while the program runs. Wait
  // sample by sample until the count rises (bounded: 30 s), however slowly a loaded machine
  // lets the program run its frames.
  client::CounterSampleRow later;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    ASSERT_TRUE(c.WaitCounterSamples(h.received() + 1, 30000));
    ASSERT_TRUE(h.Latest(&later));
  } while (later.values[gcs].total <= first.values[gcs].total &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_GT(later.values[gcs].total, first.values[gcs].total);
  EXPECT_GT(later.values[in_use].last, 0);
  EXPECT_GT(later.values[jitted].total, 0);
}

TEST(MonoCapture, HostKilledMidCaptureLeavesTheProgramRunning) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "LiveSet.Program:Tick"}, "LiveSet.exe",
              {std::to_string(kStatics), std::to_string(kLocals)});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("LiveSet: ready", 30000).empty());
  {
    BackgroundProcess host(
        {XRPM_CLI_BIN, "capture", "--connect", run.endpoint, "-o", "/dev/null", "--json"});
    ASSERT_FALSE(run.proc->log().WaitFor("capture 1 requested", 20000).empty())
        << run.proc->log().All();
    kill(host.pid(), SIGKILL);
  }
  // The agent drops the silent host after its peer timeout (5 s) and ends the capture.
  ASSERT_FALSE(run.proc->log().WaitFor("disconnected", 30000).empty()) << run.proc->log().All();
  // The agent notices, the program goes on, and a new host captures it.
  const client::CaptureResult r = CaptureFrom(run.endpoint);
  ASSERT_TRUE(r.ok) << r.error << "\n" << run.proc->log().All();
  ExpectKnownLiveSet(*r.snapshot);
  EXPECT_EQ(waitpid(run.proc->pid(), nullptr, WNOHANG), 0) << "the program still runs";
}

TEST(MonoCapture, HostilePeersAndTokensAreAnsweredAsByTheEmulator) {
  SKIP_WITHOUT_MONO();
  const std::string token = "0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f";
  MonoRun run({"--token", token, kFrameWindow[0], kFrameWindow[1]}, "XnaBubbles.exe", {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("XnaBubbles: running", 30000).empty())
      << run.proc->log().All();
  for (int round = 0; round < 3; ++round)
    for (int k = 0; k < kAttackKinds; ++k)
      EXPECT_EQ(Attack(run.port, k), kAttackAnswers[k]) << "kind " << k;
  EXPECT_EQ(run.proc->log().WaitCount("refused 127.0.0.1:", 3 * kAttackKinds, 30000),
            static_cast<size_t>(3 * kAttackKinds));
  // A host without the token is refused; with it, it captures the game.
  client::ClientOptions o;
  o.endpoint = run.endpoint;
  client::HostClient wrong(o);
  wrong.Connect();
  std::string error;
  EXPECT_FALSE(wrong.WaitConnected(10000, &error));
  wrong.Disconnect();
  const client::CaptureResult r = CaptureFrom(run.endpoint, token);
  ASSERT_TRUE(r.ok) << r.error;
  const auto n = CountByType(*r.snapshot);
  EXPECT_GT(n.count("XnaBubbles.Bubble") ? n.at("XnaBubbles.Bubble") : 0, 100u);
  EXPECT_NE(
      run.proc->log().WaitFor("at the frame boundary (Microsoft.Xna.Framework.Game:Tick)", 30000),
      "")
      << run.proc->log().All();
}

}  // namespace
}  // namespace xrpm::testing
