#include "options.h"

#include "xrpm/protocol/constants.h"
#if XRPM_EMULATOR_OFFLINE_DUMPS
#include "xrpm/formats/snapshot_io.h"
#endif

namespace xrpm::emulator {

void AddEmulatorOptions(CLI::App& app, EmulatorOptions& o) {
  app.add_option("--scenario", o.scenario, std::string("Workload: ") + ScenarioNames())
      ->capture_default_str();
  app.add_option("--fps", o.fps, "Frames per second (0: as fast as possible)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--seed", o.seed, "Seed of the deterministic game logic / synthetic heap")
      ->capture_default_str();
  app.add_option("--app-name", o.app_name, "AppDomain name (default: bubbles.exe, synthetic.exe)");
  app.add_option("--frames", o.frames, "Stop after this many frames (default: run until SIGINT)");
  app.add_option("--duration", o.duration_s, "Stop after this many seconds")
      ->check(CLI::PositiveNumber);
  app.add_option("--objects", o.objects, "synthetic: number of objects")->capture_default_str();
  app.add_option("--refs-per-object", o.refs_per_object, "synthetic: references per object")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  app.add_option("--types", o.types, "synthetic: number of types")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  app.add_option("--heap-mb", o.heap_mb, "Address space reserved for the GC heap, MiB")
      ->capture_default_str()
      ->check(CLI::Range(16ull, 3800ull));
#if XRPM_EMULATOR_OFFLINE_DUMPS
  app.add_option("--dump", o.dump,
                 "At exit, collect and write the heap through the walker to this file: .gclog "
                 "(the default for other extensions) or .xrpm (also keeps root origins, every "
                 "object's allocation frame and site, and what a capture holds: type layouts, "
                 "reference slots, root labels, field values and string text) (ground truth; "
                 "without --frames/--duration runs 600 frames, unthrottled unless --fps is given)");
  app.add_flag("--no-values", o.no_values,
               "--dump: layouts, slots and labels without field values or string text (as "
               "`xrpm capture --no-values`)");
  app.add_option("--string-cap", o.string_cap,
                 "--dump: UTF-16 code units of text kept per string (default 1024, as a capture)")
      ->check(CLI::Range(1u, protocol::kMaxStringCap));
  app.add_option("--stat", o.stat, "At exit, write the performance counters as a .stat table");
#endif
  app.add_option("--walk", o.walk,
                 "How a capture walks the heap: paused (the game stopped until the walk is done, "
                 "as on the device) or snapshot (in a copy-on-write child of this process: the "
                 "game resumes after the collection and the fork)")
      ->capture_default_str()
      ->check(CLI::IsMember({"paused", "snapshot"}));
  app.add_flag("--quiet", o.quiet, "No status line on stderr");
}

std::string FinishOptions(const CLI::App& app, EmulatorOptions& o) {
  if (!MakeScenario(ScenarioParams{o.scenario}))
    return "unknown --scenario '" + o.scenario + "' (expected one of: " + ScenarioNames() + ")";
  if (o.app_name.empty()) o.app_name = DefaultAppName(o.scenario);
  if (o.app_name.find_first_of(" \t\r\n") != std::string::npos)
    return "--app-name must not contain whitespace (it is a field of the heap dump's records)";
  if (o.scenario == "synthetic" && o.objects == 0) return "--objects must be at least 1";
#if XRPM_EMULATOR_OFFLINE_DUMPS
  if (o.dump.empty() && (o.no_values || app.count("--string-cap") != 0))
    return std::string(o.no_values ? "--no-values" : "--string-cap") +
           " applies to --dump (a capture asks for its own: xrpm capture --no-values)";
#endif
  if (!o.dump.empty()) {
#if XRPM_EMULATOR_OFFLINE_DUMPS
    const xrpm::formats::FormatInfo* f = xrpm::formats::FormatForPath(o.dump, false);
    if (f && !f->can_write)
      return "--dump " + o.dump + ": the " + f->name +
             " format cannot be written (use .gclog or .xrpm)";
#endif
    if (app.count("--frames") == 0 && app.count("--duration") == 0) o.frames = 600;
    if (app.count("--fps") == 0) o.fps = 0;
  }
  return "";
}

RuntimeConfig RuntimeConfigFor(const EmulatorOptions& o) {
  RuntimeConfig c;
  c.app_name = o.app_name;
  c.heap_reserve_bytes = o.heap_mb << 20;
  c.snapshot_walks = o.walk == "snapshot";
  return c;
}

ScenarioParams ScenarioParamsFor(const EmulatorOptions& o) {
  return ScenarioParams{o.scenario, o.seed, o.objects, o.refs_per_object, o.types};
}

LoopConfig LoopConfigFor(const EmulatorOptions& o) {
  return LoopConfig{o.fps, o.frames};
}

}  // namespace xrpm::emulator
