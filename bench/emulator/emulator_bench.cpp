// Capture-pause baselines on the synthetic heap (--scenario synthetic --objects 1000000
// --refs-per-object 3 --types 64 --seed 1):
//   BM_HeapScan        one linear pass over every object header (the memory-bandwidth floor,
//                      the baseline the others are compared with)
//   BM_GcMark          the collector's mark phase from the roots (no sweep, marks cleared after)
//   BM_FullCollection  a whole compacting collection as a capture induces it
//   BM_WalkCounting    WalkHeap into a sink that counts objects and references (depth-first)
//   BM_WalkFlat        the same walk with every object postponed (flat list)
//   BM_BuildSynthetic  building the heap (scenario setup): 1 M allocations
//   BM_BubblesFrame    one frame of the bubbles game (its allocations in nested method frames)
// Each runs with the allocation origins the runtime records for every object (/origins:1, the
// default) and without them (/origins:0, RuntimeConfig::record_origins off), the baseline of
// what recording them costs the allocation path, the collection and the walk.
// Run: [XRPM_BENCH_OBJECTS=3000000] build/release/bin/emulator_bench
//      [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace {
using namespace xrpm::emulator;
using xrpm::agent::ContainerType;
using xrpm::agent::WalkResult;

constexpr uint32_t kRefs = 3;

// 1 M objects, or XRPM_BENCH_OBJECTS (e.g. 3000000).
const uint64_t kObjects = [] {
  const char* env = std::getenv("XRPM_BENCH_OBJECTS");
  const uint64_t n = env ? std::strtoull(env, nullptr, 10) : 0;
  return n ? n : uint64_t{1000000};
}();

ScenarioParams Params() {
  return ScenarioParams{"synthetic", 1, kObjects, kRefs, 64};
}

RuntimeConfig Config(bool origins) {
  RuntimeConfig c;
  c.record_origins = origins;
  return c;
}

struct Heap {
  Runtime rt;
  std::unique_ptr<Scenario> scenario = MakeScenario(Params());
  explicit Heap(bool origins) : rt(Config(origins)) {
    MutatorScope m(rt.world());
    scenario->Setup(rt);
    rt.InduceFullCollection();
  }
};

// One heap with origins recorded and one without, built on first use.
Heap& SharedHeap(const benchmark::State& state) {
  if (state.range(0)) {
    static Heap with(true);
    return with;
  }
  static Heap without(false);
  return without;
}

class CountingSink final : public xrpm::agent::HeapInfoCallback {
 public:
  explicit CountingSink(bool postpone) : postpone_(postpone) {}
  WalkResult BeginContainer(ContainerType, uint64_t, uint64_t) override { return WalkResult::kOk; }
  WalkResult DescribeType(uint32_t, const char*, size_t) override { return WalkResult::kOk; }
  WalkResult RootReferences(const xrpm::agent::RootRef*, size_t n) override {
    roots += n;
    return WalkResult::kOk;
  }
  WalkResult ObjectReferences(uint64_t, uint32_t, uint32_t size, const uint64_t*,
                              size_t n) override {
    ++objects;
    refs += n;
    bytes += size;
    return postpone_ ? WalkResult::kPostponeReferences : WalkResult::kOk;
  }
  WalkResult ObjectOrigin(uint64_t, uint64_t frame, uint32_t site) override {
    ++origins;
    frames += frame + site;
    return WalkResult::kOk;
  }
  uint64_t objects = 0, refs = 0, roots = 0, bytes = 0, origins = 0, frames = 0;

 private:
  bool postpone_;
};

