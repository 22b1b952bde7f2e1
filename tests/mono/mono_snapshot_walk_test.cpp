// ctest-labels: cpu_timing
// The snapshot walk (device-agent/include/xrpm/agent/snapshot_walk.h): a capture walked in a
// copy-on-write child while the program runs on equals the capture walked with the program
// paused (LiveSet.exe's known live set: per class, counts and bytes); a child killed mid-walk
// fails the capture with a message saying so, the program goes on and later captures walk it
// paused; a capture cancelled
// while its walk is replayed kills and reaps the child and the next capture works.
//
// The child is held at a known point by the port's test hook (XRPM_MONO_SNAPSHOT_STOP=1: the
// first snapshot's child stops itself before it walks), found in /proc as the stopped child
// of the mono process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include "mono_process.h"
#include "process_tree.h"
#include "test_util.h"
#include "xrpm/agent/cow_child.h"
#include "xrpm/client/host_client.h"

namespace xrpm::testing {
namespace {

constexpr int kWalkStatics = 300;
constexpr int kWalkLocals = 200;

struct ClassTotal {
  size_t count = 0;
  uint64_t bytes = 0;
  bool operator==(const ClassTotal& o) const { return count == o.count && bytes == o.bytes; }
};

// LiveSet's own classes but its per-frame garbage (a conservative stack slot may keep some).
std::map<std::string, ClassTotal> LiveSetClasses(const Snapshot& s) {
  std::map<std::string, ClassTotal> m;
  for (size_t i = 0; i < s.object_count(); ++i) {
    const std::string& t = s.type_name_of(i);
    if (t.find("LiveSet.") == std::string::npos || t == "LiveSet.Garbage") continue;
    ++m[t].count;
    m[t].bytes += s.object_size[i];
  }
  return m;
}

std::vector<std::string> LiveSetArgs(const std::string& walk) {
  return {"--frame", "LiveSet.Program:Tick", "--frame-window-ms", "30000", "--walk", walk};
}

// A LiveSet whose first snapshot child stops itself (the hook is read when the port is made), a
// host connected to it and a capture started: `child` is the stopped snapshot process (-1, with
// a test failure, when it did not come).
struct HeldCapture {
  HeldCapture() {
    setenv("XRPM_MONO_SNAPSHOT_STOP", "1", 1);
    run = std::make_unique<MonoRun>(
        LiveSetArgs("snapshot"), "LiveSet.exe",
        std::vector<std::string>{std::to_string(kWalkStatics), std::to_string(kWalkLocals)});
    unsetenv("XRPM_MONO_SNAPSHOT_STOP");
    if (run->endpoint.empty() || run->proc->log().WaitFor("LiveSet: ready", 30000).empty()) {
      ADD_FAILURE() << Log();
      return;
    }
    client = ConnectTo(run->endpoint);
    std::string error;
    if (!client || !client->StartCapture(&error)) {
      ADD_FAILURE() << "no capture started: " << error;
      return;
    }
    child = WaitForStoppedGrandchild(run->proc->pid(), 60000);
    if (child <= 0) ADD_FAILURE() << "no stopped snapshot process\n" << Log();
  }
  std::string Log() { return run->proc->log().All(); }

  std::unique_ptr<MonoRun> run;
  std::unique_ptr<client::HostClient> client;
  pid_t child = -1;
};

client::CaptureResult CaptureLiveSet(const std::string& walk, std::string* log) {
  MonoRun run(LiveSetArgs(walk), "LiveSet.exe",
              {std::to_string(kWalkStatics), std::to_string(kWalkLocals)});
  if (run.endpoint.empty() || run.proc->log().WaitFor("LiveSet: ready", 30000).empty()) {
    ADD_FAILURE() << run.proc->log().All();
    return {};
  }
  auto c = ConnectTo(run.endpoint);
  if (!c) return {};
  client::CaptureResult r = CaptureOnce(*c, 120000);
  // Its outcome line (not "capture 1 requested", logged before the walk and its notes).
  run.proc->log().WaitFor("capture 1 done", 30000);
  *log = run.proc->log().All();
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM) << "the program ran until stopped";
  return r;
}

TEST(MonoSnapshotWalk, EqualsThePausedWalkOfTheKnownLiveSet) {
  SKIP_WITHOUT_MONO();
  std::string paused_log, snapshot_log;
  const client::CaptureResult paused = CaptureLiveSet("paused", &paused_log);
  const client::CaptureResult snapshot = CaptureLiveSet("snapshot", &snapshot_log);
  ASSERT_TRUE(paused.ok) << paused.error << "\n" << paused_log;
  ASSERT_TRUE(snapshot.ok) << snapshot.error << "\n" << snapshot_log;
  EXPECT_NE(snapshot_log.find("walked in snapshot process"), std::string::npos) << snapshot_log;
  EXPECT_EQ(paused_log.find("walked in snapshot process"), std::string::npos) << paused_log;
  // The program's pages made writable again after the child, where this kernel can
  // (cow_child.h).
  if (agent::CowChild::MakeWritableAgain().supported) {
    EXPECT_NE(snapshot_log.find("pages writable again"), std::string::npos) << snapshot_log;
  }

  const auto a = LiveSetClasses(*paused.snapshot);
  const auto b = LiveSetClasses(*snapshot.snapshot);
  ASSERT_EQ(a.count("LiveSet.StaticHeld"), 1u);
  EXPECT_EQ(a.at("LiveSet.StaticHeld").count, static_cast<size_t>(kWalkStatics));
  EXPECT_EQ(a.at("LiveSet.LocalHeld").count, static_cast<size_t>(kWalkLocals));
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, total] : a) {
    ASSERT_EQ(b.count(name), 1u) << name;
    EXPECT_EQ(b.at(name).count, total.count) << name;
    EXPECT_EQ(b.at(name).bytes, total.bytes) << name;
  }
  // The same roots by kind, and every reference resolved, in both.
  for (const client::CaptureResult* r : {&paused, &snapshot}) {
    std::map<int, size_t> kinds;
    for (size_t i = 0; i < r->snapshot->root_count(); ++i)
      ++kinds[static_cast<int>(r->snapshot->root_kind_of(i))];
    EXPECT_GT(kinds[static_cast<int>(RootKind::kStatic)], 0u);
    EXPECT_GT(kinds[static_cast<int>(RootKind::kHandle)], 0u);
  }
  EXPECT_GT(snapshot.stats.pause_us, 0u);
  // The agent says where the walk ran: after the pause (snapshot) or in it (paused).
  EXPECT_GT(snapshot.stats.walk_after_pause_us, 0u);
  EXPECT_EQ(paused.stats.walk_after_pause_us, 0u);
}

