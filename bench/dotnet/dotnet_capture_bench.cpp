// dotnet_capture_bench: the CoreCLR port's figures (docs/PERFORMANCE.md, ".NET port: the capture on
// a 1 M-object heap"), each against its baseline measured in the same run, on a real .NET heap:
//   1. HeapBench.dll NODES (NODES Node objects, 3 references each; the Mono benchmark's program
//      built by the SDK) under xrpm-dotnet with its frame method hooked; per round a plain
//      GC.Collect() of that heap timed inside the program (the baseline: the port asks for no GC
//      events outside a capture), then a capture by the host client: the game pause (the
//      capture's collection with the heap recorded: on CoreCLR the world is stopped only inside
//      it), of which the time waiting for the frame boundary, the end to end (request sent ->
//      CaptureEnd decoded), bytes on the wire vs the .gclog of the captured snapshot, and the
//      agent's memory: what the agent core holds (CaptureEnd agent_peak_bytes) and the growth of
//      the process's peak resident memory over the capture against the same growth over the
//      plain GC.Collect() (/proc/PID/status VmHWM, reset through /proc/PID/clear_refs), and the
//      capture's peak over the peak of the first GC.Collect(), before any capture (memory the
//      agent keeps between captures counts there), per object; and the plain GC.Collect()s
//      after a capture against the first, before any (what a capture leaves the game's
//      collections);
//   2. the idle agent: XnaBubbles.dll --no-leak unthrottled (--fps 0) for FRAMES frames under plain
//      `dotnet`, under xrpm-dotnet (the frame method hooked, nobody connected) and under
//      xrpm-dotnet --no-frame, alternating; the time per frame against plain dotnet's, wall and
//      processor time (every thread of the process, the agent's included), medians;
//   3. the compiler's heap: the SDK's csc compiling CLASSES generated classes under xrpm-dotnet
//      --no-frame, captured up to R times, 3 s apart, while it runs: each pause against the
//      capture's own collection proper, end to end against the pause.
//
//   dotnet_capture_bench [--nodes N] [--runs R] [--frames F] [--classes C]
//                        [--only heap|idle|compiler] [--walk snapshot|paused]
// --walk goes to xrpm-dotnet for 1. and 3. (default: the launcher's, snapshot). With the
// snapshot walk the child's own pages (its copy of the record, the pages copied on write) are
// in another process: not in the memory figures, which are the program's.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_child.h"
#include "real_programs.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/netcf_writer.h"

namespace {

using xrpm::bench::Child;
using xrpm::bench::EndpointOf;
using xrpm::bench::Median;

const std::string kDotnetLauncher = XRPM_DOTNET_LAUNCHER;
const std::string kDotnetPrograms = XRPM_DOTNET_PROGRAMS_DIR;

std::string ProgramDll(const std::string& name) {
  return kDotnetPrograms + "/" + name + "/" + name + ".dll";
}

// The first child of `pid` (xrpm-dotnet's: the program), 0 if none.
int FirstChildOf(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  int child = 0;
  f >> child;
  return child;
}

// A process's resident memory figures (/proc/PID/status, kB -> bytes); 0 when unreadable.
uint64_t StatusBytes(int pid, const char* key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0)
      return std::strtoull(line.c_str() + strlen(key), nullptr, 10) * 1024;
  return 0;
}

