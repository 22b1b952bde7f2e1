// Cancel-to-resume: how long the game stays stopped after the host of a capture goes away in
// the middle of the heap walk (docs/PERFORMANCE.md, "Capture"; the figure the fault-injection
// tests used to assert as "< 100 ms"; they now assert only that the cancel, not a timeout,
// resumed the game). On the emulated runtime with the synthetic heap (seed 1, 3 refs/object,
// 64 types), agent and host client in this process over 127.0.0.1:
//   BM_CancelToResume/<objects>  a streaming agent (capture_memory_limit 1 MiB, so the walk
//                      waits for the host's acknowledgements) and a host that requests a
//                      capture and disconnects as soon as the first objects have arrived;
//                      manual time = AgentStats::last_cancel_to_resume_us (the agent noticed
//                      the host gone -> the world resumed). Target: <= 100 ms (worst_ms:
//                      the worst iteration; over_target: the share of iterations above it).
//   BM_StreamingPause/<objects>  the baseline, same run: the stopped-world time of a complete
//                      capture of the same heap by the same streaming agent and a host that
//                      stays (AgentStats::last_pause_us): the pause the cancel cuts short.
// Each iteration is one capture. Thread-safety: the agent and client run their own threads; the
// log sink is guarded by its mutex.
//
// Run: build/release/bin/cancel_resume_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "xrpm/agent/agent.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/emulator/world_lock.h"

namespace {

using namespace xrpm;

// Counts the agent's log lines containing "capture " + " stopped"/" done" (the end of a job,
// logged after its stats were updated).
class Endings {
 public:
  std::function<void(const std::string&)> fn() {
    return [this](const std::string& line) {
      if (line.find("capture ") != 0) return;
      if (line.find(" stopped") == std::string::npos && line.find(" done") == std::string::npos &&
          line.find(" failed") == std::string::npos)
        return;
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
      cv_.notify_all();
    };
  }
  uint64_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  bool WaitPast(uint64_t n, uint32_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return count_ > n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t count_ = 0;
};

// The emulated runtime with the synthetic heap, compacted once, and a streaming agent on it.
struct Device {
  explicit Device(uint64_t objects) {
    emulator::RuntimeConfig rc;
    rc.app_name = "synthetic.exe";
    rt = std::make_unique<emulator::Runtime>(rc);
    scenario = emulator::MakeScenario({"synthetic", 1, objects, 3, 64});
    {
      emulator::MutatorScope m(rt->world());
      scenario->Setup(*rt);
    }
    rt->InduceFullCollection();
    agent::AgentOptions opt;
    opt.port = 0;
    opt.capture_memory_limit = 1 << 20;
    opt.log = endings.fn();
    agent = std::make_unique<agent::Agent>(*rt, opt);
    std::string error;
    if (!agent->Start(&error)) agent.reset();
  }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(agent->port()); }
  std::unique_ptr<emulator::Runtime> rt;
  std::unique_ptr<emulator::Scenario> scenario;
  Endings endings;
  std::unique_ptr<agent::Agent> agent;
};

bool Connect(client::HostClient& c, benchmark::State& state) {
  std::string error;
  c.Connect();
  if (c.WaitConnected(20000, &error)) return true;
  state.SkipWithError(("connect: " + error).c_str());
  return false;
}

void BM_CancelToResume(benchmark::State& state) {
  Device d(static_cast<uint64_t>(state.range(0)));
  if (!d.agent) return state.SkipWithError("agent did not start");
  double worst_ms = 0;
  int64_t attempts = 0, mid_walk = 0, over_target = 0;
  for (auto _ : state) {
    // A host disconnecting so early that the walk had not yet waited for it is retried (the
    // figure is about a cancel during the walk); bounded.
    bool measured = false;
    for (int attempt = 0; attempt < 20 && !measured; ++attempt) {
      ++attempts;
      client::HostClient c({d.endpoint()});
      if (!Connect(c, state)) return;
      const uint64_t ended = d.endings.count();
      std::string error;
      if (!c.StartCapture(&error)) return state.SkipWithError(("capture: " + error).c_str());
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (c.capture_progress().objects == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();  // polls the host's progress: the cancel must land mid-walk
      c.Disconnect();
      if (!d.endings.WaitPast(ended, 30000)) return state.SkipWithError("the capture never ended");
      const agent::AgentStats st = d.agent->stats();
      if (!st.last_cancelled_during_walk) continue;
      ++mid_walk;
      const double ms = st.last_cancel_to_resume_us / 1000.0;
      worst_ms = std::max(worst_ms, ms);
      over_target += ms > 100;
      state.SetIterationTime(ms / 1000.0);
      measured = true;
    }
    if (!measured) return state.SkipWithError("no cancel landed during the walk in 20 attempts");
  }
  state.counters["worst_ms"] = worst_ms;
  state.counters["over_target"] = mid_walk ? static_cast<double>(over_target) / mid_walk : 0;
  state.counters["mid_walk_share"] = attempts ? static_cast<double>(mid_walk) / attempts : 0;
}
BENCHMARK(BM_CancelToResume)->Arg(300000)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_StreamingPause(benchmark::State& state) {
  Device d(static_cast<uint64_t>(state.range(0)));
  if (!d.agent) return state.SkipWithError("agent did not start");
  client::HostClient c({d.endpoint()});
  if (!Connect(c, state)) return;
  for (auto _ : state) {
    std::string error;
    client::CaptureResult r;
    if (!c.StartCapture(&error) || !c.WaitCapture(600000, &r) || !r.ok)
      return state.SkipWithError(("capture: " + error + r.error).c_str());
    state.SetIterationTime(r.stats.pause_us / 1e6);
  }
}
BENCHMARK(BM_StreamingPause)->Arg(300000)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
