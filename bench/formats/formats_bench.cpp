// Throughput of the extra formats on one generated NETCF-like heap (1 M objects by default,
// XRPM_BENCH_OBJECTS to change), each next to its NETCF baseline from the same run:
//   BM_WriteNetcf / BM_WriteIbmClassic / BM_WriteHeapSnapshot: whole snapshot to a byte sink.
//   BM_ReadNetcf (1 thread) / BM_ReadIbmClassic: text already in memory -> Snapshot.
// Run: build/release/bin/xrpm_formats_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "test_heaps.h"
#include "xrpm/formats/heapsnapshot_writer.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/ibm_classic_writer.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm {
namespace {

const Snapshot& Heap() {
  static const Snapshot heap = [] {
    const char* n = std::getenv("XRPM_BENCH_OBJECTS");
    return testing::MakeHeap(
        {.seed = 42, .objects = n ? std::strtoull(n, nullptr, 10) : 1'000'000});
  }();
  return heap;
}

template <class Write>
void WriteBench(benchmark::State& state, Write write) {
  uint64_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    write(Heap(), [&](std::string_view b) { bytes += b.size(); });
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.SetItemsProcessed(static_cast<int64_t>(Heap().object_count() * state.iterations()));
  state.counters["file_MiB"] = static_cast<double>(bytes) / (1 << 20);
}

void BM_WriteNetcf(benchmark::State& state) {
  WriteBench(state, [](const Snapshot& s, auto sink) { formats::WriteNetcf(s, sink); });
}
void BM_WriteIbmClassic(benchmark::State& state) {
  WriteBench(state, [](const Snapshot& s, auto sink) { formats::WriteIbmClassic(s, sink); });
}
void BM_WriteHeapSnapshot(benchmark::State& state) {
  WriteBench(state, [](const Snapshot& s, auto sink) { formats::WriteHeapSnapshot(s, sink); });
}

template <class Write, class Read>
void ReadBench(benchmark::State& state, Write write, Read read) {
  std::string text;
  write(Heap(), [&](std::string_view b) { text.append(b); });
  for (auto _ : state) {
    Diagnostics d;
    Snapshot s = read(text, d);
    benchmark::DoNotOptimize(s.object_count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
  state.SetItemsProcessed(static_cast<int64_t>(Heap().object_count() * state.iterations()));
}

void BM_ReadNetcf(benchmark::State& state) {
  ReadBench(
      state, [](const Snapshot& s, auto sink) { formats::WriteNetcf(s, sink); },
      [](std::string_view t, Diagnostics& d) {
        return formats::ReadNetcf(t, "bench", d, formats::ReadOptions{.threads = 1});
      });
}
void BM_ReadIbmClassic(benchmark::State& state) {
  ReadBench(
      state, [](const Snapshot& s, auto sink) { formats::WriteIbmClassic(s, sink); },
      [](std::string_view t, Diagnostics& d) { return formats::ReadIbmClassic(t, "bench", d); });
}

BENCHMARK(BM_WriteNetcf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteIbmClassic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteHeapSnapshot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadNetcf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadIbmClassic)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xrpm

BENCHMARK_MAIN();