// Resets the process's peak resident size to its current one ("5" to clear_refs); false if the
// kernel refused.
bool ResetPeak(int pid) {
  std::ofstream f("/proc/" + std::to_string(pid) + "/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

// The growth of `pid`'s peak resident memory while `fn` runs (0 when it cannot be measured),
// and that peak itself in *peak.
template <typename Fn>
uint64_t PeakGrowth(int pid, Fn&& fn, uint64_t* peak_bytes = nullptr) {
  const bool reset = pid > 0 && ResetPeak(pid);
  const uint64_t before = reset ? StatusBytes(pid, "VmRSS:") : 0;
  fn();
  const uint64_t peak = reset ? StatusBytes(pid, "VmHWM:") : 0;
  if (peak_bytes) *peak_bytes = peak;
  return peak > before ? peak - before : 0;
}

std::string g_walk = "snapshot";  // --walk

int HeapSection(int nodes, int runs) {
  Child heap({kDotnetLauncher, "--port", "0", "--frame", "HeapBench.Bench:Tick", "--walk", g_walk,
              "--", ProgramDll("HeapBench"), std::to_string(nodes)});
  const std::string listening = heap.WaitLine("listening on 127.0.0.1:", true);
  if (listening.empty() || heap.WaitLine("ready", false).empty()) {
    Child::Pump(heap.err, &heap.err_buf);
    std::fprintf(stderr, "dotnet_capture_bench: HeapBench did not start:\n%s\n",
                 heap.err_buf.c_str());
    return 1;
  }
  const int pid = FirstChildOf(heap.pid);
  std::string error;
  const auto connected = xrpm::bench::ConnectClient(EndpointOf(listening), &error, 60000);
  if (!connected) {
    std::fprintf(stderr, "dotnet_capture_bench: %s\n", error.c_str());
    return 1;
  }
  xrpm::client::HostClient& client = *connected;
  std::vector<double> gc_ms, pause_ms, pause_ratio, own_gc_ms, own_ratio, wait_ms, e2e_ms,
      e2e_ratio, wire_ratio, core_per_obj, rss_per_obj, held_per_obj;
  // The process's peak in the first GC.Collect(), before any capture: what a capture's peak is
  // held against, so that memory the agent keeps between captures (its allocator's free lists,
  // scratch kept at its largest) counts too, which the growth over the capture's start misses.
  uint64_t first_gc_peak = 0;
  uint64_t objects = 0, refs = 0, wire = 0, gclog = 0;
  for (int r = 0; r < runs; ++r) {
    double gc_us = 0;
    uint64_t gc_peak = 0, cap_peak = 0;
    const uint64_t gc_growth = PeakGrowth(
        pid,
        [&] {
          heap.Send("gc");
          const std::string gc = heap.WaitLine("gc_us ", false);
          gc_us = gc.size() > 6 ? std::atof(gc.c_str() + 6) : 0;
        },
        &gc_peak);
    if (r == 0) first_gc_peak = gc_peak;
    xrpm::client::CaptureResult res;
    double e2e = 0;
    const uint64_t cap_growth = PeakGrowth(
        pid,
        [&] {
          const auto started = std::chrono::steady_clock::now();
          if (!client.StartCapture(&error)) return;
          if (!client.WaitCapture(600000, &res)) res.ok = false;
          e2e =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count();
        },
        &cap_peak);
    if (!res.ok || !res.snapshot) {
      std::fprintf(stderr, "dotnet_capture_bench: capture failed: %s %s\n", error.c_str(),
                   res.error.c_str());
      return 1;
    }
    uint64_t bytes = 0;
    xrpm::formats::WriteNetcf(*res.snapshot, [&](std::string_view b) { bytes += b.size(); });
    const auto& st = res.stats;
    objects = st.objects;
    refs = st.refs;
    wire = st.wire_bytes;
    gclog = bytes;
    // On CoreCLR the world stops inside the capture's collection only: the pause is that
    // collection (pause_us; gc_us its collection proper, walk_us the runtime's heap report to the
    // agent); the wait for the frame boundary and the record's memory before it is the stop
    // wait (stop_wait_us), the game running.
    const double pause = st.pause_us / 1000.0;
    gc_ms.push_back(gc_us / 1000);
    pause_ms.push_back(pause);
    wait_ms.push_back(st.stop_wait_us / 1000.0);
    pause_ratio.push_back(gc_us > 0 ? st.pause_us / gc_us : 0);
    own_gc_ms.push_back(st.gc_us / 1000.0);
    own_ratio.push_back(st.gc_us ? static_cast<double>(st.pause_us) / st.gc_us : 0);
    e2e_ms.push_back(e2e);
    e2e_ratio.push_back(pause > 0 ? e2e / pause : 0);
    wire_ratio.push_back(bytes ? static_cast<double>(st.wire_bytes) / bytes : 0);
    core_per_obj.push_back(st.objects ? static_cast<double>(st.agent_peak_bytes) / st.objects : 0);
    const double extra = static_cast<double>(cap_growth) - static_cast<double>(gc_growth);
    rss_per_obj.push_back(st.objects ? extra / st.objects : 0);
    const double held = static_cast<double>(cap_peak) - static_cast<double>(first_gc_peak);
    held_per_obj.push_back(st.objects && first_gc_peak ? held / st.objects : 0);
    std::printf(
        "round %d: GC.Collect %.1f ms; capture pause %.1f ms = %.2fx (its own collection %.1f ms: "
        "%.2fx); end to end %.0f ms = "
        "%.2fx the pause; wire %.2f MiB vs .gclog %.2f MiB = %.3fx; agent core peak %.1f "
        "B/object; peak RSS growth capture %.1f MiB vs GC.Collect %.1f MiB = %+.1f B/object; "
        "peak over the first GC.Collect's %+.1f B/object\n",
        r + 1, gc_us / 1000, pause, pause_ratio.back(), own_gc_ms.back(), own_ratio.back(), e2e,
        e2e_ratio.back(), st.wire_bytes / 1048576.0, bytes / 1048576.0, wire_ratio.back(),
        core_per_obj.back(), cap_growth / 1048576.0, gc_growth / 1048576.0, rss_per_obj.back(),
        held_per_obj.back());
    std::fflush(stdout);
  }
  client.Disconnect();
  heap.Send("quit");
  heap.Wait();
  std::printf(
      "\n.NET heap: %llu objects, %llu references (HeapBench.dll %d), %d rounds; medians:\n",
      static_cast<unsigned long long>(objects), static_cast<unsigned long long>(refs), nodes, runs);
  std::printf(
      "| game pause of a capture | %.1f ms | GC.Collect() of the same heap %.1f ms | %.2fx |\n",
      Median(pause_ms), Median(gc_ms), Median(pause_ratio));
  std::printf(
      "| game pause of a capture | %.1f ms | its own collection, before the heap report %.1f ms | "
      "%.2fx |\n",
      Median(pause_ms), Median(own_gc_ms), Median(own_ratio));
  // The game's next collection after a capture, against its first (before any): what the
  // capture leaves behind for the game's collections (a snapshot process's write-protected
  // pages, when they are not made writable again, make it several times slower: cow_child.h).
  if (gc_ms.size() > 1 && gc_ms[0] > 0) {
    const std::vector<double> after(gc_ms.begin() + 1, gc_ms.end());
    std::printf(
        "| GC.Collect() after a capture | %.1f ms | GC.Collect() before any capture %.1f ms | "
        "%.2fx |\n",
        Median(after), gc_ms[0], Median(after) / gc_ms[0]);
  }
  std::printf(
      "| before the pause: frame boundary, the record's memory (stop wait) | %.1f ms | | |\n",
      Median(wait_ms));
  std::printf("| end to end (request -> CaptureEnd decoded) | %.0f ms | the pause | %.2fx |\n",
              Median(e2e_ms), Median(e2e_ratio));
  std::printf("| bytes on the wire | %.2f MiB | .gclog %.2f MiB | %.3fx |\n", wire / 1048576.0,
              gclog / 1048576.0, Median(wire_ratio));
  std::printf("| agent core peak (batches, encoder) | | per object | %.1f B/object |\n",
              Median(core_per_obj));
  std::printf("| peak RSS growth, capture minus GC.Collect() | | per object | %.1f B/object |\n",
              Median(rss_per_obj));
  std::printf(
      "| peak RSS of a capture over the first GC.Collect()'s (before any capture) | | per "
      "object | %.1f B/object (rounds %.1f-%.1f) |\n",
      Median(held_per_obj), *std::min_element(held_per_obj.begin(), held_per_obj.end()),
      *std::max_element(held_per_obj.begin(), held_per_obj.end()));
  return 0;
}

// The SDK's C# compiler compiling `classes` generated classes (real_programs.h) under xrpm-dotnet
// --no-frame, captured back to back while it runs (at most `runs` captures): each capture's
// pause against its own collection proper (gc_us: the runtime's collection until its heap
// report) and end to end against the pause. A compiler's heap changes between captures, so
// there is no plain GC.Collect() of the same heap to compare with: the collection proper is the
// baseline.
int CompilerSection(int classes, int runs) {
  const xrpm::testing::DotnetSdk sdk = xrpm::testing::FindDotnetSdk();
  if (!sdk.missing.empty()) {
    std::fprintf(stderr, "dotnet_capture_bench: compiler: %s\n", sdk.missing.c_str());
    return 1;
  }
  char dir_template[] = "/tmp/xrpm-compiler-bench-XXXXXX";
  if (!mkdtemp(dir_template)) return 1;
  const std::string dir = dir_template;
  xrpm::testing::WriteGeneratedCSharp(dir + "/Gen.cs", "Gen", classes);
  xrpm::testing::WriteCscResponseFile(sdk, dir + "/csc.rsp", dir + "/Gen.cs", dir + "/Gen.dll");
  Child csc({kDotnetLauncher, "--port", "0", "--no-frame", "--walk", g_walk, "--", sdk.dotnet,
             "exec", sdk.csc, "@" + dir + "/csc.rsp"});
  const std::string listening = csc.WaitLine("listening on 127.0.0.1:", true);
  std::string error;
  const auto connected = listening.empty()
                             ? nullptr
                             : xrpm::bench::ConnectClient(EndpointOf(listening), &error, 60000);
  if (!connected) {
    std::fprintf(stderr, "dotnet_capture_bench: the compiler's agent: %s\n", error.c_str());
    return 1;
  }
  xrpm::client::HostClient& client = *connected;
  std::vector<double> pause_ms, own_ratio, e2e_ratio, objects, record_per_obj;
  for (int r = 0; r < runs; ++r) {
    // 3 s of compiling before each capture: its heap grows past start-up (the first seconds
    // load the compiler, a few hundred objects) towards the syntax trees and symbols.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    xrpm::client::CaptureResult res;
    const auto started = std::chrono::steady_clock::now();
    if (!client.StartCapture(&error) || !client.WaitCapture(600000, &res) || !res.ok) break;
    const double e2e =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    const auto& st = res.stats;
    const double pause = st.pause_us / 1000.0;
    pause_ms.push_back(pause);
    own_ratio.push_back(st.gc_us ? static_cast<double>(st.pause_us) / st.gc_us : 0);
    e2e_ratio.push_back(pause > 0 ? e2e / pause : 0);
    objects.push_back(static_cast<double>(st.objects));
    // The port's log line of the capture: "capture: N objects (... ms; recorded in B bytes ...".
    const std::string logged = csc.WaitLine("ms; recorded in ", true, 10);
    unsigned long long logged_objects = 0, recorded = 0;
    const size_t at = logged.find("recorded in ");
    if (std::sscanf(logged.c_str(), "xrpm-agent: capture: %llu objects", &logged_objects) == 1 &&
        at != std::string::npos && logged_objects)
      recorded = std::strtoull(logged.c_str() + at + 12, nullptr, 10);
    record_per_obj.push_back(logged_objects ? static_cast<double>(recorded) / logged_objects : 0);
    std::printf(
        "capture %d: %llu objects, %llu references; pause %.1f ms = %.2fx its own collection "
        "(%.1f ms); end to end %.0f ms = %.2fx the pause; the port's record %.1f B/object\n",
        r + 1, static_cast<unsigned long long>(st.objects),
        static_cast<unsigned long long>(st.refs), pause, own_ratio.back(), st.gc_us / 1000.0, e2e,
        e2e_ratio.back(), record_per_obj.back());
    std::fflush(stdout);
  }
  client.Disconnect();
  const int rc = csc.Wait();
  std::filesystem::remove_all(dir);
  if (pause_ms.empty()) {
    std::fprintf(stderr, "dotnet_capture_bench: no capture of the compiler completed\n");
    return 1;
  }
  std::printf(
      "\ncsc compiling %d generated classes (exit %d), %zu captures while it ran; medians:\n",
      classes, rc, pause_ms.size());
  std::printf("| compiler heap: objects per capture | %.0f | | |\n", Median(objects));
  std::printf(
      "| compiler heap: game pause of a capture | %.1f ms | its own collection, before the heap "
      "report | %.2fx |\n",
      Median(pause_ms), Median(own_ratio));
  std::printf("| compiler heap: end to end | | the pause | %.2fx |\n", Median(e2e_ratio));
  std::printf("| compiler heap: the port's record (its log) | | per object | %.1f B/object |\n",
              Median(record_per_obj));
  return 0;
}

// "XnaBubbles: N frames in S s (cpu C s)" -> {wall, cpu} seconds per frame ({0, 0} if absent).
std::pair<double, double> SecondsPerFrame(Child& c) {
  const std::string line = c.WaitLine("frames in", true);
  unsigned long long frames = 0;
  double secs = 0, cpu = 0;
  if (std::sscanf(line.c_str(), "XnaBubbles: %llu frames in %lf s (cpu %lf s)", &frames, &secs,
                  &cpu) != 3 ||
      frames == 0)
    return {0, 0};
  return {secs / static_cast<double>(frames), cpu / static_cast<double>(frames)};
}

int IdleSection(int frames, int runs) {
  // --no-leak: the game's heap stays the same size, so every frame costs the same.
  const std::vector<std::string> game = {
      ProgramDll("XnaBubbles"), "--no-leak", "--fps", "0", "--frames", std::to_string(frames)};
  auto with = [&](std::vector<std::string> pre) {
    pre.insert(pre.end(), game.begin(), game.end());
    return pre;
  };
  const std::vector<std::vector<std::string>> configs = {
      with({"dotnet"}), with({kDotnetLauncher, "--port", "0", "--quiet", "--"}),
      with({kDotnetLauncher, "--port", "0", "--quiet", "--no-frame", "--"})};
  const char* names[] = {"plain dotnet", "xrpm-dotnet (frame hook)", "xrpm-dotnet --no-frame"};
  // [config]: wall and processor time per frame (us), and their ratios to plain dotnet's.
  std::vector<double> wall[3], cpu[3], wall_ratio[3], cpu_ratio[3];
  for (int r = 0; r < runs; ++r) {
    std::pair<double, double> v[3];
    for (int c = 0; c < 3; ++c) {
      Child p(configs[c]);
      v[c] = SecondsPerFrame(p);
      p.Wait();
      if (v[c].first <= 0 || v[c].second <= 0) {
        std::fprintf(stderr, "dotnet_capture_bench: %s did not report its frames\n", names[c]);
        return 1;
      }
      wall[c].push_back(v[c].first * 1e6);
      cpu[c].push_back(v[c].second * 1e6);
    }
    for (int c = 0; c < 3; ++c) {
      wall_ratio[c].push_back(v[c].first / v[0].first);
      cpu_ratio[c].push_back(v[c].second / v[0].second);
    }
    std::printf(
        "round %d: us/frame wall (cpu) plain %.2f (%.2f), frame hook %.2f (%.2f) = %+.2f%% "
        "(%+.2f%%), --no-frame %.2f (%.2f) = %+.2f%% (%+.2f%%)\n",
        r + 1, wall[0].back(), cpu[0].back(), wall[1].back(), cpu[1].back(),
        (wall_ratio[1].back() - 1) * 100, (cpu_ratio[1].back() - 1) * 100, wall[2].back(),
        cpu[2].back(), (wall_ratio[2].back() - 1) * 100, (cpu_ratio[2].back() - 1) * 100);
    std::fflush(stdout);
  }
  std::printf("\nXnaBubbles.dll --no-leak --fps 0 --frames %d, %d rounds; medians:\n", frames,
              runs);
  for (int c = 1; c < 3; ++c)
    std::printf(
        "| %s, idle | wall %.2f us/frame, cpu %.2f us/frame | plain dotnet: wall %.2f, cpu %.2f "
        "| wall %+.2f%%, cpu %+.2f%% |\n",
        names[c], Median(wall[c]), Median(cpu[c]), Median(wall[0]), Median(cpu[0]),
        (Median(wall_ratio[c]) - 1) * 100, (Median(cpu_ratio[c]) - 1) * 100);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 1000000, runs = 5, frames = 50000, classes = 20000;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--nodes")
      nodes = std::atoi(argv[i + 1]);
    else if (a == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (a == "--frames")
      frames = std::atoi(argv[i + 1]);
    else if (a == "--only")
      only = argv[i + 1];
    else if (a == "--classes")
      classes = std::atoi(argv[i + 1]);
    else if (a == "--walk")
      g_walk = argv[i + 1];
  }
  int rc = 0;
  if (only.empty() || only == "heap") rc |= HeapSection(nodes, runs);
  if (only.empty() || only == "idle") rc |= IdleSection(frames, runs);
  if (only.empty() || only == "compiler") rc |= CompilerSection(classes, runs);
  return rc;
}