TEST(MonoSnapshotWalk, AChildKilledMidWalkFailsTheCaptureAndTheGameGoesOn) {
  SKIP_WITHOUT_MONO();
  HeldCapture held;
  ASSERT_GT(held.child, 0);
  MonoRun& run = *held.run;
  client::HostClient& c = *held.client;
  ASSERT_EQ(kill(held.child, SIGKILL), 0);
  client::CaptureResult failed;
  ASSERT_TRUE(c.WaitCapture(60000, &failed));
  EXPECT_FALSE(failed.ok);
  EXPECT_NE(failed.error.find("the snapshot process was killed by signal 9"), std::string::npos)
      << failed.error;
  EXPECT_NE(failed.error.find("walk stream: byte 0: expected the first record"), std::string::npos)
      << failed.error;
  EXPECT_TRUE(Gone(held.child)) << "reaped before the capture ended";
  ASSERT_FALSE(
      run.proc->log().WaitFor("the game will be paused for the walk from now on", 30000).empty())
      << held.Log();
  // The program went on: the next capture walks the known live set, paused now.
  const client::CaptureResult again = CaptureOnce(c, 120000);
  ASSERT_TRUE(again.ok) << again.error << "\n" << held.Log();
  const auto classes = LiveSetClasses(*again.snapshot);
  ASSERT_EQ(classes.count("LiveSet.StaticHeld"), 1u);
  EXPECT_EQ(classes.at("LiveSet.StaticHeld").count, static_cast<size_t>(kWalkStatics));
  EXPECT_EQ(classes.at("LiveSet.LocalHeld").count, static_cast<size_t>(kWalkLocals));
  EXPECT_EQ(again.stats.walk_after_pause_us, 0u) << "walked with the program paused";
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM) << "the program ran until stopped";
}

TEST(MonoSnapshotWalk, ACancelDuringTheReplayKillsAndReapsTheChild) {
  SKIP_WITHOUT_MONO();
  HeldCapture held;
  ASSERT_GT(held.child, 0);
  MonoRun& run = *held.run;
  client::HostClient& c = *held.client;
  c.CancelCapture();
  client::CaptureResult cancelled;
  ASSERT_TRUE(c.WaitCapture(20000, &cancelled));
  EXPECT_EQ(cancelled.error, "capture cancelled");
  // The agent retires the capture once the replay stopped, and the child with it.
  ASSERT_FALSE(WaitCaptureOutcome(run.proc->log(), "1", 60000).empty()) << held.Log();
  ASSERT_FALSE(run.proc->log()
                   .WaitFor("found the replay was stopped; the snapshot process was killed", 30000)
                   .empty())
      << held.Log();
  EXPECT_TRUE(Gone(held.child)) << "killed and reaped";
  // A cancel is not a broken snapshot: the next capture is a snapshot walk again.
  const client::CaptureResult again = CaptureOnce(c, 120000);
  ASSERT_TRUE(again.ok) << again.error << "\n" << held.Log();
  EXPECT_EQ(LiveSetClasses(*again.snapshot).at("LiveSet.StaticHeld").count,
            static_cast<size_t>(kWalkStatics));
  EXPECT_GT(again.stats.walk_after_pause_us, 0u);
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

}  // namespace
}  // namespace xrpm::testing
