// xrpm-emulator: a simulated .NET Compact Framework device running an XNA game (or a synthetic
// heap) headless, with a real GC heap, live counters and a heap walker.
//
//   xrpm-emulator [--scenario bubbles|leak|synthetic] [--fps N] [--frames N | --duration S]
//                 [--dump FILE.gclog|.xrpm [--no-values] [--string-cap N]] [--stat FILE.stat]
//                 ... (--help for all options;
//                 --dump and --stat only where the host core is built, not in XRPM_DEVICE_ONLY)
//                 [--port N | --listen ADDR:PORT --token T]      (the device agent, port 4510)
//                 [--announce]                                   (discovery beacon, see agent.h)
//
// Exit codes: 0 ok (also after SIGINT/SIGTERM), 1 runtime or I/O failure, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "options.h"
#include "status_line.h"
#include "supervisor.h"
#include "xrpm/agent/agent.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#if XRPM_EMULATOR_OFFLINE_DUMPS
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/stat_file.h"
#endif

namespace {
using namespace xrpm::emulator;

int Run(const EmulatorOptions& opts, xrpm::agent::AgentOptions agent_opts) {
  Supervisor supervisor;  // first: blocks SIGINT/SIGTERM before any thread starts
  Runtime runtime(RuntimeConfigFor(opts));
  auto scenario = MakeScenario(ScenarioParamsFor(opts));
  GameLoop loop(runtime, *scenario, LoopConfigFor(opts));
  loop.Setup();

  // The device agent serves `runtime` to hosts while the game runs (docs/PROTOCOL.md).
  if (opts.quiet) agent_opts.log = [](const std::string&) {};
  xrpm::agent::Agent agent(runtime, std::move(agent_opts));
  std::string agent_error;
  if (!agent.Start(&agent_error)) {
    std::fprintf(stderr, "xrpm-emulator: device agent: %s\n", agent_error.c_str());
    return 1;
  }

  StatusLine status(runtime, loop, *scenario);
  loop.Start([&] { supervisor.NotifyFinished(); });
  Supervisor::Reason why = supervisor.Wait(opts.duration_s, [&] {
    if (!opts.quiet) std::fprintf(stderr, "%s\n", status.Next().c_str());
  });
  agent.Stop();
  loop.RequestStop();
  loop.Join();
  if (why == Supervisor::Reason::kSignal && !opts.quiet)
    std::fprintf(stderr, "xrpm-emulator: signal %d, stopping after %llu frames\n",
                 supervisor.signal_number(), static_cast<unsigned long long>(loop.frames()));
  if (!loop.error().empty()) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", loop.error().c_str());
    return 1;
  }

#if XRPM_EMULATOR_OFFLINE_DUMPS
  if (!opts.dump.empty()) {
    xrpm::Snapshot snap = WriteGroundTruthDump(
        runtime, opts.dump, ContentsFor(opts.dump, !opts.no_values, opts.string_cap));
    if (!opts.quiet)
      std::fprintf(stderr, "xrpm-emulator: wrote %s: %zu objects, %zu references, %zu roots\n",
                   opts.dump.c_str(), snap.object_count(), snap.ref_count(), snap.root_count());
  }
  if (!opts.stat.empty()) WriteStatFile(runtime, opts.stat);
#endif
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  EmulatorOptions opts;
  CLI::App app{"xrpm-emulator: a simulated .NET Compact Framework device (Xbox 360 / XNA)",
               "xrpm-emulator"};
  AddEmulatorOptions(app, opts);
  xrpm::agent::AgentOptions agent_opts;
  std::string listen;
  app.add_option("--port", agent_opts.port, "Device agent port on 127.0.0.1 (0: any free port)")
      ->capture_default_str();
  app.add_option("--listen", listen, "Serve hosts on ADDR:PORT instead (off loopback: --token)");
  app.add_option("--token", agent_opts.token, "Token a host must present to connect");
  app.add_flag("--announce", agent_opts.announce,
               "Announce this device on the local network (UDP multicast beacon, TTL 1, once a "
               "second; never the token) so `xrpm devices` and the monitor list it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::string problem = FinishOptions(app, opts);
  if (!problem.empty()) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", problem.c_str());
    return 2;
  }
  if (!listen.empty() && !xrpm::agent::ParseListenAddress(listen, &agent_opts, &problem)) {
    std::fprintf(stderr, "xrpm-emulator: --listen: %s\n", problem.c_str());
    return 2;
  }
  try {
    return Run(opts, std::move(agent_opts));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", e.what());
    return 1;
  }
}
