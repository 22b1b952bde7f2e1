// xrpm-emulator: a simulated .NET Compact Framework device running an XNA game (or a synthetic
// heap) headless, with a real GC heap, live counters and a heap walker.
//
//   xrpm-emulator [--scenario bubbles|leak|synthetic] [--fps N] [--frames N | --duration S]
//                 [--dump FILE.gclog] [--stat FILE.stat] ...      (--help for all options)
//
// Exit codes: 0 ok (also after SIGINT/SIGTERM), 1 runtime or I/O failure, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "options.h"
#include "status_line.h"
#include "supervisor.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/stat_file.h"

namespace {
using namespace xrpm::emulator;

int Run(const EmulatorOptions& opts) {
  Supervisor supervisor;  // first: blocks SIGINT/SIGTERM before any thread starts
  Runtime runtime(RuntimeConfigFor(opts));
  auto scenario = MakeScenario(ScenarioParamsFor(opts));
  GameLoop loop(runtime, *scenario, LoopConfigFor(opts));
  loop.Setup();

  // The device agent attaches here: it serves `runtime` (an xrpm::agent::RuntimePort) to hosts
  // while the game runs, and is stopped after the loop below.

  StatusLine status(runtime, loop, *scenario);
  loop.Start([&] { supervisor.NotifyFinished(); });
  Supervisor::Reason why = supervisor.Wait(opts.duration_s, [&] {
    if (!opts.quiet) std::fprintf(stderr, "%s\n", status.Next().c_str());
  });
  loop.RequestStop();
  loop.Join();
  if (why == Supervisor::Reason::kSignal && !opts.quiet)
    std::fprintf(stderr, "xrpm-emulator: signal %d, stopping after %llu frames\n",
                 supervisor.signal_number(), static_cast<unsigned long long>(loop.frames()));
  if (!loop.error().empty()) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", loop.error().c_str());
    return 1;
  }

  if (!opts.dump.empty()) {
    xrpm::Snapshot snap = WriteGroundTruthDump(runtime, opts.dump);
    if (!opts.quiet)
      std::fprintf(stderr, "xrpm-emulator: wrote %s: %zu objects, %zu references, %zu roots\n",
                   opts.dump.c_str(), snap.object_count(), snap.ref_count(), snap.root_count());
  }
  if (!opts.stat.empty()) WriteStatFile(runtime, opts.stat);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  EmulatorOptions opts;
  CLI::App app{"xrpm-emulator: a simulated .NET Compact Framework device (Xbox 360 / XNA)",
               "xrpm-emulator"};
  AddEmulatorOptions(app, opts);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (std::string problem = FinishOptions(app, opts); !problem.empty()) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", problem.c_str());
    return 2;
  }
  try {
    return Run(opts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrpm-emulator: %s\n", e.what());
    return 1;
  }
}
