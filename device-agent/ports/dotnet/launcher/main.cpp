// xrpm-dotnet: runs a .NET program under CoreCLR with the xrpm device agent inside it.
//
//   xrpm-dotnet [--port N | --listen ADDR:PORT --token T] [--quiet] [--announce]
//               [--frame Namespace.Class:Method | --no-frame]
//               [--allocations[=sampled|exact] [--sample-bytes N] [--no-origins]]
//               [--walk snapshot|paused]
//               -- PROGRAM.dll [ARGS...]        (run by `dotnet` from the PATH)
//               -- dotnet PROGRAM.dll [ARGS...]
//               -- APPHOST [ARGS...]            (a program's own executable)
//   xrpm-dotnet --attach PID [--port N | --listen ADDR:PORT --token T] [--quiet] [--announce]
//               [--frame Namespace.Class:Method | --no-frame]
//               [--allocations[=sampled] [--no-origins]] [--walk snapshot|paused]
//
// It starts the program with CoreCLR's start-up profiler variables naming the profiler library
// (libxrpm-dotnet-profiler.so, beside this executable), the agent's options in the environment
// and background collections off unless the environment says otherwise (profiler_env.h), and waits
// for the library's handshake line on a pipe: CoreCLR runs a program without a profiler it cannot
// load, so no handshake within the time limit means no agent, and the program is stopped
// (launch_support.h). The agent prints "xrpm-agent: listening on ADDR:PORT" itself, as under
// xrpm-mono and xrpm-emulator. Captures wait for the frame method's return (--frame, default
// Microsoft.Xna.Framework.Game:Tick; frame_hook.h: the method is compiled again with a call
// at its entry and before its returns) when the program runs it; --no-frame leaves it alone.
// --allocations gives a frames subscription allocation samples with managed stacks
// (dotnet_allocations.h): by default from the runtime's randomized sampling (.NET 10 and later;
// frames carry an estimate of the game thread's allocations), with =exact (or on older runtimes)
// from a profiler callback on every allocation (frames carry exact figures; slower allocation).
// Captures then carry each sampled object's allocation origin (dotnet_origins.h) unless
// --no-origins. Refused with --no-frame; on attach only the sampled route (the exact one's
// callback is start-up only), and allocation origins then cover what is allocated after it.
// `--attach PID` loads the library into a .NET process that already runs, through the runtime's
// diagnostics IPC (attach.h), and exits once the agent listens there (exit codes: attach.h).
//
// Exit codes: the program's own exit code once it runs (128+N after signal N); 2 for bad options,
// a missing program, an agent that refused its options or a port in use; 1 when .NET is missing
// or the library did not load. SIGINT and SIGTERM are passed on to the program.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attach.h"
#include "launch_support.h"
#include "profiler_env.h"
#include "profiler_options.h"
#include "xrpm/agent/agent.h"

namespace {

constexpr int kHandshakeTimeoutMs = 30000;

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "xrpm-dotnet: %s\n", message.c_str());
  return code;
}

