// dotnet_bench: what --allocations costs on .NET (docs/PERFORMANCE.md, ".NET port:
// allocations"), against baselines measured in the same run. csharp/Allocations in its bench
// mode (`Allocations.dll bench COUNT ROUNDS --gate FIFO`: 32-byte objects in a loop, one in 64
// kept, collections included; "alloc_ns X" per round) runs, in each round one after the other:
//   plain     `dotnet Allocations.dll ...`, no agent;
//   agent     `xrpm-dotnet -- Allocations.dll ...` (the agent and its frame hook, background
//             collections off as the launcher sets them; no allocation callbacks);
//   unheard   `xrpm-dotnet --allocations=exact --sample-bytes 16384 -- Allocations.dll ...`
//             without a host (every allocation through ObjectAllocated, counted and sampled; no
//             stack walk: no subscription keeps samples);
//   exact     the same with a host client subscribed to frames and samples at one per 16 KiB
//             (what `xrpm allocations` does), so every sample's stack is walked and sent;
//   sampled   `xrpm-dotnet --allocations -- Allocations.dll ...` (the runtime's randomized
//             sampling over EventPipe, one per 100 KiB) with a host client subscribed; with
//             allocation origins, so the GC events stay on and every collection reports its
//             survivors (dotnet_origins.h);
//   no-origins the same with --no-origins (GC events per capture), what origins cost.
// Each figure is the median over rounds of a process's median ns/allocation (its first round,
// the JIT's, dropped). The subscribed runs also compare the host's estimates (analysis/
// allocation_profile.h, from the samples) with the program's exact count of Allocations.Small's
// bytes and, for every type together, with GC.GetTotalAllocatedBytes(true).
//
//   dotnet_bench [--runs R] [--allocs N]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"
#include "subprocess.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/client/host_client.h"

