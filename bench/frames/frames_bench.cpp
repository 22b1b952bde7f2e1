// What per-frame series and allocation sampling cost the game, the wire, and how accurate the
// estimates are (docs/PERFORMANCE.md, "Frames and allocations"):
//   BM_Frame/<scenario>/<tracking>  one game frame (BeginFrame, Scenario::Frame, EndFrame) on
//                      the benchmark thread, tracking 0 = no sink (the baseline, same run),
//                      1 = the agent's FrameTracker at the default 16 KiB with a thread draining
//                      it into FrameBatch messages every 100 ms as the network thread does
//   BM_Wire60fps/<scenario>  10 s of the game paced at 60 fps behind the real agent and host
//                      client over 127.0.0.1 at the default interval: wire_Bps = FrameBatch bytes
//                      per second, dropped = records the ring lost
//   BM_Accuracy10s/<sample_bytes>  20 runs of 600 bubbles frames (10 s of game time) against the
//                      emulator's exact ledger: err_mean / err_max = |estimate - exact| / exact of
//                      the total, sites_found = share of runs in which every site with >= 1 %
//                      of the bytes had a sample
// Run: build/release/bin/frames_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "frame_tracker.h"
#include "xrpm/agent/agent.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/sampling.h"

namespace {
using namespace xrpm;
using emulator::Runtime;

const char* Scenario(int64_t i) {
  return i == 0 ? "bubbles" : "synthetic";
}

struct Game {
  explicit Game(const char* name, uint64_t seed = 1) {
    emulator::RuntimeConfig c;
    c.heap_reserve_bytes = 512u << 20;
    rt = std::make_unique<Runtime>(c);
    emulator::ScenarioParams p;
    p.name = name;
    p.seed = seed;
    p.objects = 100000;  // synthetic: a 100 k-object heap with its per-frame churn
    sc = emulator::MakeScenario(p);
    emulator::GameLoop setup(*rt, *sc, {0, 0});
    setup.Setup();
  }
  void Frame() {
    emulator::MutatorScope m(rt->world());
    rt->BeginFrame();
    sc->Frame(*rt, frame++, 1.0 / 60);
    rt->EndFrame();
  }
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<emulator::Scenario> sc;
  uint64_t frame = 0;
};

// Drains a FrameTracker like the agent's network thread (every 100 ms, serialized batches).
class Drain {
 public:
  explicit Drain(agent::FrameTracker& t) : t_(t), th_([this] { Run(); }) {}
  ~Drain() {
    stop_ = true;
    th_.join();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void Run() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      for (;;) {
        wire::Envelope env;
        if (!t_.Fill(env.mutable_frame_batch())) break;
        std::string out;
        protocol::SerializeEnvelope(env, protocol::kMaxAgentMessageBytes, &out);
        bytes_ += out.size();
      }
    }
  }
  agent::FrameTracker& t_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bytes_{0};
  std::thread th_;
};

void BM_Frame(benchmark::State& state) {
  Game g(Scenario(state.range(0)));
  for (int i = 0; i < 120; ++i) g.Frame();  // warm up: the game reaches its steady state
  agent::FrameTracker tracker;
  std::unique_ptr<Drain> drain;
  if (state.range(1)) {
    g.rt->SetFrameEventSink(&tracker, protocol::kDefaultSampleBytes);
    drain = std::make_unique<Drain>(tracker);
  }
  for (auto _ : state) g.Frame();
  g.rt->SetFrameEventSink(nullptr, 0);
  drain.reset();
  state.counters["samples_per_frame"] = benchmark::Counter(
      double(tracker.pushed()) / double(state.iterations()) - (state.range(1) ? 1.0 : 0.0));
}
BENCHMARK(BM_Frame)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"scenario", "tracking"})
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

void BM_Wire60fps(benchmark::State& state) {
  for (auto _ : state) {
    Game g(Scenario(state.range(0)));
    agent::AgentOptions opt;
    opt.port = 0;
    opt.log = [](const std::string&) {};
    agent::Agent a(*g.rt, opt);
    std::string error;
    if (!a.Start(&error)) return state.SkipWithError(error.c_str());
    emulator::GameLoop loop(*g.rt, *g.sc, {60, 0});
    loop.Start();
    client::HostClient c({"127.0.0.1:" + std::to_string(a.port())});
    c.Connect();
    if (!c.WaitConnected(5000, &error)) return state.SkipWithError(error.c_str());
    c.SubscribeFrames(protocol::kDefaultSampleBytes);
    c.WaitFrames(30, 10000);
    const auto s0 = a.stats();
    const uint64_t f0 = loop.frames();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(10));
    const auto s1 = a.stats();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.counters["wire_Bps"] = double(s1.frame_wire_bytes - s0.frame_wire_bytes) / secs;
    state.counters["fps"] = double(loop.frames() - f0) / secs;
    state.counters["records_per_s"] = double(s1.frame_records - s0.frame_records) / secs;
    state.counters["dropped"] = double(s1.frame_records_dropped);
    loop.RequestStop();
    loop.Join();
  }
}
BENCHMARK(BM_Wire60fps)->DenseRange(0, 1)->ArgName("scenario")->Iterations(1)->UseRealTime();

// Estimated bytes of a run, in total and by allocating site (innermost method key).
class EstimateSink final : public agent::FrameEventSink {
 public:
  explicit EstimateSink(double n) : n_(n) {}
  void OnFrame(const agent::FrameRecord&) noexcept override {}
  void OnAllocationSample(const agent::AllocationSample& s) noexcept override {
    const double w = s.size / protocol::SampleProbability(s.size, n_);
    total += w;
    ++by_site[s.depth ? s.method_keys[0] : 0];
  }
  double total = 0;
  std::map<uint64_t, uint64_t> by_site;  // samples

 private:
  double n_;
};

void BM_Accuracy10s(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  double err_sum = 0, err_max = 0;
  int runs = 0, found = 0;
  for (auto _ : state) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Game g("bubbles", seed);
      for (int i = 0; i < 60; ++i) g.Frame();
      emulator::AllocationLedger truth;
      EstimateSink sink(n);
      g.rt->set_allocation_ledger(&truth);
      // The runtime seeds its sampler per subscription (its generation): give every run its
      // own sequence of gaps, as successive subscriptions get.
      for (uint64_t k = 0; k < seed; ++k) g.rt->SetFrameEventSink(nullptr, 0);
      g.rt->SetFrameEventSink(&sink, n);
      for (int i = 0; i < 600; ++i) g.Frame();
      g.rt->SetFrameEventSink(nullptr, 0);
      g.rt->set_allocation_ledger(nullptr);
      const double exact = double(truth.total().bytes);
      const double err = std::fabs(sink.total - exact) / exact;
      err_sum += err;
      err_max = std::max(err_max, err);
      bool all = true;
      for (const auto& [site, t] : truth.by_site())
        if (double(t.bytes) >= 0.01 * exact &&
            !sink.by_site.count(emulator::MethodTable::WireId(site)))
          all = false;
      found += all;
      ++runs;
    }
  }
  state.counters["err_mean"] = err_sum / runs;
  state.counters["err_max"] = err_max;
  state.counters["sites_found"] = double(found) / runs;
}
BENCHMARK(BM_Accuracy10s)
    ->Arg(protocol::kDefaultSampleBytes)
    ->Arg(1024)
    ->Arg(256)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
