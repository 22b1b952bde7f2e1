// xrpm-mono: runs a C# program under Mono with the xrpm device agent inside it.
//
//   xrpm-mono [--port N | --listen ADDR:PORT --token T] [--frame Namespace.Class:Method]
//             [--frame-window-ms N] [--walk snapshot|paused] [--quiet]
//             [--allocations [--sample-bytes N]] [--announce]
//             [--mono-option=OPT]... -- PROGRAM.exe [ARGS...]
//
// It starts `mono [OPT...] --profile=xrpm:OPTIONS PROGRAM.exe ARGS` with the profiler module
// (libmono-profiler-xrpm.so, beside this executable) on the library path, and waits for the
// module's handshake line on a pipe: Mono silently runs a program without a profiler it cannot
// load, so no handshake within the time limit means no agent, and the program is stopped.
// Mono's own options (--mono-option, mono_command_line.h) are checked first, then shown to
// Mono (`mono OPT... --version`): an option Mono does not know is refused before the program
// starts, with Mono's own message.
// The agent prints "xrpm-agent: listening on ADDR:PORT" itself, as in xrpm-emulator.
//
// Exit codes: the program's own exit code once it runs (128+N after signal N); 2 for bad
// options (ours or Mono's), a missing program, an unknown profiler option or a port in use; 1 when
// Mono is missing or the module did not load. SIGINT and SIGTERM are passed on to the program.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "launch_support.h"
#include "mono_command_line.h"
#include "profiler_options.h"
#include "xrpm/agent/agent.h"

namespace {

constexpr int kHandshakeTimeoutMs = 30000;

using xrpm::launch::ExitCodeOf;
using xrpm::launch::ReadBounded;

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "xrpm-mono: %s\n", message.c_str());
  return code;
}

