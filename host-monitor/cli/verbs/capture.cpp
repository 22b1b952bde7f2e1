// `xrpm capture --connect HOST:PORT [--token T] -o FILE`: captures the device's heap over the
// network and saves it atomically (.gclog unless the extension names another writable format).
// While it runs, a progress line (objects, MB, rate, ETA) is drawn on stderr if that is a
// terminal. An incomplete or unverifiable capture writes no file and exits 1.
//
// Unattended: with --every, --on-growth, --on-gc-pause, --on-marker, --keep,
// --count or --duration it runs until stopped (SIGINT/SIGTERM, --count, --duration), capturing
// whenever a trigger fires and whenever the game asks (Xrpm.Profiler.RequestCapture, unless
// --ignore-game-requests), into files named by the -o template ({n}, {marker}, {trigger}),
// keeping the newest --keep of them, reconnecting when the device restarts. One line per
// capture on stdout (with --json one JSON object per line); connection changes on stderr. The
// logic is app::RunAutoCapture (core/app/auto_capture.h); this verb parses and renders.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "shared/common.h"
#include "shared/connect.h"
#include "shared/verb.h"
#include "xrpm/app/auto_capture.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/capture_pause.h"
#include "xrpm/model/human_parse.h"

namespace xrpm::cli {
namespace verb_capture {

struct Opts {
  ConnectOptions connect;
  std::string out;
  double timeout_s = 600;
  bool json = false;
  client::CaptureOptions capture;  // --no-values, --string-cap
  // Unattended (kept as typed; parsed in Run so a bad value gets its own message).
  std::string every, on_growth, on_gc_pause, on_marker, duration;
  uint32_t keep = 0;
  uint64_t count = 0;
  bool ignore_game_requests = false;
  // --join-induced-gc[=DURATION]: "" when absent; "default" when given without a value.
  std::string join;
  bool Unattended() const {
    return !every.empty() || !on_growth.empty() || !on_gc_pause.empty() || !on_marker.empty() ||
           keep > 0 || count > 0 || !duration.empty();
  }
};

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) {
  g_stop.store(true);
}

// "2026-11-26T05:50:01Z", the host's wall clock.
std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

// The unattended options into the core's, or a usage error (exit 2) saying which value is bad.
bool ToAutoOptions(const Opts& o, app::AutoCaptureOptions* a, std::string* error) {
  a->client.endpoint = o.connect.endpoint;
  a->client.token = o.connect.token;
  a->client.connect_timeout_ms = static_cast<uint32_t>(o.connect.connect_timeout_s * 1000);
  a->client.peer_timeout_ms = static_cast<uint32_t>(o.connect.peer_timeout_s * 1000);
  a->capture = o.capture;
  a->output = o.out;
  a->keep = o.keep;
  a->max_captures = o.count;
  a->capture_timeout_s = o.timeout_s;
  std::string why;
  if (!o.duration.empty() && !ParseDuration(o.duration, &a->duration_s, &why)) {
    *error = "--duration: " + why;
    return false;
  }
  if (!app::ParseTriggers(
          {o.every, o.on_growth, o.on_gc_pause, o.on_marker, !o.ignore_game_requests}, &a->triggers,
          error))
    return false;
  return app::CheckAutoCaptureOptions(*a, error);
}

int RunUnattended(const Opts& o) {
  app::AutoCaptureOptions a;
  std::string error;
  if (!ToAutoOptions(o, &a, &error)) {
    std::fprintf(stderr, "xrpm capture: %s\n", error.c_str());
    return kExitUsage;
  }
  g_stop.store(false);
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto render = [&](const app::AutoCaptureEvent& e) {
    using K = app::AutoCaptureEvent::Kind;
    if (e.kind == K::kConnected || e.kind == K::kLost) {
      std::fprintf(stderr, "%s xrpm capture: %s %s\n", UtcNow().c_str(),
                   e.kind == K::kConnected ? "connected to" : "lost the device, reconnecting:",
                   e.text.c_str());
      std::fflush(stderr);
      return;
    }
    const char* trigger = analysis::TriggerKindName(e.trigger.kind);
    if (o.json) {
      nlohmann::json j = {{"time", UtcNow()},
                          {"n", e.n},
                          {"ok", e.kind == K::kCaptured},
                          {"trigger", trigger},
                          {"reason", e.trigger.detail},
                          {"file", e.file},
                          {"removed", e.removed},
                          {"last_marker", e.last_marker},
                          {"marker_age_us", e.marker_age_us},
                          {"objects", e.stats.objects},
                          {"heap_bytes", e.stats.heap_bytes},
                          {"pause_us", e.stats.pause_us},
                          {"walk_after_pause_us", e.stats.walk_after_pause_us},
                          {"elapsed_s", e.stats.elapsed_s}};
      if (e.kind != K::kCaptured) j["error"] = e.text;
      std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      std::printf("%s\n", s.c_str());
      std::fflush(stdout);
      return;
    }
    if (e.kind != K::kCaptured) {
      std::fprintf(stderr, "%s xrpm capture: capture %llu (%s) failed: %s\n", UtcNow().c_str(),
                   static_cast<unsigned long long>(e.n), e.trigger.detail.c_str(), e.text.c_str());
      std::fflush(stderr);
      return;
    }
    std::string removed;
    for (const auto& f : e.removed) removed += (removed.empty() ? "; removed " : ", ") + f;
    std::printf("%s capture %llu (%s) -> %s: %s objects, %s, game paused %s%s\n", UtcNow().c_str(),
                static_cast<unsigned long long>(e.n), e.trigger.detail.c_str(), e.file.c_str(),
                FormatCount(e.stats.objects).c_str(), FormatBytes(e.stats.heap_bytes).c_str(),
                e.pause.c_str(), removed.c_str());
    std::fflush(stdout);
  };
  const app::AutoCaptureResult r = app::RunAutoCapture(a, g_stop, render);
  if (!r.ok) {
    std::fprintf(stderr, "xrpm capture: %s\n", r.error.c_str());
    return kExitBadInput;
  }
  std::fprintf(stderr,
               "xrpm capture: %llu saved, %llu failed, %llu reconnects, %llu triggers merged "
               "into a pending capture\n",
               static_cast<unsigned long long>(r.saved), static_cast<unsigned long long>(r.failed),
               static_cast<unsigned long long>(r.reconnects),
               static_cast<unsigned long long>(r.coalesced));
  return kExitOk;
}

// One progress line: objects, MB received, rate since the first batch, ETA (when the agent
// announced the heap size).
void DrawProgress(const client::CaptureProgress& p, double* receive_start_s, bool joining) {
  if (joining && (p.phase == client::CapturePhase::kRequested || p.objects == 0)) {
    std::fprintf(stderr, "\r\033[Kwaiting for another tool's collection... %.0fs", p.elapsed_s);
    std::fflush(stderr);
    return;
  }
  if (p.phase == client::CapturePhase::kRequested || p.objects == 0) {
    // The agent holds the batches while the game is stopped (docs/PROTOCOL.md), so the first
    // objects arrive when it runs again.
    std::fprintf(stderr, "\r\033[Kgame stopped: collecting garbage, walking the heap... %.0fs",
                 p.elapsed_s);
    std::fflush(stderr);
    return;
  }
  if (*receive_start_s < 0) *receive_start_s = p.elapsed_s;
  const double mb = static_cast<double>(p.heap_bytes) / (1 << 20);
  const double secs = p.elapsed_s - *receive_start_s;
  const double rate = secs > 0.05 ? mb / secs : 0;
  std::string eta = "--";
  if (p.expected_heap_bytes > p.heap_bytes && rate > 0) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0fs",
                  static_cast<double>(p.expected_heap_bytes - p.heap_bytes) / (1 << 20) / rate);
    eta = b;
  } else if (p.expected_heap_bytes && p.heap_bytes >= p.expected_heap_bytes) {
    eta = "0s";
  }
  std::fprintf(stderr, "\r\033[Kreceiving: %s objects, %.1f MB, %.1f MB/s, ETA %s",
               FormatCount(p.objects).c_str(), mb, rate, eta.c_str());
  std::fflush(stderr);
}

