// xrpm-dotnet --attach PID against real .NET processes: the Graph program started by plain
// `dotnet` (no agent), attached through its diagnostics socket, then captured with the `xrpm`
// CLI (the program's types counted exactly, its statics named although their classes were loaded
// before the attach, its values read from the second capture on), and every refusal with its
// one-line message and exit code, the process running on: a process that does not exist, one that
// is not .NET, an agent whose port is in use (the program goes on, a second attach works), a second
// attach, and a process killed during a capture (the capture says so and saves nothing). Held by
// its gate (graph_run.h), never by sleeps. A game attached with --frame and --allocations (the
// Allocations program, its frames running before the attach) gets its frame method hooked after
// the fact: captures at its frame boundary, consecutive frame rows, and allocation samples with
// the frame method on their stacks.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>
#include <unordered_map>

#include "device_link_poll.h"
#include "dotnet_process.h"
#include "graph_run.h"
#include "mono_process.h"
#include "temp_dir.h"
#include "test_heaps.h"
#include "tool_process.h"
#include "xrpm/app/device_link.h"
#include "xrpm/app/dotnet_processes.h"
#include "xrpm/client/host_client.h"

namespace xrpm::testing {
namespace {

// Graph under plain `dotnet`, held after "ready" by its gate.
struct AttachTarget {
  explicit AttachTarget(int items = kItems)
      : gate(dir.Path("gate")),
        gate_fd(mkfifo(gate.c_str(), 0600) == 0 ? open(gate.c_str(), O_RDWR | O_CLOEXEC) : -1),
        proc({DotnetExecutable(), DotnetProgram("Graph"), std::to_string(items),
              std::to_string(kEntries), std::to_string(kNodes), "--gate", gate}) {
    ready = !proc.log().WaitFor("Graph: ready", 60000).empty();
  }
  ~AttachTarget() {
    if (gate_fd >= 0) close(gate_fd);
  }
  std::string pid() const { return std::to_string(proc.pid()); }
  RunResult Attach(const std::vector<std::string>& more = {"--port", "0"}) {
    std::vector<std::string> args = {"--attach", pid()};
    args.insert(args.end(), more.begin(), more.end());
    return RunDotnetLauncher(args);
  }
  // Lets the program end by itself; its exit code.
  int Release() {
    EXPECT_EQ(write(gate_fd, "go\n", 3), 3);
    return proc.Wait(60000);
  }
  TempDir dir{"xrpm-attach"};
  std::string gate;
  int gate_fd;
  BackgroundProcess proc;
  bool ready = false;
};

std::string EndpointIn(const std::string& text) {
  const size_t at = text.find("listening on 127.0.0.1:");
  if (at == std::string::npos) return "";
  const std::string from = text.substr(at + 13);
  return from.substr(0, from.find(' '));
}

TEST(DotnetAttach, AttachedProcessIsCapturedWithItsKnownObjects) {
  SKIP_WITHOUT_DOTNET();
  AttachTarget t;
  ASSERT_TRUE(t.ready) << t.proc.log().All();
  const RunResult a = t.Attach();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const std::string endpoint = EndpointIn(a.err);
  ASSERT_FALSE(endpoint.empty()) << a.err;
  EXPECT_NE(a.err.find("attached"), std::string::npos) << a.err;
  EXPECT_FALSE(t.proc.log().WaitFor("attached to process " + t.pid(), 10000).empty())
      << t.proc.log().All();
  TempDir out;
  const Snapshot s = CaptureWithCli(endpoint, out.Path("a.xrpm"));
  const auto n = CountByType(s);
  auto count = [&](const std::string& type) { return n.count(type) ? n.at(type) : size_t{0}; };
  EXPECT_EQ(count("Graph.Item"), static_cast<size_t>(kItems));
  EXPECT_EQ(count("Graph.Entry"), static_cast<size_t>(kEntries));
  EXPECT_EQ(count("Graph.Node"), static_cast<size_t>(kNodes));
  EXPECT_EQ(count("Graph.WeakOnly"), 0u) << "only weakly reachable";
  EXPECT_EQ(count("Graph.Garbage"), 0u) << "dropped before ready";
  // The program's statics, although their classes were loaded before the attach (found from
  // the compiled code at the first capture: Graph.Holder's static constructor).
  std::map<std::string, std::string> static_roots = StaticRootTypes(s);
  EXPECT_EQ(static_roots["Graph.Holder.Items"], "System.Collections.Generic.List<Graph.Item>");
  EXPECT_EQ(static_roots["Graph.Holder.Planted"],
            "System.Collections.Generic.List<Graph.StaticOnly>");
  // A second capture of the same process: the classes the first one met have their fields read.
  const std::string second = out.Path("b.xrpm");
  const Snapshot again = CaptureWithCli(endpoint, second);
  EXPECT_EQ(CountByType(again)["Graph.Item"], static_cast<size_t>(kItems));
  const RunResult sample = RunXrpm("instances " + second + " Graph.Sample", true);
  ASSERT_EQ(sample.exit_code, 0) << sample.out;
  for (const char* value : {" 42 ", "true", "Happy", "Friday", "\"sample-300\""})
    EXPECT_NE(sample.out.find(value), std::string::npos) << value << "\n" << sample.out;
  EXPECT_EQ(t.Release(), 0) << t.proc.log().All();
}

TEST(DotnetAttach, AnAttachedGameIsCapturedBetweenFramesAndSamplesItsAllocations) {
  SKIP_WITHOUT_DOTNET();
  BackgroundProcess game({DotnetExecutable(), DotnetProgram("Allocations"), "frames"});
  ASSERT_FALSE(game.log().WaitFor("Allocations: garbage size ", 60000).empty()) << game.log().All();
  const RunResult a = RunDotnetLauncher({"--attach", std::to_string(game.pid()), "--port", "0",
                                         "--frame", "Allocations.Program:Tick", "--allocations"});
  ASSERT_EQ(a.exit_code, 0) << a.err << game.log().All();
  const std::string endpoint = EndpointIn(a.err);
  ASSERT_FALSE(endpoint.empty()) << a.err;
  auto client = ConnectTo(endpoint);
  ASSERT_TRUE(client);
  client::HostClient& c = *client;
  c.SubscribeFrames(16384);
  // The method is compiled again at its next call after the attach: frames from then on.
  ASSERT_TRUE(c.WaitFrames(120, 60000)) << c.frames_status().error << game.log().All();
  FrameRecording rec;
  c.TakeFrames(&rec);
  for (size_t i = 1; i < rec.frames.size(); ++i)
    EXPECT_EQ(rec.frames[i].frame, rec.frames[i - 1].frame + 1) << "consecutive";
  // ~24,000 B a frame at the runtime's one sample per 100 KiB: ~28 samples in 120 frames.
  size_t garbage = 0;
  for (const auto& sample : rec.samples) {
    if (rec.TypeName(sample.type) != "Allocations.Garbage") continue;
    ++garbage;
    const auto& stack = rec.Stack(sample.stack);
    ASSERT_GE(stack.size(), 2u);
    EXPECT_EQ(rec.MethodName(stack[0]), "Allocations.Program.MakeGarbage");
    EXPECT_EQ(rec.MethodName(stack[1]), "Allocations.Program.Tick");
  }
  EXPECT_GT(garbage, 3u) << rec.samples.size() << " samples";
  std::string error;
  client::CaptureResult res;
  ASSERT_TRUE(c.StartCapture(&error)) << error;
  ASSERT_TRUE(c.WaitCapture(60000, &res)) << game.log().All();
  EXPECT_TRUE(res.ok) << res.error;
  EXPECT_FALSE(
      game.log()
          .WaitFor("the game was stopped at the frame boundary (Allocations.Program:Tick)", 30000)
          .empty())
      << game.log().All();
  EXPECT_EQ(game.log().All().find("is not hooked"), std::string::npos) << game.log().All();
  game.Stop(30000);
}

TEST(DotnetAttach, RefusesWhatItCannotAttachTo) {
  SKIP_WITHOUT_DOTNET();
  // A PID that is free: a child that ended and was reaped.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  waitpid(gone, nullptr, 0);
  const RunResult none = RunDotnetLauncher({"--attach", std::to_string(gone)});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no process " + std::to_string(gone)), std::string::npos) << none.err;
  // This test program: running, not .NET, even with a socket an earlier process of its PID left
  // (a killed .NET program's: its key is not this process's start time).
  const std::string stale = "/tmp/dotnet-diagnostic-" + std::to_string(getpid()) + "-1-socket";
  std::ofstream(stale).put('x');
  const RunResult native = RunDotnetLauncher({"--attach", std::to_string(getpid())});
  unlink(stale.c_str());
  EXPECT_EQ(native.exit_code, 2);
  EXPECT_NE(native.err.find("has no .NET diagnostics socket"), std::string::npos) << native.err;
  for (const RunResult* r : {&none, &native}) {
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << "one line: " << r->err;
  }
  const RunResult both = RunDotnetLauncher({"--attach", "1", "--", DotnetProgram("Graph")});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
  const RunResult zero = RunDotnetLauncher({"--attach", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("expected a process id"), std::string::npos) << zero.err;
}

TEST(DotnetAttach, PortInUseIsRefusedInsideAndTheProgramRunsOn) {
  SKIP_WITHOUT_DOTNET();
  AttachTarget first, second(10);
  ASSERT_TRUE(first.ready && second.ready) << first.proc.log().All() << second.proc.log().All();
  const RunResult a = first.Attach();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const std::string port = EndpointIn(a.err).substr(10);
  const RunResult taken = second.Attach({"--port", port});
  EXPECT_EQ(taken.exit_code, 2) << taken.err;
  EXPECT_NE(taken.err.find("the agent did not start in process " + second.pid()), std::string::npos)
      << taken.err;
  EXPECT_NE(taken.err.find("address in use"), std::string::npos) << taken.err;
  EXPECT_NE(taken.err.find("runs on without it"), std::string::npos) << taken.err;
  // The refused profiler is gone: attaching again with a free port works.
  const RunResult retry = second.Attach();
  EXPECT_EQ(retry.exit_code, 0) << retry.err << second.proc.log().All();
  // A second attach to a process that has the agent is refused.
  const RunResult twice = first.Attach();
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("a profiler is already loaded"), std::string::npos) << twice.err;
  // Both programs ran on and end normally.
  EXPECT_EQ(second.Release(), 0) << second.proc.log().All();
  EXPECT_EQ(first.Release(), 0) << first.proc.log().All();
}

TEST(DotnetAttach, ProcessKilledDuringACaptureFailsItWithoutAFile) {
  SKIP_WITHOUT_DOTNET();
  AttachTarget t(200000);  // a capture long enough to be inside it when the process goes
  ASSERT_TRUE(t.ready) << t.proc.log().All();
  const RunResult a = t.Attach();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  TempDir out;
  const std::string file = out.Path("mid.xrpm");
  BackgroundProcess host({XRPM_CLI_BIN, "capture", "--connect", EndpointIn(a.err), "-o", file});
  ASSERT_FALSE(t.proc.log().WaitFor("capture 1 requested", 30000).empty()) << t.proc.log().All();
  kill(t.proc.pid(), SIGKILL);
  EXPECT_EQ(host.Wait(60000), 1) << host.log().All();
  EXPECT_NE(host.log().All().find("nothing was saved"), std::string::npos) << host.log().All();
  struct stat st {};
  EXPECT_NE(stat(file.c_str(), &st), 0) << "no partial file";
}

// A process whose TMPDIR differs from the launcher's (its socket is there: read from its
// environment), attached with --listen and a token, which the agent then asks every host for.
TEST(DotnetAttach, TheProcessTmpdirAndAToken) {
  SKIP_WITHOUT_DOTNET();
  TempDir tmp("xrpm-attach-tmpdir");
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir ? old_tmpdir : "";
  setenv("TMPDIR", tmp.path().c_str(), 1);
  AttachTarget t;
  if (old_tmpdir)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  ASSERT_TRUE(t.ready) << t.proc.log().All();
  const RunResult a = t.Attach({"--listen", "127.0.0.1:0", "--token", "s3cret"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const std::string endpoint = EndpointIn(a.err);
  ASSERT_FALSE(endpoint.empty()) << a.err;
  TempDir out;
  const RunResult without = RunXrpm(
      "capture --connect " + endpoint + " -o " + out.Path("no.xrpm") + " --connect-timeout 3",
      true);
  EXPECT_NE(without.exit_code, 0) << without.out;
  const Snapshot s = CaptureWithCli(endpoint, out.Path("yes.xrpm"), " --token s3cret");
  EXPECT_EQ(CountByType(s)["Graph.Item"], static_cast<size_t>(kItems));
  EXPECT_EQ(t.Release(), 0) << t.proc.log().All();
}

// The monitor's "Attach to a .NET process" (GUI-free): the process is listed by its socket with
// its program's name, and the link attaches, reads the agent's port and connects.
TEST(DotnetAttach, TheMonitorListsAttachesAndConnects) {
  SKIP_WITHOUT_DOTNET();
  AttachTarget t;
  ASSERT_TRUE(t.ready) << t.proc.log().All();
  bool listed = false;
  for (const app::DotnetProcess& p : app::ListDotnetProcesses(app::DefaultSocketDirs()))
    if (p.pid == t.proc.pid()) {
      listed = true;
      EXPECT_EQ(p.name, "Graph.dll");
    }
  EXPECT_TRUE(listed);
  TempDir dir;
  app::DeviceLink link;
  std::string error;
  ASSERT_TRUE(link.AttachDotnet(DotnetLauncher(), t.proc.pid(), 0, dir.Path("a.log"), &error))
      << error;
  ASSERT_EQ(PollUntilSettled(link), app::DeviceLink::Phase::kConnected) << link.error();
  EXPECT_EQ(link.client()->device().app_name, "Graph.dll");
  link.Disconnect();
  EXPECT_EQ(t.Release(), 0) << "the process runs on after the monitor disconnects";
}

}  // namespace
}  // namespace xrpm::testing
