// Markers and scopes on the game thread: the cost of Runtime::Marker and of a scope
// enter/leave with the agent's marker queue installed and without an agent, against an empty
// loop in the same run. "With the agent" drains the queue on the same thread every 64 posts, so
// the figure is the post (copy into a slot) plus its share of the drain, never the drop path.
#include <benchmark/benchmark.h>

#include "marker_queue.h"
#include "xrpm/emulator/runtime.h"

namespace {

xrpm::emulator::Runtime& Rt() {
  static xrpm::emulator::Runtime* rt = [] {
    xrpm::emulator::RuntimeConfig c;
    c.heap_reserve_bytes = 16u << 20;
    return new xrpm::emulator::Runtime(c);
  }();
  return *rt;
}

void BM_EmptyLoop(benchmark::State& st) {
  int x = 0;
  for (auto _ : st) benchmark::DoNotOptimize(++x);
}
BENCHMARK(BM_EmptyLoop);

void BM_MarkerNoAgent(benchmark::State& st) {
  auto& rt = Rt();
  rt.SetGameEventSink(nullptr);
  for (auto _ : st) rt.Marker("Level 7 loaded");
}
BENCHMARK(BM_MarkerNoAgent);

void BM_MarkerWithAgent(benchmark::State& st) {
  auto& rt = Rt();
  xrpm::agent::MarkerQueue q;
  rt.SetGameEventSink(&q);
  xrpm::agent::QueuedMarker m;
  uint32_t n = 0;
  for (auto _ : st) {
    rt.Marker("Level 7 loaded");
    if (++n % 64 == 0)
      while (q.Pop(&m)) benchmark::DoNotOptimize(m.length);
  }
  rt.SetGameEventSink(nullptr);
  st.counters["dropped"] = static_cast<double>(q.dropped());
}
BENCHMARK(BM_MarkerWithAgent);

void BM_ScopeEnterLeave(benchmark::State& st) {
  auto& rt = Rt();
  for (auto _ : st) {
    rt.EnterScope("AI");
    rt.LeaveScope();
  }
}
BENCHMARK(BM_ScopeEnterLeave);

}  // namespace

BENCHMARK_MAIN();
