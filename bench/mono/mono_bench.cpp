// mono_bench: the Mono port's figures (docs/PERFORMANCE.md, "Mono port"), each against its
// baseline measured in the same run, on a real C# heap under Mono:
//   1. HeapBench.exe NODES (NODES Node objects, 3 references each) under xrpm-mono; per round,
//      a plain GC.Collect() of that heap timed inside the program (the baseline), then a capture
//      by the host client: the game pause (induced full GC + walk + encode), bytes on the wire
//      vs the .gclog of the captured snapshot, agent peak memory per object;
//   2. counters: XnaBubbles.exe unthrottled (--fps 0) for FRAMES frames under plain mono, and
//      under xrpm-mono with a host subscribed to counters every 100 ms; the cost is the relative
//      growth of the time per frame (rounds alternate the two, ratios are medians);
//   3. the allocation path with allocation origins: AllocBench.exe COUNT ROUNDS
//      (32-byte objects in a loop, collections included) under xrpm-mono --allocations with
//      origins off (--sample-bytes 0: Mono's allocation events only, the baseline), on at the
//      default interval (16 KiB) and on at 256 bytes, and under plain mono; configurations
//      alternate within each round, each figure is the median over rounds of a process's median
//      ns/allocation (its first AllocBench round, the JIT's, dropped); then the origin
//      tracker's own figures from the agent's capture log line.
//   4. the pause on real programs' heaps (`--only real`): Debian's gendarme analysing
//      System.dll and System.Xml.dll, held with its heap full where it writes its report (a
//      PipeGate on --log; gendarme 2.11 stops with an exception on mscorlib.dll within seconds,
//      which is what made this run end with "no peer" when it analysed mscorlib), and the
//      `csharp` shell holding a 5,000-row table; per round three captures one after the
//      other on one connection: today's (no fields), fields with --no-values, and values; each
//      capture's game pause against its own induced full collection (CaptureEnd pause_us /
//      gc_us, the `game paused ... (GC ..., walk ...)` figures), so the ratio needs no baseline
//      from another run; with the snapshot walk (xrpm-mono's default) the walk runs after the
//      pause (CaptureEnd walk_after_pause_us) and the line says so; end to end is the request
//      sent -> CaptureEnd decoded, over the pause.
//
//   5. the in-game API (`--only api`): ApiBench.exe FRAMES (bursts of 16
//      Profiler.Marker calls and 16 Profiler.Scope enter/leave pairs per frame, 1 ms apart so a
//      live agent's marker queue (256 slots, drained at least every 10 ms) never drops) under
//      plain mono (no agent) and under xrpm-mono, alternating; per call against the same
//      process's empty loop, and for Scope also against a `using` over a no-op IDisposable
//      (what the C# statement costs by itself); medians over rounds.
//
//   mono_bench [--nodes N] [--runs R] [--frames F] [--allocs N] [--launcher XRPM_MONO]
//              [--only alloc|real|csharp|api]    (csharp: section 4's csharp shell alone)
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"
#include "field_capture.h"
#include "pipe_gate.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/netcf_writer.h"