// Runs `mono OPTIONS... --version` and returns "" when Mono accepts the options, else what
// Mono said (its first stderr line) or why it could not be asked. Bounded: 30 s.
std::string MonoRefuses(const std::string& mono, const std::vector<std::string>& options) {
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  const pid_t pid = fork();
  if (pid < 0) {
    close(err[0]);
    close(err[1]);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    dup2(err[1], 2);
    std::vector<std::string> args = {"mono"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--version");
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execv(mono.c_str(), cargs.data());
    _exit(127);
  }
  close(err[1]);
  std::string said;
  ReadBounded(err[0], 30000, /*first_line_only=*/false, &said);
  close(err[0]);
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  const size_t eol = said.find('\n');
  if (eol != std::string::npos) said.resize(eol);
  if (said.empty()) said = "exit code " + std::to_string(ExitCodeOf(status));
  return said;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"xrpm-mono: run a C# program under Mono with the xrpm device agent", "xrpm-mono"};
  uint16_t port = xrpm::agent::kDefaultAgentPort;
  std::string listen, token, frame = xrpm::mono::kDefaultFrameMethod;
  bool quiet = false;
  std::vector<std::string> program;
  app.add_option("--port", port, "Device agent port on 127.0.0.1 (0: any free port)")
      ->capture_default_str();
  app.add_option("--listen", listen, "Serve hosts on ADDR:PORT instead (off loopback: --token)");
  app.add_option("--token", token, "Token a host must present to connect");
  app.add_option("--frame", frame,
                 "Frame method: captures are served when it returns (Namespace.Class:Method)")
      ->capture_default_str();
  uint32_t frame_window_ms = xrpm::mono::kDefaultFrameWindowMs;
  app.add_option("--frame-window-ms", frame_window_ms,
                 "A capture waits for the frame method to return when it returned within the "
                 "last N ms; otherwise (no frames running, or stalled) it stops the program at "
                 "the next safe point")
      ->check(CLI::Range(uint32_t{1}, xrpm::mono::kMaxFrameWindowMs))
      ->capture_default_str();
  std::string walk = xrpm::mono::WalkModeName(xrpm::mono::kDefaultWalkMode);
  app.add_option("--walk", walk,
                 "How a capture walks the heap: snapshot (in a copy-on-write child process "
                 "while the game runs on: the game pauses for the collection only; walked paused "
                 "anyway with allocation origins) or paused (with the game stopped until the "
                 "walk ends)")
      ->check(CLI::IsMember({"snapshot", "paused"}))
      ->capture_default_str();
  app.add_flag("--quiet", quiet, "No agent log lines except errors");
  bool allocations = false;
  CLI::Option* allocations_flag =
      app.add_flag("--allocations", allocations,
                   "Report frames and allocation samples with stacks (Mono then reports every "
                   "allocation: slower allocation)");
  uint32_t sample_bytes = xrpm::mono::kDefaultOriginSampleBytes;
  app.add_option("--sample-bytes", sample_bytes,
                 "With --allocations: captures carry allocation origins (site and frame) of the "
                 "objects whose allocation was sampled, one per N bytes on average (0: none)")
      ->check(CLI::Range(uint32_t{0}, xrpm::mono::kMaxOriginSampleBytes))
      ->needs(allocations_flag)
      ->capture_default_str();
  bool announce = false;
  app.add_flag("--announce", announce,
               "Announce this device on the local network (UDP multicast beacon, TTL 1, once a "
               "second; never the token) so `xrpm devices` and the monitor list it");
  std::vector<std::string> mono_options;
  app.add_option("--mono-option", mono_options,
                 "An option for Mono itself, before the program (repeatable; write "
                 "--mono-option=OPT, e.g. --mono-option=--debug)")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("program", program, "-- PROGRAM.exe [ARGS...]")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  xrpm::mono::ProfilerOptions opts;
  opts.port = port;
  opts.quiet = quiet;
  opts.allocations = allocations;
  opts.sample_bytes = sample_bytes;
  opts.frame_window_ms = frame_window_ms;
  xrpm::mono::ParseWalkMode(walk, &opts.walk);  // checked by --walk's IsMember
  opts.announce = announce;
  std::string problem;
  xrpm::mono::FrameMethod fm;
  if (!xrpm::mono::ParseFrameMethod(frame, &fm, &problem)) return Fail(2, "--frame: " + problem);
  opts.frame = frame;
  if (!listen.empty()) {
    xrpm::agent::AgentOptions a;
    a.port = port;
    if (!xrpm::agent::ParseListenAddress(listen, &a, &problem))
      return Fail(2, "--listen: " + problem);
    opts.address = a.address;
    opts.port = a.port;
  }
  for (const std::string& o : mono_options)
    if (!xrpm::mono::CheckMonoOption(o, &problem)) return Fail(2, "--mono-option: " + problem);
  struct stat st {};
  if (stat(program[0].c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return Fail(2, "no such program: " + program[0] + " (expected a .NET PROGRAM.exe)");

  const std::string mono = xrpm::launch::FindOnPath("mono");
  if (mono.empty())
    return Fail(1, "Mono is not installed (no 'mono' on PATH): sudo apt-get install mono-runtime");
  const std::string dir = xrpm::launch::SelfDir();
  if (access((dir + "/libmono-profiler-xrpm.so").c_str(), R_OK) != 0)
    return Fail(1, "the profiler module " + dir +
                       "/libmono-profiler-xrpm.so is missing (build it: scripts/build.sh "
                       "release mono-profiler-xrpm)");

  if (!mono_options.empty()) {
    const std::string refused = MonoRefuses(mono, mono_options);
    if (!refused.empty()) {
      std::string given;
      for (const std::string& o : mono_options) given += (given.empty() ? "" : " ") + o;
      return Fail(2, "--mono-option: Mono refused its options (" + given + "): " + refused);
    }
  }

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0)
    return Fail(1, std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> args = {"mono"};
  args.insert(args.end(), mono_options.begin(), mono_options.end());
  args.push_back("--profile=" + xrpm::mono::FormatProfilerOptions(opts));
  args.insert(args.end(), program.begin(), program.end());

  xrpm::launch::InstallSignalForwarding();

  const pid_t child = fork();
  if (child < 0) return Fail(1, std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    const int fd = dup(status_pipe[1]);  // without O_CLOEXEC: the module writes to it
    setenv(xrpm::mono::kStatusFdEnv, std::to_string(fd).c_str(), 1);
    const char* old = std::getenv("LD_LIBRARY_PATH");
    setenv("LD_LIBRARY_PATH", (dir + (old && *old ? ":" + std::string(old) : "")).c_str(), 1);
    if (!token.empty()) setenv(xrpm::mono::kTokenEnv, token.c_str(), 1);
    // The snapshot walk's child cannot wait for SGen's sweep thread (it has no other thread):
    // the sweep must be over when the world restarts (snapshot_walk.h). Unless told otherwise.
    if (opts.walk == xrpm::mono::WalkMode::kSnapshot) {
      const char* gc = std::getenv("MONO_GC_PARAMS");
      const std::string params = gc ? gc : "";
      if (params.find("concurrent-sweep") == std::string::npos)
        setenv("MONO_GC_PARAMS",
               (params.empty() ? "" : params + ",").append("no-concurrent-sweep").c_str(), 1);
    }
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execv(mono.c_str(), cargs.data());
    std::fprintf(stderr, "xrpm-mono: cannot run %s: %s\n", mono.c_str(), std::strerror(errno));
    _exit(127);
  }
  xrpm::launch::ForwardSignalsTo(child);
  close(status_pipe[1]);

  // The handshake: one line from the module, or the process's end, or the time limit.
  const xrpm::launch::Handshake h =
      xrpm::launch::AwaitHandshake(child, status_pipe[0], kHandshakeTimeoutMs);
  close(status_pipe[0]);
  switch (h.outcome) {
    case xrpm::launch::Handshake::kOk:
      break;
    case xrpm::launch::Handshake::kAgentError:  // the module said why on stderr and exits 2
      return 2;
    case xrpm::launch::Handshake::kTimedOut:
      return Fail(1, "the xrpm profiler module did not load within " +
                         std::to_string(kHandshakeTimeoutMs / 1000) +
                         " s (Mono runs a program "
                         "without a profiler it cannot load); stopped the program");
    case xrpm::launch::Handshake::kEndedWithout:
      if (h.exit_code == 2) return 2;
      return Fail(1, "Mono ran the program without the xrpm profiler module (exit code " +
                         std::to_string(h.exit_code) + "): is " + dir +
                         "/libmono-profiler-xrpm.so loadable by this Mono?");
  }
  return ExitCodeOf(xrpm::launch::WaitFor(child));
}