bool EndsWithDll(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".dll";
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  namespace dn = xrpm::dotnet;
  CLI::App app{"xrpm-dotnet: run a .NET program under CoreCLR with the xrpm device agent",
               "xrpm-dotnet"};
  uint16_t port = xrpm::agent::kDefaultAgentPort;
  std::string listen, token, frame = xrpm::mono::kDefaultFrameMethod;
  bool quiet = false, announce = false, no_frame = false;
  int64_t attach = 0;
  std::vector<std::string> program;
  app.add_option("--port", port, "Device agent port on 127.0.0.1 (0: any free port)")
      ->capture_default_str();
  app.add_option("--listen", listen, "Serve hosts on ADDR:PORT instead (off loopback: --token)");
  app.add_option("--token", token, "Token a host must present to connect");
  app.add_flag("--quiet", quiet, "No agent log lines except errors");
  app.add_option("--frame", frame,
                 "Frame method: captures are taken when it returns (Namespace.Class:Method)")
      ->capture_default_str();
  app.add_flag("--no-frame", no_frame, "No frame method hook: captures are taken at once");
  app.add_flag("--announce", announce,
               "Announce this device on the local network (UDP multicast beacon, TTL 1, once a "
               "second; never the token) so `xrpm devices` and the monitor list it");
  std::string allocations_route;
  CLI::Option* allocations_flag =
      app.add_flag("--allocations{sampled}", allocations_route,
                   "Allocation samples with managed stacks, and each frame's allocations. "
                   "--allocations (=sampled): the runtime's own randomized sampling (.NET 10: one "
                   "sample per 100 KiB, fast allocation; frames carry an estimate; older runtimes "
                   "fall back to exact). --allocations=exact: every allocation reported to the "
                   "profiler (slow allocation; exact per-frame figures; start-up only)")
          ->check(CLI::IsMember({"sampled", "exact"}));
  uint32_t sample_bytes = xrpm::mono::kDefaultOriginSampleBytes;
  app.add_option(
         "--sample-bytes", sample_bytes,
         "With --allocations=exact: the sampling interval (one per N bytes on average) before a "
         "host subscribes to frames, whose interval then applies; without a subscription "
         "nothing keeps samples on .NET yet (the sampled route follows the runtime's 100 KiB)")
      ->check(CLI::Range(uint32_t{0}, xrpm::mono::kMaxOriginSampleBytes))
      ->needs(allocations_flag)
      ->capture_default_str();
  bool no_origins = false;
  app.add_flag("--no-origins", no_origins,
               "With --allocations: captures carry no allocation origins (by default each "
               "sampled object's allocating stack and frame, followed across collections, which "
               "keeps the runtime's GC events on between captures)")
      ->needs(allocations_flag);
  std::string walk = xrpm::mono::WalkModeName(xrpm::mono::kDefaultWalkMode);
  app.add_option("--walk", walk,
                 "How a capture records the runtime's report of the heap: snapshot (in a "
                 "copy-on-write child process while the game runs on: the game pauses for the "
                 "collection and the roots only) or paused (with the game stopped until the "
                 "report ends)")
      ->check(CLI::IsMember({"snapshot", "paused"}))
      ->capture_default_str();
  app.add_option("--attach", attach,
                 "Load the agent into the running .NET process PID (diagnostics IPC) instead");
  app.add_option("program", program, "-- PROGRAM.dll [ARGS...] | dotnet PROGRAM.dll | APPHOST");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.count("--attach") && !program.empty())
    return Fail(2, "--attach PID or -- PROGRAM.dll, not both");
  if (!app.count("--attach") && program.empty())
    return Fail(2, "no program: xrpm-dotnet [OPTIONS] -- PROGRAM.dll [ARGS...] (or --attach PID)");

  xrpm::mono::ProfilerOptions opts;
  opts.port = port;
  opts.quiet = quiet;
  opts.announce = announce;
  std::string problem;
  if (!listen.empty()) {
    xrpm::agent::AgentOptions a;
    a.port = port;
    if (!xrpm::agent::ParseListenAddress(listen, &a, &problem))
      return Fail(2, "--listen: " + problem);
    opts.address = a.address;
    opts.port = a.port;
  }
  if (no_frame && app.count("--frame")) return Fail(2, "--frame or --no-frame, not both");
  xrpm::mono::FrameMethod fm;
  if (!xrpm::mono::ParseFrameMethod(frame, &fm, &problem)) return Fail(2, "--frame: " + problem);
  opts.frame = frame;
  const bool allocations = !allocations_route.empty();
  opts.allocations = allocations;
  opts.allocations_exact = allocations_route == "exact";
  opts.sample_bytes = sample_bytes;
  opts.no_origins = no_origins;
  opts.no_frame = no_frame;
  xrpm::mono::ParseWalkMode(walk, &opts.walk);  // checked by --walk's IsMember
  if (allocations && no_frame)
    return Fail(2, "--allocations reports through the frame method's frames: not with --no-frame");
  if (app.count("--attach")) {
    if (opts.allocations_exact)
      return Fail(2,
                  "--allocations=exact needs the runtime's allocation callback, which CoreCLR "
                  "allows only when the program starts, never on attach: attach with "
                  "--allocations (sampled), or start the program under xrpm-dotnet "
                  "--allocations=exact (-- PROGRAM.dll)");
    if (attach <= 0 || attach > INT32_MAX)
      return Fail(2, "--attach " + std::to_string(attach) + ": expected a process id");
    dn::AttachOptions a;
    a.pid = static_cast<pid_t>(attach);
    a.agent_options = xrpm::mono::FormatProfilerOptions(opts);
    a.token = token;
    a.library = xrpm::launch::SelfDir() + "/" + dn::kProfilerLibrary;
    return dn::Attach(a);
  }

  // What to execute: dotnet PROGRAM.dll, dotnet as given, or the app host.
  std::vector<std::string> args;
  std::string exe;
  if (EndsWithDll(program[0])) {
    if (!IsRegularFile(program[0]))
      return Fail(2, "no such program: " + program[0] + " (expected a .NET PROGRAM.dll)");
    exe = xrpm::launch::FindOnPath("dotnet");
    if (exe.empty())
      return Fail(1, ".NET is not installed (no 'dotnet' on PATH): install the .NET runtime");
    args.push_back("dotnet");
    args.insert(args.end(), program.begin(), program.end());
  } else {
    exe = xrpm::launch::FindOnPath(program[0]);
    if (exe.empty() || !IsRegularFile(exe)) {
      if (BaseName(program[0]) == "dotnet")
        return Fail(1, ".NET is not installed (no 'dotnet' on PATH): install the .NET runtime");
      return Fail(2, "no such program: " + program[0] +
                         " (expected PROGRAM.dll, dotnet PROGRAM.dll or a .NET app host)");
    }
    args = program;
  }
  const std::string dir = xrpm::launch::SelfDir();
  const std::string library = dir + "/" + dn::kProfilerLibrary;
  if (access(library.c_str(), R_OK) != 0)
    return Fail(1, "the profiler library " + library +
                       " is missing (build it: scripts/build.sh release xrpm-dotnet-profiler)");

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0)
    return Fail(1, std::string("pipe: ") + std::strerror(errno));
  xrpm::launch::InstallSignalForwarding();
  const pid_t child = fork();
  if (child < 0) return Fail(1, std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    const int fd = dup(status_pipe[1]);  // without O_CLOEXEC: the library writes to it
    setenv(dn::kStatusFdEnv, std::to_string(fd).c_str(), 1);
    setenv(dn::kOptionsEnv, xrpm::mono::FormatProfilerOptions(opts).c_str(), 1);
    if (!token.empty()) setenv(dn::kTokenEnv, token.c_str(), 1);
    // The agent runs in this process only, not in the .NET processes it starts (profiler_env.h).
    setenv(dn::kPidEnv, std::to_string(getpid()).c_str(), 1);
    for (const char* name : dn::kRuntimeProfilerEnv) unsetenv(name);  // ours alone
    // No background collections: the agent then asks for the GC events per capture only.
    if (!std::getenv(dn::kGcConcurrentEnv)) {
      setenv(dn::kGcConcurrentEnv, "0", 1);
      setenv(dn::kGcSetEnv, "1", 1);
    }
    setenv("CORECLR_ENABLE_PROFILING", "1", 1);
    setenv("CORECLR_PROFILER", dn::kProfilerClsidText, 1);
    setenv("CORECLR_PROFILER_PATH", library.c_str(), 1);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execv(exe.c_str(), cargs.data());
    std::fprintf(stderr, "xrpm-dotnet: cannot run %s: %s\n", exe.c_str(), std::strerror(errno));
    _exit(127);
  }
  xrpm::launch::ForwardSignalsTo(child);
  close(status_pipe[1]);

  const xrpm::launch::Handshake h =
      xrpm::launch::AwaitHandshake(child, status_pipe[0], kHandshakeTimeoutMs);
  close(status_pipe[0]);
  switch (h.outcome) {
    case xrpm::launch::Handshake::kOk:
      break;
    case xrpm::launch::Handshake::kAgentError:  // the library said why on stderr and exits 2
      return 2;
    case xrpm::launch::Handshake::kTimedOut:
      return Fail(1, "the xrpm profiler library did not load within " +
                         std::to_string(kHandshakeTimeoutMs / 1000) +
                         " s (CoreCLR runs a program without a profiler it cannot load); "
                         "stopped the program");
    case xrpm::launch::Handshake::kEndedWithout:
      if (h.exit_code == 2) return 2;
      return Fail(1, "the program ended (exit code " + std::to_string(h.exit_code) +
                         ") before the xrpm profiler started in it: the runtime did not start "
                         "it (its host's message is above), it is not a .NET (Core 3.0 or later) "
                         "program, or " +
                         library + " could not be loaded");
  }
  return xrpm::launch::ExitCodeOf(xrpm::launch::WaitFor(child));
}