namespace {

using xrpm::bench::Median;
using xrpm::testing::BackgroundProcess;

constexpr int kBenchRounds = 6;  // Allocations rounds per process; the first (JIT) is dropped

struct AllocRun {
  double ns = 0;  // median ns/allocation, 0 when the run failed
  double small_bytes = 0, total_bytes = 0;
  double estimated_small = 0;  // the samples' estimate of Allocations.Small's bytes
  double estimated_total = 0;  // of every type's
  uint64_t samples = 0, dropped = 0;
};

// One process: `launcher` (empty: plain dotnet) with `agent_args`, the program gated by a FIFO;
// with `subscribe` a host client takes every sample.
AllocRun RunOnce(const std::string& launcher, const std::vector<std::string>& agent_args,
                 bool subscribe, int allocs) {
  AllocRun out;
  char dir_template[] = "/tmp/xrpm-dotnet-bench-XXXXXX";
  if (!mkdtemp(dir_template)) return out;
  const std::string fifo = std::string(dir_template) + "/gate";
  if (mkfifo(fifo.c_str(), 0600) != 0) return out;
  std::vector<std::string> argv;
  if (launcher.empty()) {
    argv = {"/usr/bin/env", "dotnet"};
  } else {
    argv = {launcher, "--port", "0"};
    argv.insert(argv.end(), agent_args.begin(), agent_args.end());
    argv.push_back("--");
  }
  for (const std::string& a :
       {std::string(XRPM_DOTNET_ALLOCATIONS_DLL), std::string("bench"), std::to_string(allocs),
        std::to_string(kBenchRounds), std::string("--gate"), fifo})
    argv.push_back(a);
  BackgroundProcess p(argv);
  std::unique_ptr<xrpm::client::HostClient> client;
  if (!launcher.empty()) {
    const std::string endpoint = xrpm::testing::WaitForAgentEndpoint(p, 60000);
    if (endpoint.empty()) return out;
    if (subscribe) {
      std::string error;
      client = xrpm::bench::ConnectClient(endpoint, &error);
      if (!client) {
        std::fprintf(stderr, "dotnet_bench: %s\n", error.c_str());
        return out;
      }
      client->SubscribeFrames(16384);
      // FramesStarted: the sink is in place before the program allocates.
      for (int i = 0; i < 300 && !client->frames_status().started; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const int gate = open(fifo.c_str(), O_WRONLY);  // blocks until the program opens it
  if (gate < 0) return out;
  if (write(gate, "go\n", 3) != 3) return out;
  std::vector<double> ns;
  const std::string last = p.log().WaitFor("small_objects ", 600000);
  const std::string all = p.log().All();
  for (size_t at = all.find("alloc_ns "); at != std::string::npos;
       at = all.find("alloc_ns ", at + 1))
    ns.push_back(std::atof(all.c_str() + at + 9));
  double objects = 0;
  if (!last.empty())
    std::sscanf(last.c_str() + last.find("small_objects "),
                "small_objects %lf small_bytes %lf total_bytes %lf", &objects, &out.small_bytes,
                &out.total_bytes);
  if (client) {
    // Every sample: the agent sends them within its flush period; wait until none arrive.
    xrpm::FrameRecording rec;
    size_t seen = SIZE_MAX;
    for (int i = 0; i < 50 && rec.samples.size() != seen; ++i) {
      seen = rec.samples.size();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      client->TakeFrames(&rec);
    }
    const xrpm::analysis::AllocationProfile prof = xrpm::analysis::BuildAllocationProfile(rec);
    for (const auto& t : prof.by_type) {
      if (t.type == "Allocations.Small") out.estimated_small = t.est.bytes;
      out.estimated_total += t.est.bytes;
    }
    out.samples = rec.samples.size();
    out.dropped = rec.dropped_records;
    client->Disconnect();
  }
  (void)!write(gate, "done\n", 5);
  close(gate);
  p.Wait(60000);
  unlink(fifo.c_str());
  rmdir(dir_template);
  if (static_cast<int>(ns.size()) == kBenchRounds) {
    ns.erase(ns.begin());
    out.ns = Median(ns);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, allocs = 5000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--allocs"))
      allocs = std::atoi(argv[i + 1]);
  }
  const std::string launcher = XRPM_DOTNET_LAUNCHER;
  std::vector<double> plain, agent, unheard, allocs_ns, sampled_ns, ratio_plain, ratio_agent,
      ratio_unheard, ratio_sampled, ratio_sampled_agent, est_ratio, sampled_small_ratio,
      sampled_total_ratio, no_origins_ns, ratio_origins;
  for (int r = 0; r < runs; ++r) {
    const AllocRun a = RunOnce("", {}, false, allocs);
    const AllocRun b = RunOnce(launcher, {}, false, allocs);
    const AllocRun u =
        RunOnce(launcher, {"--allocations=exact", "--sample-bytes", "16384"}, false, allocs);
    const AllocRun c =
        RunOnce(launcher, {"--allocations=exact", "--sample-bytes", "16384"}, true, allocs);
    const AllocRun s = RunOnce(launcher, {"--allocations"}, true, allocs);
    const AllocRun n = RunOnce(launcher, {"--allocations", "--no-origins"}, true, allocs);
    if (a.ns <= 0 || b.ns <= 0 || u.ns <= 0 || c.ns <= 0 || s.ns <= 0 || n.ns <= 0) {
      std::fprintf(stderr, "dotnet_bench: a run failed (%.2f %.2f %.2f %.2f %.2f %.2f)\n", a.ns,
                   b.ns, u.ns, c.ns, s.ns, n.ns);
      return 1;
    }
    no_origins_ns.push_back(n.ns);
    ratio_origins.push_back(s.ns / n.ns);
    unheard.push_back(u.ns);
    ratio_unheard.push_back(u.ns / a.ns);
    plain.push_back(a.ns);
    agent.push_back(b.ns);
    allocs_ns.push_back(c.ns);
    ratio_plain.push_back(c.ns / a.ns);
    ratio_agent.push_back(c.ns / b.ns);
    est_ratio.push_back(c.small_bytes > 0 ? c.estimated_small / c.small_bytes : 0);
    sampled_ns.push_back(s.ns);
    ratio_sampled.push_back(s.ns / a.ns);
    ratio_sampled_agent.push_back(s.ns / b.ns);
    sampled_small_ratio.push_back(s.small_bytes > 0 ? s.estimated_small / s.small_bytes : 0);
    sampled_total_ratio.push_back(s.total_bytes > 0 ? s.estimated_total / s.total_bytes : 0);
    std::printf(
        "round %d: ns/allocation plain dotnet %.2f, xrpm-dotnet %.2f, --allocations=exact "
        "without a host %.2f = %.2fx plain, with a host subscribed (16 KiB) %.2f = %.2fx plain, "
        "%.2fx agent; Small exact %.0f B, estimated %.0f B (%.4f), %llu samples, %llu dropped; "
        "--allocations (sampled, subscribed) %.2f = %.2fx plain, %.2fx agent; Small exact %.0f "
        "B, estimated %.0f B (%.4f); GC.GetTotalAllocatedBytes %.0f B, every type estimated "
        "%.0f B (%.4f), %llu samples, %llu dropped\n",
        r + 1, a.ns, b.ns, u.ns, ratio_unheard.back(), c.ns, ratio_plain.back(), ratio_agent.back(),
        c.small_bytes, c.estimated_small, est_ratio.back(),
        static_cast<unsigned long long>(c.samples), static_cast<unsigned long long>(c.dropped),
        s.ns, ratio_sampled.back(), ratio_sampled_agent.back(), s.small_bytes, s.estimated_small,
        sampled_small_ratio.back(), s.total_bytes, s.estimated_total, sampled_total_ratio.back(),
        static_cast<unsigned long long>(s.samples), static_cast<unsigned long long>(s.dropped));
    std::printf(
        "round %d: --allocations (sampled) with origins %.2f ns, --no-origins %.2f ns: "
        "%.3fx\n",
        r + 1, s.ns, n.ns, ratio_origins.back());
    std::fflush(stdout);
  }
  std::printf("\nAllocations.dll bench %d %d, %d rounds; medians:\n", allocs, kBenchRounds, runs);
  std::printf(
      "| allocation, --allocations (sampled by the runtime, subscribed) | %.2f ns | plain dotnet "
      "%.2f ns | %.2fx |\n",
      Median(sampled_ns), Median(plain), Median(ratio_sampled));
  std::printf(
      "| allocation, --allocations (sampled by the runtime, subscribed) | %.2f ns | xrpm-dotnet "
      "without it %.2f ns | %.2fx |\n",
      Median(sampled_ns), Median(agent), Median(ratio_sampled_agent));
  std::printf(
      "| allocation, --allocations (sampled) with origins | %.2f ns | --no-origins %.2f ns | "
      "%.3fx |\n",
      Median(sampled_ns), Median(no_origins_ns), Median(ratio_origins));
  std::printf(
      "| allocation, --allocations=exact (16 KiB, subscribed) | %.2f ns | plain dotnet %.2f ns | "
      "%.2fx |\n",
      Median(allocs_ns), Median(plain), Median(ratio_plain));
  std::printf(
      "| allocation, --allocations=exact (16 KiB, subscribed) | %.2f ns | xrpm-dotnet without "
      "it %.2f ns | %.2fx |\n",
      Median(allocs_ns), Median(agent), Median(ratio_agent));
  std::printf(
      "| allocation, --allocations=exact without a host | %.2f ns | plain dotnet %.2f ns | "
      "%.2fx |\n",
      Median(unheard), Median(plain), Median(ratio_unheard));
  std::printf("| Allocations.Small estimated / exact bytes, exact route (16 KiB) | %.4f |\n",
              Median(est_ratio));
  std::printf("| Allocations.Small estimated / exact bytes, sampled route (100 KiB) | %.4f |\n",
              Median(sampled_small_ratio));
  std::printf(
      "| every type estimated / GC.GetTotalAllocatedBytes, sampled route (100 KiB) | %.4f |\n",
      Median(sampled_total_ratio));
  return 0;
}