int Run(const Opts& o) {
  if (o.Unattended() && !o.join.empty()) {
    std::fprintf(stderr,
                 "xrpm capture: --join-induced-gc takes one capture, when another tool collects; "
                 "it does not combine with unattended options\n");
    return kExitUsage;
  }
  if (o.Unattended()) return RunUnattended(o);
  if (o.ignore_game_requests) {
    std::fprintf(stderr,
                 "xrpm capture: --ignore-game-requests needs an unattended run (--every, "
                 "--on-growth, --on-gc-pause, --on-marker, --keep, --count or --duration)\n");
    return kExitUsage;
  }
  client::CaptureOptions capture = o.capture;
  if (!o.join.empty()) {
    double join_s = client::kDefaultJoinInducedGcMs / 1000.0;
    std::string why;
    if (o.join != "default" && !ParseDuration(o.join, &join_s, &why)) {
      std::fprintf(stderr, "xrpm capture: --join-induced-gc: %s\n", why.c_str());
      return kExitUsage;
    }
    if (join_s * 1000 < 1 || join_s * 1000 > UINT32_MAX) {
      std::fprintf(stderr,
                   "xrpm capture: --join-induced-gc: %s: expected a duration of 1 ms or more\n",
                   o.join.c_str());
      return kExitUsage;
    }
    capture.join_induced_gc_ms = static_cast<uint32_t>(join_s * 1000);
  }
  auto c = ConnectForCli(o.connect);
  const client::DeviceInfo dev = c->device();
  std::string error;
  if (!c->StartCapture(&error, capture)) {
    std::fprintf(stderr, "xrpm capture: %s\n", error.c_str());
    return kExitBadInput;
  }
  const bool tty = StderrIsTerminal();
  client::CaptureResult r;
  double receive_start_s = -1;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(o.timeout_s));
  for (;;) {
    if (c->WaitCapture(tty ? 100 : 1000, &r)) break;
    if (tty) DrawProgress(c->capture_progress(), &receive_start_s, capture.join_induced_gc_ms != 0);
    if (std::chrono::steady_clock::now() > deadline) {
      c->CancelCapture();
      c->WaitCapture(5000, &r);
      r.ok = false;
      r.error =
          "no complete capture within " + std::to_string(static_cast<int>(o.timeout_s)) + " s";
      break;
    }
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!r.ok) {
    std::fprintf(stderr, "xrpm capture: %s\n", r.error.c_str());
    return kExitBadInput;
  }
  formats::SaveSnapshot(*r.snapshot, o.out);
  const client::CaptureStats& s = r.stats;
  if (o.json) {
    PrintJson({{"file", o.out},
               {"app", dev.app_name},
               {"runtime", dev.runtime_name},
               {"endpoint", dev.endpoint},
               {"objects", s.objects},
               {"references", s.refs},
               {"roots", s.roots},
               {"types", s.types},
               {"heap_bytes", s.heap_bytes},
               {"batches", s.batches},
               {"wire_bytes", s.wire_bytes},
               {"pause_us", s.pause_us},
               {"gc_us", s.gc_us},
               {"walk_us", s.walk_us},
               {"walk_after_pause_us", s.walk_after_pause_us},
               {"stop_wait_us", s.stop_wait_us},
               {"stall_us", s.stall_us},
               {"agent_peak_bytes", s.agent_peak_bytes},
               {"elapsed_s", s.elapsed_s},
               {"appdomains", DomainTotalsJson(*r.snapshot)}});
    return kExitOk;
  }
  std::printf("captured %s from %s -> %s\n", dev.app_name.c_str(), dev.endpoint.c_str(),
              o.out.c_str());
  std::printf("  %s objects, %s references, %s roots, %s types, %s heap\n",
              FormatCount(s.objects).c_str(), FormatCount(s.refs).c_str(),
              FormatCount(s.roots).c_str(), FormatCount(s.types).c_str(),
              FormatBytes(s.heap_bytes).c_str());
  // The snapshot's metadata (client::MakeCaptureInfo) says what the pause held, in the words
  // `xrpm info` and the monitor use.
  std::printf("  game paused %s; %s on the wire in %u batches; agent peak %s; %.2f s\n",
              DescribeCapturePause(*r.snapshot->capture).c_str(), FormatBytes(s.wire_bytes).c_str(),
              s.batches, FormatBytes(s.agent_peak_bytes).c_str(), s.elapsed_s);
  PrintDomainTotals(*r.snapshot);
  return kExitOk;
}

