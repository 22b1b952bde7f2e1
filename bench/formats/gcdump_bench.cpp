// .gcdump import throughput against the .gclog reader on the same generated heap (5 M objects
// by default, XRPM_BENCH_OBJECTS to change; the target is >= 5 M nodes), both measured in
// the same run, both single-threaded:
//   BM_ReadGcDump: a .gcdump image in memory (written by the test-only writer,
//     tests/support/gcdump_test_writer.h, from the heap below plus the [.NET Roots] pseudo-node
//     tree) -> Snapshot.
//   BM_ReadNetcf: the same heap as .gclog text in memory -> Snapshot
//   (formats::ReadOptions::threads = 1).
// items_per_second is objects per second; the ratio of the two times is the figure in
// docs/PERFORMANCE.md. Run: build/release/bin/xrpm_gcdump_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>

#include "gcdump_test_writer.h"
#include "test_heaps.h"
#include "xrpm/formats/gcdump_reader.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm {
namespace {

const Snapshot& Heap() {
  static const Snapshot heap = [] {
    const char* n = std::getenv("XRPM_BENCH_OBJECTS");
    return testing::MakeHeap(
        {.seed = 42, .objects = n ? std::strtoull(n, nullptr, 10) : 5'000'000});
  }();
  return heap;
}

// The heap as a MemoryGraph: node 0 = [.NET Roots], 1-6 = one pseudo-node per root kind,
// then one node per object (children = its references; ids sorted, so a binary search maps
// them to node indices).
std::string GcDumpImage(const Snapshot& s) {
  testing::GcDumpTestWriter w;
  const uint32_t roots_t = w.AddType("[.NET Roots]", 0);
  static const char* kKinds[] = {"[other roots]",  "[local vars]",  "[FinalizerQueue]",
                                 "[StrongHandle]", "[static vars]", "[gc roots]"};
  uint32_t kind_t[kRootKindCount];
  for (int k = 0; k < kRootKindCount; ++k) kind_t[k] = w.AddType(kKinds[k], 0);
  std::vector<uint32_t> type_t(s.type_count());
  for (size_t t = 0; t < s.type_count(); ++t) type_t[t] = w.AddType(s.types[t].name, -1);
  std::vector<ObjectId> sorted(s.object_id.begin(), s.object_id.end());
  std::sort(sorted.begin(), sorted.end());
  const uint32_t first = 1 + kRootKindCount;
  auto node_of = [&](ObjectId id) {
    return first + static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), id) -
                                         sorted.begin());
  };
  std::vector<uint32_t> kids;
  for (int k = 0; k < kRootKindCount; ++k) kids.push_back(1 + k);
  w.AddNode(roots_t, 0, kids, 0);
  for (int k = 0; k < kRootKindCount; ++k) {
    kids.clear();
    for (size_t r = 0; r < s.root_count(); ++r)
      if (s.root_kind[r] == k) kids.push_back(node_of(s.root_object[r]));
    w.AddNode(kind_t[k], 0, kids, 0);
  }
  std::vector<uint32_t> order(s.object_count());  // objects in address order = node order
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return s.object_id[a] < s.object_id[b]; });
  for (uint32_t i : order) {
    kids.clear();
    for (ObjectId r : s.object_refs(i)) kids.push_back(node_of(r));
    w.AddNode(type_t[s.object_type[i]], static_cast<int32_t>(s.object_size[i]), kids,
              s.object_id[i]);
  }
  return w.Finish();
}

void BM_ReadGcDump(benchmark::State& state) {
  const std::string image = GcDumpImage(Heap());
  uint64_t nodes = 0;
  for (auto _ : state) {
    Diagnostics d;
    formats::GcDumpReadStats st;
    Snapshot s = formats::ReadGcDump({reinterpret_cast<const uint8_t*>(image.data()), image.size()},
                                     "bench", d, {}, &st);
    benchmark::DoNotOptimize(s.object_count());
    nodes = st.nodes;
    if (s.object_count() != Heap().object_count()) state.SkipWithError("object count differs");
  }
  state.SetBytesProcessed(static_cast<int64_t>(image.size() * state.iterations()));
  state.SetItemsProcessed(static_cast<int64_t>(Heap().object_count() * state.iterations()));
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["file_MiB"] = static_cast<double>(image.size()) / (1 << 20);
}

void BM_ReadNetcf(benchmark::State& state) {
  std::string text;
  formats::WriteNetcf(Heap(), [&](std::string_view b) { text.append(b); });
  for (auto _ : state) {
    Diagnostics d;
    Snapshot s = formats::ReadNetcf(text, "bench", d, formats::ReadOptions{.threads = 1});
    benchmark::DoNotOptimize(s.object_count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
  state.SetItemsProcessed(static_cast<int64_t>(Heap().object_count() * state.iterations()));
  state.counters["file_MiB"] = static_cast<double>(text.size()) / (1 << 20);
}

BENCHMARK(BM_ReadNetcf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadGcDump)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xrpm

BENCHMARK_MAIN();
