// DotnetCounters: the NETCF performance counters the CoreCLR port fills (a subset of the catalog
// in xrpm/protocol/netcf_counters.h), from the runtime's collection notifications:
//   Garbage Collections (GC)         one per GarbageCollectionStarted
//   Managed Bytes In Use After GC    the used length of every generation's ranges at
//                                    GarbageCollectionFinished (GetGenerationBounds)
//   GC Latency Time (ms)             GarbageCollectionStarted to Finished
//   Calls to GC.Collect              collections started for reason COR_PRF_GC_INDUCED outside a
//                                    capture (a capture's own forced collection is not counted)
//   Classes Loaded                   one per ClassLoadFinished (after an attach: since it)
//   Managed Bytes Allocated          at each GarbageCollectionStarted, the bytes allocated since
//                                    the last collection as the generation bounds show them:
//                                    generation 0's used length (what was allocated there since;
//                                    survivors leave it) plus what the large and pinned object
//                                    heaps grew by since the last GarbageCollectionFinished. It
//                                    moves at collections only, and is the runtime's
//                                    GC.GetTotalAllocatedBytes to within the objects a
//                                    collection left in generation 0 (pinned ones) and the large
//                                    objects a collection freed meanwhile
// A counter the port cannot report yet is not in this list, so the host never shows a made-up
// zero.
//
// Thread-safety: Add/Set from the runtime's GC threads; Describe/Sample from any thread
// (agent::CounterStat, lock-free).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "xrpm/agent/counter_stat.h"
#include "xrpm/agent/runtime_port.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm {
namespace dotnet {

enum class DotnetCounter : uint16_t {
  kGarbageCollections,
  kManagedBytesInUseAfterGc,
  kGcLatencyTime,
  kCallsToGcCollect,
  kClassesLoaded,
  kManagedBytesAllocated,
  kCount
};
constexpr size_t kDotnetCounterCount = static_cast<size_t>(DotnetCounter::kCount);

class DotnetCounters {
 public:
  static agent::CounterInfo Describe(size_t index) {
    constexpr protocol::NetcfCounter kCatalog[kDotnetCounterCount] = {
        protocol::NetcfCounter::kGarbageCollections,
        protocol::NetcfCounter::kManagedBytesInUseAfterGc,
        protocol::NetcfCounter::kGcLatencyTime,
        protocol::NetcfCounter::kCallsToGcCollect,
        protocol::NetcfCounter::kClassesLoaded,
        protocol::NetcfCounter::kManagedBytesAllocated};
    if (index >= kDotnetCounterCount) return {"", "", ""};
    return protocol::Spec(kCatalog[index]).info;
  }
  void Add(DotnetCounter c, int64_t datum) { stats_[static_cast<size_t>(c)].Add(datum); }
  void Set(DotnetCounter c, int64_t level) { stats_[static_cast<size_t>(c)].Set(level); }
  size_t Sample(agent::CounterValue* out, size_t count) const {
    const size_t n = count < kDotnetCounterCount ? count : kDotnetCounterCount;
    for (size_t i = 0; i < n; ++i) out[i] = stats_[i].Value();
    return n;
  }

 private:
  std::array<agent::CounterStat<agent::CounterWriters::kMany>, kDotnetCounterCount> stats_{};
};

}  // namespace dotnet
}  // namespace xrpm