namespace {

using xrpm::bench::Child;
using xrpm::bench::ConnectClient;
using xrpm::bench::EndpointOf;
using xrpm::bench::Median;

// The xrpm-mono under test: this build's, or --launcher PATH (e.g. another checkout's build, to
// compare two versions of the agent on the same machine moments apart).
std::string kLauncher = XRPM_MONO_LAUNCHER;
const std::string kDir = XRPM_MONO_PROGRAMS_DIR;

// The median ns/allocation of AllocBench.exe's rounds after the first, run as `argv`.
double AllocNs(const std::vector<std::string>& argv, int rounds) {
  Child c(argv);
  std::vector<double> ns;
  for (int r = 0; r < rounds; ++r) {
    const std::string line = c.WaitLine("alloc_ns ", false);
    if (line.empty()) break;
    if (r > 0) ns.push_back(std::atof(line.c_str() + 9));
  }
  c.Wait();
  return static_cast<int>(ns.size()) == rounds - 1 ? Median(ns) : 0;
}

// Section 3 (see the header comment). Returns the process exit code.
int AllocationPath(int runs, int allocs) {
  constexpr int kRounds = 6;  // AllocBench rounds per process; the first (JIT) is dropped
  const std::vector<std::string> prog = {kDir + "/AllocBench.exe", std::to_string(allocs),
                                         std::to_string(kRounds)};
  auto with = [&](std::vector<std::string> pre) {
    pre.insert(pre.end(), prog.begin(), prog.end());
    return pre;
  };
  const std::vector<std::string> agent = {kLauncher, "--port", "0", "--quiet", "--allocations"};
  auto agent_with = [&](const std::string& sample_bytes) {
    std::vector<std::string> a = agent;
    if (!sample_bytes.empty()) {
      a.push_back("--sample-bytes");
      a.push_back(sample_bytes);
    }
    a.push_back("--");
    return with(a);
  };
  const std::vector<std::vector<std::string>> configs = {with({"mono"}), agent_with("0"),
                                                         agent_with(""), agent_with("256")};
  std::vector<std::vector<double>> ns(configs.size());
  std::vector<double> on_ratio, dense_ratio;
  for (int r = 0; r < runs; ++r) {
    std::vector<double> v;
    for (const auto& c : configs) v.push_back(AllocNs(c, kRounds));
    for (double x : v)
      if (x <= 0) {
        std::fprintf(stderr, "mono_bench: an AllocBench run failed\n");
        return 1;
      }
    for (size_t i = 0; i < v.size(); ++i) ns[i].push_back(v[i]);
    on_ratio.push_back(v[2] / v[1]);
    dense_ratio.push_back(v[3] / v[1]);
    std::printf(
        "round %d: ns/allocation plain mono %.2f, --allocations origins off %.2f, origins on "
        "(16 KiB) %.2f = %.3fx, origins on (256 B) %.2f = %.3fx\n",
        r + 1, v[0], v[1], v[2], on_ratio.back(), v[3], dense_ratio.back());
    std::fflush(stdout);
  }

  // The tracker's own figures, from the agent's log line after a capture of the sample game.
  Child game({kLauncher, "--port", "0", "--allocations", "--", kDir + "/XnaBubbles.exe"});
  const std::string l = game.WaitLine("listening on 127.0.0.1:", true);
  std::string origins_line;
  if (!l.empty() && !game.WaitLine("XnaBubbles: running", true).empty()) {
    std::this_thread::sleep_for(std::chrono::seconds(5));  // let it run a little
    std::string error;
    xrpm::client::CaptureResult res;
    if (auto c = ConnectClient(EndpointOf(l), &error)) {
      if (c->StartCapture(&error) && c->WaitCapture(120000, &res) && res.ok)
        origins_line = game.WaitLine("allocation origins:", true, 30);
      c->Disconnect();
    }
  }

  std::printf("\nAllocBench.exe %d %d, %d rounds; medians:\n", allocs, kRounds, runs);
  std::printf("| allocation, origins on (16 KiB) | %.2f ns | origins off %.2f ns | %.3fx |\n",
              Median(ns[2]), Median(ns[1]), Median(on_ratio));
  std::printf("| allocation, origins on (256 B) | %.2f ns | origins off %.2f ns | %.3fx |\n",
              Median(ns[3]), Median(ns[1]), Median(dense_ratio));
  std::printf("| allocation, --allocations, origins off | %.2f ns | plain mono %.2f ns | %.3fx |\n",
              Median(ns[1]), Median(ns[0]), Median(ns[1]) / Median(ns[0]));
  std::printf("XnaBubbles.exe after 5 s: %s\n",
              origins_line.empty() ? "(no origins line)" : origins_line.c_str());
  return origins_line.empty() ? 1 : 0;
}

// Section 5 (see the header comment): ApiBench.exe's "api_ns" figures of one process, run as
// `argv` ({empty, marker, scope, using_noop}; all 0 when it failed). The program also times an
// empty call (`call`), which this section does not report.
std::vector<double> ApiNs(const std::vector<std::string>& argv) {
  Child c(argv);
  const std::string line = c.WaitLine("api_ns ", false);
  c.Wait();
  std::vector<double> v(4, 0);
  double call = 0;
  if (std::sscanf(line.c_str(), "api_ns empty %lf call %lf marker %lf scope %lf using_noop %lf",
                  &v[0], &call, &v[1], &v[2], &v[3]) != 5)
    return std::vector<double>(4, 0);
  return v;
}

int ApiCost(int runs, int frames) {
  const std::vector<std::string> prog = {kDir + "/ApiBench.exe", std::to_string(frames)};
  std::vector<std::string> plain = {"mono"}, agent = {kLauncher, "--port", "0", "--quiet", "--"};
  plain.insert(plain.end(), prog.begin(), prog.end());
  agent.insert(agent.end(), prog.begin(), prog.end());
  // [config][figure] over rounds; figures: marker - empty, scope - empty, scope - using_noop
  std::vector<std::vector<double>> d[2] = {std::vector<std::vector<double>>(3),
                                           std::vector<std::vector<double>>(3)};
  std::vector<double> raw[2][4];
  for (int r = 0; r < runs; ++r) {
    for (int c = 0; c < 2; ++c) {
      const std::vector<double> v = ApiNs(c == 0 ? plain : agent);
      if (v[0] <= 0) {
        std::fprintf(stderr, "mono_bench: an ApiBench run failed\n");
        return 1;
      }
      for (int i = 0; i < 4; ++i) raw[c][i].push_back(v[i]);
      d[c][0].push_back(v[1] - v[0]);
      d[c][1].push_back(v[2] - v[0]);
      d[c][2].push_back(v[2] - v[3]);
      std::printf("round %d, %s: ns/call empty %.2f, Marker %.2f, Scope %.2f, using no-op %.2f\n",
                  r + 1, c == 0 ? "no agent (plain mono)" : "agent (xrpm-mono)", v[0], v[1], v[2],
                  v[3]);
      std::fflush(stdout);
    }
  }
  std::printf("\nApiBench.exe %d, %d rounds; medians (ns per call):\n", frames, runs);
  std::printf(
      "| | empty loop | Marker | vs empty | Scope enter+leave | vs empty | vs using no-op |\n");
  for (int c = 0; c < 2; ++c)
    std::printf("| %s | %.2f | %.2f | %+.2f | %.2f | %+.2f | %+.2f |\n",
                c == 0 ? "no agent" : "xrpm-mono", Median(raw[c][0]), Median(raw[c][1]),
                Median(d[c][0]), Median(raw[c][2]), Median(d[c][1]), Median(d[c][2]));
  return 0;
}

std::string Fmt1(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Section 4, one program: `argv` under xrpm-mono, captured `runs` times three ways once its
// stderr shows `ready`, or, with a `gate`, once the program writes to it (it is held there until
// the captures are done). Prints one line per capture and the medians; false when a capture
// fails.
bool RealHeap(const std::string& name, const std::vector<std::string>& argv,
              const std::string& ready, xrpm::testing::PipeGate* gate, int runs) {
  std::vector<std::string> a = {kLauncher, "--port", "0", "--"};
  a.insert(a.end(), argv.begin(), argv.end());
  Child prog(a);
  const std::string l = prog.WaitLine("listening on 127.0.0.1:", true);
  const bool held =
      gate ? gate->WaitForWriter(600000, [&] { return waitpid(prog.pid, nullptr, WNOHANG) == 0; })
           : ready.empty() || !prog.WaitLine(ready, true).empty();
  if (l.empty() || !held) {
    Child::Pump(prog.err, &prog.err_buf);
    std::fprintf(stderr, "mono_bench: %s did not start or reach its capture point:\n%s\n",
                 name.c_str(), prog.err_buf.c_str());
    return false;
  }
  const std::string endpoint = EndpointOf(l);
  auto peer = xrpm::testing::RawPeer::Connect(
      static_cast<uint16_t>(std::atoi(endpoint.c_str() + endpoint.find(':') + 1)), 60000);
  xrpm::wire::Welcome welcome;
  std::string error;
  if (!peer || !xrpm::testing::HandshakeFields(*peer, &welcome, &error)) {
    std::fprintf(stderr, "mono_bench: %s: %s\n", name.c_str(), peer ? error.c_str() : "no peer");
    return false;
  }
  const char* kinds[3] = {"no fields", "--no-values", "values"};
  std::vector<double> ratio[3], pause[3], gc[3], walk[3], e2e[3];
  uint64_t objects = 0, types = 0;
  for (int r = 0; r < runs; ++r) {
    for (int k = 0; k < 3; ++k) {
      xrpm::testing::FieldCapture c;
      const auto started = std::chrono::steady_clock::now();
      if (!xrpm::testing::CaptureFields(*peer, welcome, k == 2, 0, &c, &error, 600000, k > 0)) {
        std::fprintf(stderr, "mono_bench: %s, %s: %s\n", name.c_str(), kinds[k], error.c_str());
        return false;
      }
      const xrpm::wire::CaptureEnd& e = c.end;
      objects = e.object_count();
      types = c.type_names.size();
      pause[k].push_back(e.pause_us() / 1000.0);
      gc[k].push_back(e.gc_us() / 1000.0);
      walk[k].push_back(e.walk_us() / 1000.0);
      ratio[k].push_back(e.gc_us() ? double(e.pause_us()) / double(e.gc_us()) : 0);
      // End to end: request sent -> CaptureEnd decoded (the capture's whole cost to the host).
      const double e2e_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      e2e[k].push_back(e2e_ms);
      // A snapshot walk: walk_us is the snapshot's share of the pause; the walk came after.
      const std::string after = e.walk_after_pause_us()
                                    ? ", then walked " + Fmt1(e.walk_after_pause_us() / 1000.0) +
                                          " ms while the program ran"
                                    : "";
      std::printf(
          "%s round %d, %-11s: %llu objects, %zu types; pause %.1f ms (GC %.1f, %s %.1f%s) = "
          "%.2fx its GC; agent peak %.1f B/object; end to end %.0f ms = %.1fx the pause\n",
          name.c_str(), r + 1, kinds[k], static_cast<unsigned long long>(objects),
          c.type_names.size(), pause[k].back(), gc[k].back(),
          e.walk_after_pause_us() ? "snapshot" : "walk", walk[k].back(), after.c_str(),
          ratio[k].back(),
          e.object_count() ? double(e.agent_peak_bytes()) / double(e.object_count()) : 0.0, e2e_ms,
          pause[k].back() > 0 ? e2e_ms / pause[k].back() : 0.0);
      std::fflush(stdout);
    }
  }
  peer->DisconnectNow();
  std::string rest;
  if (gate) gate->Drain(600000, &rest);  // let it finish
  for (int k = 0; k < 3; ++k)
    std::printf(
        "| %s, %s | pause %.1f ms | GC %.1f ms, walk or snapshot %.1f ms | **%.2fx** | end to "
        "end %.0f ms |\n",
        name.c_str(), kinds[k], Median(pause[k]), Median(gc[k]), Median(walk[k]), Median(ratio[k]),
        Median(e2e[k]));
  std::printf("(%s: %llu objects, %llu types in the last capture; medians of %d rounds)\n",
              name.c_str(), static_cast<unsigned long long>(objects),
              static_cast<unsigned long long>(types), runs);
  return true;
}

// Section 4 (see the header comment). Returns the process exit code.
int RealHeaps(int runs, bool gendarme) {
  const std::string tmp = "/tmp/mono_bench_real." + std::to_string(getpid());
  const std::string go = tmp + ".csharp_go", report = tmp + ".gendarme_report";
  unlink(go.c_str());
  unlink(report.c_str());
  setenv("XRPM_TEST_GO", go.c_str(), 1);  // the shell's script waits for this file
  bool ok = !gendarme;
  if (gendarme) {
    xrpm::testing::PipeGate gate(report);
    if (!gate.error().empty())
      std::fprintf(stderr, "mono_bench: gendarme: %s\n", gate.error().c_str());
    else
      ok = RealHeap("gendarme",
                    {"/usr/lib/gendarme/gendarme.exe", "--quiet", "--log", report,
                     "/usr/lib/mono/4.5/System.dll", "/usr/lib/mono/4.5/System.Xml.dll"},
                    "", &gate, runs);
  }
  unlink(report.c_str());
  ok = RealHeap("csharp", {"/usr/lib/mono/4.5/csharp.exe", XRPM_MONO_REAL_DIR "/csharp_table.csx"},
                "csharp: table of 5000 rows", nullptr, runs) &&
       ok;
  return ok ? 0 : 1;
}

double FrameSeconds(Child& c) {  // "XnaBubbles: N frames in S s"
  const std::string line = c.WaitLine("frames in", true);
  unsigned long long frames = 0;
  double secs = 0;
  if (std::sscanf(line.c_str(), "XnaBubbles: %llu frames in %lf s", &frames, &secs) != 2 ||
      frames == 0)
    return 0;
  return secs / static_cast<double>(frames);
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 1000000, runs = 5, frames = 20000, allocs = 5000000;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--nodes")
      nodes = std::atoi(argv[i + 1]);
    else if (a == "--allocs")
      allocs = std::atoi(argv[i + 1]);
    else if (a == "--only")
      only = argv[i + 1];
    else if (a == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (a == "--frames")
      frames = std::atoi(argv[i + 1]);
    else if (a == "--launcher")
      kLauncher = argv[i + 1];
  }

  if (only == "alloc") return AllocationPath(runs, allocs);
  if (only == "real") return RealHeaps(runs, true);
  if (only == "csharp") return RealHeaps(runs, false);  // section 4 without gendarme
  if (only == "api") return ApiCost(runs, frames == 20000 ? 3000 : frames);
  // ---- 1. capture vs GC.Collect() ----
  Child heap({kLauncher, "--port", "0", "--frame", "HeapBench.Bench:Tick", "--",
              kDir + "/HeapBench.exe", std::to_string(nodes)});
  const std::string listening = heap.WaitLine("listening on 127.0.0.1:", true);
  if (listening.empty() || heap.WaitLine("ready", false).empty()) {
    std::fprintf(stderr, "mono_bench: HeapBench did not start:\n%s\n", heap.err_buf.c_str());
    return 1;
  }
  std::string error;
  const auto connected = ConnectClient(EndpointOf(listening), &error, 60000);
  if (!connected) {
    std::fprintf(stderr, "mono_bench: %s\n", error.c_str());
    return 1;
  }
  xrpm::client::HostClient& client = *connected;
  std::vector<double> gc_ms, pause_ms, pause_ratio, induced_ms, walk_ms, wire_ratio, peak_per_obj;
  uint64_t objects = 0, refs = 0, wire = 0, gclog = 0, peak = 0;
  for (int r = 0; r < runs; ++r) {
    heap.Send("gc");
    const std::string gc = heap.WaitLine("gc_us ", false);
    const double gc_us = gc.size() > 6 ? std::atof(gc.c_str() + 6) : 0;
    if (!client.StartCapture(&error)) {
      std::fprintf(stderr, "mono_bench: %s\n", error.c_str());
      return 1;
    }
    xrpm::client::CaptureResult res;
    if (!client.WaitCapture(600000, &res) || !res.ok) {
      std::fprintf(stderr, "mono_bench: capture failed: %s\n", res.error.c_str());
      return 1;
    }
    uint64_t bytes = 0;
    xrpm::formats::WriteNetcf(*res.snapshot, [&](std::string_view b) { bytes += b.size(); });
    const auto& st = res.stats;
    objects = st.objects;
    refs = st.refs;
    wire = st.wire_bytes;
    gclog = bytes;
    peak = st.agent_peak_bytes;
    gc_ms.push_back(gc_us / 1000);
    pause_ms.push_back(st.pause_us / 1000.0);
    induced_ms.push_back(st.gc_us / 1000.0);
    walk_ms.push_back(st.walk_us / 1000.0);
    pause_ratio.push_back(gc_us > 0 ? st.pause_us / gc_us : 0);
    wire_ratio.push_back(bytes ? static_cast<double>(st.wire_bytes) / bytes : 0);
    peak_per_obj.push_back(st.objects ? static_cast<double>(st.agent_peak_bytes) / st.objects : 0);
    std::printf(
        "round %d: GC.Collect %.1f ms; capture pause %.1f ms (GC %.1f, walk %.1f) = %.2fx; "
        "wire %.2f MiB vs .gclog %.2f MiB = %.3fx; agent peak %.2f MiB = %.1f B/object\n",
        r + 1, gc_us / 1000, st.pause_us / 1000.0, st.gc_us / 1000.0, st.walk_us / 1000.0,
        pause_ratio.back(), st.wire_bytes / 1048576.0, bytes / 1048576.0, wire_ratio.back(),
        st.agent_peak_bytes / 1048576.0, peak_per_obj.back());
    std::fflush(stdout);
  }
  client.Disconnect();
  heap.Send("quit");
  heap.Wait();

  // ---- 2. counters: frame time with and without the agent ----
  std::vector<double> plain_us, agent_us, cost;
  for (int r = 0; r < runs; ++r) {
    Child plain(
        {"mono", kDir + "/XnaBubbles.exe", "--fps", "0", "--frames", std::to_string(frames)});
    const double p = FrameSeconds(plain);
    plain.Wait();
    Child agent({kLauncher, "--port", "0", "--", kDir + "/XnaBubbles.exe", "--fps", "0", "--frames",
                 std::to_string(frames)});
    const std::string l = agent.WaitLine("listening on 127.0.0.1:", true);
    const auto counters = ConnectClient(EndpointOf(l), &error);
    if (counters) counters->SubscribeCounters(100);
    const double a = FrameSeconds(agent);
    const uint64_t samples = counters ? counters->counters().received() : 0;
    if (counters) counters->Disconnect();
    agent.Wait();
    if (p <= 0 || a <= 0) {
      std::fprintf(stderr, "mono_bench: a frame-time run failed\n");
      return 1;
    }
    plain_us.push_back(p * 1e6);
    agent_us.push_back(a * 1e6);
    cost.push_back(a / p - 1);
    std::printf(
        "round %d: frame %.1f us plain mono, %.1f us with the agent and %llu counter "
        "samples: %+.2f%%\n",
        r + 1, p * 1e6, a * 1e6, static_cast<unsigned long long>(samples), cost.back() * 100);
    std::fflush(stdout);
  }

  std::printf("\nC# heap: %llu objects, %llu references (HeapBench.exe %d), %d rounds; medians:\n",
              static_cast<unsigned long long>(objects), static_cast<unsigned long long>(refs),
              nodes, runs);
  std::printf(
      "| game pause of a capture | %.1f ms | GC.Collect() of the same heap %.1f ms | %.2fx |\n",
      Median(pause_ms), Median(gc_ms), Median(pause_ratio));
  std::printf("| - of which the induced full GC | %.1f ms | | |\n", Median(induced_ms));
  std::printf("| - of which walk + encode | %.1f ms | | |\n", Median(walk_ms));
  std::printf("| bytes on the wire | %.2f MiB | .gclog %.2f MiB | %.3fx |\n", wire / 1048576.0,
              gclog / 1048576.0, Median(wire_ratio));
  std::printf("| agent peak memory | %.2f MiB | %llu objects | %.1f B/object |\n", peak / 1048576.0,
              static_cast<unsigned long long>(objects), Median(peak_per_obj));
  std::printf(
      "| frame time with the agent and counters | %.1f us | plain mono %.1f us | %+.2f%% |\n",
      Median(agent_us), Median(plain_us), Median(cost) * 100);
  return AllocationPath(runs, allocs);
}
