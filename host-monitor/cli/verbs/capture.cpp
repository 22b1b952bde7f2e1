// `xrpm capture --connect HOST:PORT [--token T] -o FILE`: captures the device's heap over the
// network and saves it atomically (.gclog unless the extension names another writable format).
// While it runs, a progress line (objects, MB, rate, ETA) is drawn on stderr if that is a
// terminal. An incomplete or unverifiable capture writes no file and exits 1.
#include <cstdio>

#include "shared/common.h"
#include "shared/connect.h"
#include "shared/verb.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::cli {
namespace {

struct Opts {
  ConnectOptions connect;
  std::string out;
  double timeout_s = 600;
  bool json = false;
  client::CaptureOptions capture;  // --no-values, --string-cap
};

std::string Ms(uint64_t us) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", static_cast<double>(us) / 1000.0);
  return b;
}

// One progress line: objects, MB received, rate since the first batch, ETA (when the agent
// announced the heap size).
void DrawProgress(const client::CaptureProgress& p, double* receive_start_s) {
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
               Thousands(p.objects).c_str(), mb, rate, eta.c_str());
  std::fflush(stderr);
}

int Run(const Opts& o) {
  auto c = ConnectForCli(o.connect);
  const client::DeviceInfo dev = c->device();
  std::string error;
  if (!c->StartCapture(&error, o.capture)) {
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
    if (tty) DrawProgress(c->capture_progress(), &receive_start_s);
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
              Thousands(s.objects).c_str(), Thousands(s.refs).c_str(), Thousands(s.roots).c_str(),
              Thousands(s.types).c_str(), HumanBytes(s.heap_bytes).c_str());
  std::printf(
      "  game paused %s (GC %s, walk %s); %s on the wire in %u batches; agent peak %s; "
      "%.2f s\n",
      Ms(s.pause_us).c_str(), Ms(s.gc_us).c_str(), Ms(s.walk_us).c_str(),
      HumanBytes(s.wire_bytes).c_str(), s.batches, HumanBytes(s.agent_peak_bytes).c_str(),
      s.elapsed_s);
  PrintDomainTotals(*r.snapshot);
  return kExitOk;
}

VerbRegistration reg{
    "capture", "Capture the heap of a running device agent into a snapshot file",
    [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      AddConnectOptions(cmd, o->connect);
      cmd.add_option("-o,--output", o->out, "Snapshot file to write (.gclog)")->required();
      cmd.add_option("--timeout", o->timeout_s, "Give up after S seconds")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      cmd.add_flag_callback(
          "--no-values", [o] { o->capture.values = false; },
          "Capture without values (field values, string text, array lengths): the smallest "
          "capture; type layouts and the field of each reference are still captured");
      cmd.add_option("--string-cap", o->capture.string_cap,
                     "Characters of text kept per string (default: the agent's, 1024)")
          ->check(CLI::Range(1, 4096));
      AddJsonFlag(cmd, o->json);
      return [o] { return Run(*o); };
    }};

}  // namespace
}  // namespace xrpm::cli
