// The monitor's "Attach to a .NET process", GUI-free (xrpm/app/dotnet_processes.h and
// DeviceLink::AttachDotnet): diagnostics socket names, the list of live processes with a socket
// (newest socket per process, dead and own PIDs left out, the program's .dll as its name), and
// the attach launcher's outcome in the link: its one-line refusal as the error, or, when it exits
// 0, the agent's endpoint read from its listening line. No .NET needed: stand-in processes and a
// stand-in launcher (a shell script). tests/dotnet attaches the monitor's link to a real one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "temp_dir.h"
#include "xrpm/app/device_link.h"
#include "xrpm/app/dotnet_processes.h"
#include "xrpm/protocol/dotnet_diagnostic_socket.h"

extern char** environ;

namespace xrpm::testing {
namespace {

using app::DeviceLink;

// A live process whose command line is `/bin/sh -c "read x" sh Prog.dll`: it waits for a line
// on its stdin (a pipe this object holds) and ends when the pipe closes.
struct StandIn {
  StandIn() {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    const char* argv[] = {"/bin/sh", "-c", "read x", "sh", "Prog.dll", nullptr};
    if (posix_spawn(&pid, "/bin/sh", &fa, nullptr, const_cast<char**>(argv), environ) != 0)
      pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    in = fds[1];
  }
  ~StandIn() {
    if (in >= 0) close(in);
    if (pid > 0) waitpid(pid, nullptr, 0);
  }
  pid_t pid = -1;
  int in = -1;
};

void Touch(const std::string& path, int64_t mtime_s) {
  std::ofstream(path).put('x');
  struct timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(mtime_s), 0}};
  utimensat(AT_FDCWD, path.c_str(), times, 0);
}

std::string Sock(pid_t pid, const std::string& key) {
  return "dotnet-diagnostic-" + std::to_string(pid) + "-" + key + "-socket";
}

TEST(DotnetProcesses, SocketNames) {
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic-1234-5678-socket"), 1234);
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic-1234-socket"), 0) << "no key";
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic--5-socket"), 0);
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic-12x-5-socket"), 0);
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic-1-5-sockets"), 0);
  EXPECT_EQ(app::DiagnosticSocketPid("clr-debug-pipe-1-in"), 0);
  EXPECT_EQ(app::DiagnosticSocketPid("dotnet-diagnostic-99999999999-5-socket"), 0);
  const auto dirs = app::DefaultSocketDirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.back(), "/tmp");
}

TEST(DotnetProcesses, SocketKeysAndProcessStartTimes) {
  protocol::DiagnosticSocketName n;
  ASSERT_TRUE(protocol::ParseDiagnosticSocketName("dotnet-diagnostic-1234-5678-socket", &n));
  EXPECT_EQ(n.pid, 1234);
  EXPECT_EQ(n.key, 5678u);
  EXPECT_FALSE(protocol::ParseDiagnosticSocketName("dotnet-diagnostic-1234-56x8-socket", &n));
  EXPECT_FALSE(protocol::ParseDiagnosticSocketName("dotnet-diagnostic-1234--socket", &n));
  EXPECT_FALSE(protocol::ParseDiagnosticSocketName(
      "dotnet-diagnostic-1-99999999999999999999999-socket", &n));
  // Field 22 counted after the command name, which may hold spaces and parentheses.
  const std::string stat =
      "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 4900246 1000 10";
  EXPECT_EQ(protocol::StartKeyFromStat(stat), 4900246u);
  EXPECT_EQ(protocol::StartKeyFromStat("4242 (x) S 1"), 0u) << "cut short";
  EXPECT_EQ(protocol::StartKeyFromStat("no parenthesis"), 0u);
  EXPECT_GT(protocol::ProcessStartKey(getpid()), 0u);
}