VerbRegistration reg{
    "capture", "Capture the heap of a running device agent into a snapshot file",
    [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      AddConnectOptions(cmd, o->connect);
      cmd.add_option("-o,--output", o->out,
                     "Snapshot file to write (.gclog unless the extension names another "
                     "format); unattended, a template: {n} the capture's number, {marker} the "
                     "marker or request that fired it (else the last marker), {trigger}")
          ->required();
      cmd.add_option("--every", o->every,
                     "Unattended: capture every DURATION (10s, 500ms, 2m, 1h), the first at once")
          ->type_name("DURATION");
      cmd.add_option("--on-growth", o->on_growth,
                     "Unattended: capture when Managed Bytes In Use After GC grew by BYTES "
                     "(64MB, 512KB) since the last capture")
          ->type_name("BYTES");
      cmd.add_option("--on-gc-pause", o->on_gc_pause,
                     "Unattended: capture at the frame boundary after a collection that paused "
                     "longer than MS milliseconds")
          ->type_name("MS");
      cmd.add_option("--on-marker", o->on_marker,
                     "Unattended: capture when the game posts a marker with this TEXT ('*' "
                     "matches any characters, '?' one, '\\' makes the next one literal)");
      cmd.add_flag("--ignore-game-requests", o->ignore_game_requests,
                   "Unattended: do not capture when the game asks (Xrpm.Profiler.RequestCapture)");
      cmd.add_option("--keep", o->keep,
                     "Unattended: keep the newest N files this run wrote, removing the oldest")
          ->check(CLI::Range(1u, 1000000u));
      cmd.add_option("--count", o->count, "Unattended: stop after N captures saved")
          ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
      cmd.add_option("--duration", o->duration,
                     "Unattended: stop after DURATION (default: until SIGINT/SIGTERM)")
          ->type_name("DURATION");
      cmd.add_option("--timeout", o->timeout_s, "Give up on a capture after S seconds")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      cmd.add_flag_callback(
          "--no-values", [o] { o->capture.values = false; },
          "Capture without values (field values, string text, array lengths): the smallest "
          "capture; type layouts and the field of each reference are still captured");
      cmd.add_option("--string-cap", o->capture.string_cap,
                     "Characters of text kept per string (default: the agent's, 1024)")
          ->check(CLI::Range(1, 4096));
      cmd.add_option("--join-induced-gc", o->join,
                     "Induce no collection: record the next full collection another tool "
                     "induces within DURATION (default 60s), e.g. `dotnet-gcdump collect -p PID` "
                     "started after this; both then read the same heap (the .NET port)")
          ->type_name("[DURATION]")
          ->expected(0, 1)
          ->default_str("default");
      AddJsonFlag(cmd, o->json);
      return [o] { return Run(*o); };
    }};

}  // namespace verb_capture
}  // namespace xrpm::cli