void Report(benchmark::State& state, uint64_t objects) {
  state.counters["objects"] = static_cast<double>(objects);
  state.counters["objects_per_s"] =
      benchmark::Counter(static_cast<double>(objects) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_HeapScan(benchmark::State& state) {
  Heap& h = SharedHeap(state);
  uint64_t n = 0;
  for (auto _ : state) {
    uint64_t bytes = 0;
    n = 0;
    h.rt.heap().ForEachObject(h.rt.types(), [&](Addr, uint32_t*, uint32_t size) {
      bytes += size;
      ++n;
    });
    benchmark::DoNotOptimize(bytes);
  }
  Report(state, n);
}
BENCHMARK(BM_HeapScan)->ArgName("origins")->Arg(1)->Unit(benchmark::kMillisecond);

void BM_GcMark(benchmark::State& state) {
  Heap& h = SharedHeap(state);
  uint64_t marked = 0;
  for (auto _ : state) marked = h.rt.gc().MarkOnly();
  if (marked < kObjects) state.SkipWithError("not every object was marked");
  Report(state, marked);
}
BENCHMARK(BM_GcMark)->ArgName("origins")->Arg(1)->Unit(benchmark::kMillisecond);

void BM_FullCollection(benchmark::State& state) {
  Heap& h = SharedHeap(state);
  uint64_t live = 0;
  for (auto _ : state) live = h.rt.gc().Collect(GcReason::kCapture, true).live_objects;
  Report(state, live);
  // What the origins take beside the heap, per live object (the side table; the site table is
  // a few sites here), and the heap itself for scale.
  state.counters["origin_B_per_object"] =
      static_cast<double>(h.rt.origins().MemoryBytes()) / static_cast<double>(live);
  state.counters["heap_B_per_object"] =
      static_cast<double>(h.rt.heap().used_bytes()) / static_cast<double>(live);
}
BENCHMARK(BM_FullCollection)->ArgName("origins")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void Walk(benchmark::State& state, bool postpone) {
  Heap& h = SharedHeap(state);
  uint64_t objects = 0, refs = 0, origins = 0;
  for (auto _ : state) {
    CountingSink sink(postpone);
    h.rt.WalkHeap(sink);
    objects = sink.objects;
    refs = sink.refs;
    origins = sink.origins;
  }
  if (refs < kObjects * kRefs) state.SkipWithError("references missing from the walk");
  if (state.range(0) && origins != objects) state.SkipWithError("objects without an origin");
  state.counters["refs"] = static_cast<double>(refs);
  Report(state, objects);
}
void BM_WalkCounting(benchmark::State& state) {
  Walk(state, false);
}
void BM_WalkFlat(benchmark::State& state) {
  Walk(state, true);
}
BENCHMARK(BM_WalkCounting)->ArgName("origins")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WalkFlat)->ArgName("origins")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_BuildSynthetic(benchmark::State& state) {
  for (auto _ : state) {
    Runtime rt(Config(state.range(0) != 0));
    auto s = MakeScenario(Params());
    MutatorScope m(rt.world());
    s->Setup(rt);
    benchmark::DoNotOptimize(rt.heap().used_bytes());
  }
  Report(state, kObjects);
}
BENCHMARK(BM_BuildSynthetic)
    ->ArgName("origins")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

void BM_BubblesFrame(benchmark::State& state) {
  RuntimeConfig c = Config(state.range(0) != 0);
  c.heap_reserve_bytes = 256u << 20;
  Runtime rt(c);
  auto s = MakeScenario(ScenarioParams{"bubbles", 1});
  {
    MutatorScope m(rt.world());
    s->Setup(rt);
    rt.EndFrame();
  }
  const int64_t objects0 = rt.counters().Total(Counter::kManagedObjectsAllocated);
  uint64_t frame = 0;
  for (auto _ : state) {
    rt.BeginFrame();
    s->Frame(rt, frame++, 1.0 / 60);
    rt.EndFrame();
  }
  state.counters["objects_per_frame"] =
      static_cast<double>(rt.counters().Total(Counter::kManagedObjectsAllocated) - objects0) /
      static_cast<double>(frame);
}
BENCHMARK(BM_BubblesFrame)->ArgName("origins")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