TEST(DotnetProcesses, LiveProcessesByTheirNewestSocket) {
  StandIn live;
  ASSERT_GT(live.pid, 0);
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  waitpid(gone, nullptr, 0);
  TempDir a, b;
  // A runtime names its socket with its process's start time (the key).
  const std::string key = std::to_string(protocol::ProcessStartKey(live.pid));
  ASSERT_NE(key, "0");
  Touch(a.Path(Sock(live.pid, key)), 1000);
  Touch(b.Path(Sock(live.pid, key)), 2000);        // newer, in the second directory
  Touch(a.Path(Sock(live.pid, key + "1")), 6000);  // newest, but an earlier process's: ignored
  Touch(a.Path(Sock(gone, "3")), 3000);
  Touch(a.Path(Sock(getpid(), "4")), 4000);
  Touch(a.Path("unrelated-file"), 5000);
  const auto list = app::ListDotnetProcesses({a.path(), b.path(), a.Path("missing")});
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].pid, live.pid);
  EXPECT_EQ(list[0].socket, b.Path(Sock(live.pid, key)));
  EXPECT_EQ(list[0].name, "Prog.dll");
  EXPECT_EQ(app::DotnetProcessName(gone), "");
}

// Polls the link (as the UI does every frame) until it reports an event or 30 s pass.
std::vector<DeviceLink::Event> PollForEvents(DeviceLink& link) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    auto ev = link.Poll();
    if (!ev.empty()) return ev;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a UI frame, not a guess
  }
  return {};
}

std::string Launcher(const TempDir& dir, const std::string& body) {
  const std::string path = dir.Path("xrpm-dotnet");
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(DotnetProcesses, AttachRefusalIsTheLinksError) {
  TempDir dir;
  const std::string launcher =
      Launcher(dir, "echo \"xrpm-dotnet: no process $2 to attach to\" >&2; exit 2");
  DeviceLink link;
  std::string error;
  ASSERT_TRUE(link.AttachDotnet(launcher, 424242, 4510, dir.Path("attach.log"), &error)) << error;
  EXPECT_NE(link.status_text().find("Attaching the agent to process 424242"), std::string::npos);
  const auto ev = PollForEvents(link);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].error);
  EXPECT_EQ(ev[0].text,
            "Could not attach to process 424242: xrpm-dotnet: no process 424242 to attach to");
  EXPECT_EQ(link.phase(), DeviceLink::Phase::kFailed);
}

TEST(DotnetProcesses, TheLaunchersGetTheAgentsArguments) {
  TempDir dir;
  const std::string args = dir.Path("args");
  const std::string launcher = Launcher(dir, "echo \"$@\" > " + args + "; exit 2");
  DeviceLink link;
  std::string error;
  ASSERT_TRUE(
      link.AttachDotnet(launcher, 4242, 4510, dir.Path("attach.log"), &error, {"--allocations"}))
      << error;
  PollForEvents(link);
  std::string line;
  std::getline(std::ifstream(args), line);
  EXPECT_EQ(line, "--attach 4242 --port 4510 --quiet --allocations");
  ASSERT_TRUE(link.LaunchDotnet(launcher, "Game.dll", 4510, dir.Path("launch.log"), &error,
                                {"--level", "2"}, {"--allocations"}))
      << error;
  PollForEvents(link);
  std::getline(std::ifstream(args), line);
  EXPECT_EQ(line, "--port 4510 --quiet --allocations -- Game.dll --level 2");
  link.Disconnect();
}

TEST(DotnetProcesses, AttachedLauncherGivesTheEndpoint) {
  TempDir dir;
  const std::string launcher = Launcher(
      dir,
      "echo \"xrpm-agent: listening on 127.0.0.1:45678 (in process $2 (dotnet), attached)\" "
      ">&2; exit 0");
  DeviceLink link;
  std::string error;
  ASSERT_TRUE(link.AttachDotnet(launcher, 4242, 0, dir.Path("attach.log"), &error)) << error;
  const auto ev = PollForEvents(link);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].error) << ev[0].text;
  EXPECT_EQ(ev[0].text, "Attached the agent to process 4242 (127.0.0.1:45678)");
  EXPECT_EQ(link.endpoint(), "127.0.0.1:45678");
  EXPECT_EQ(link.phase(), DeviceLink::Phase::kConnecting);
  link.Disconnect();
}

}  // namespace
}  // namespace xrpm::testing
