// MonoCounters: the NETCF performance counters Mono can fill (a subset of the catalog in
// xrpm/protocol/netcf_counters.h). A counter Mono cannot report
// (objects allocated without allocation events, pitching, timers, ...) is not in this list,
// so the host never shows a made-up zero.
//
// Each counter keeps the .stat columns (agent::CounterStat, any writer): event counters add
// each datum to their total, level counters record samples and their total is the current
// level. Updates come from Mono's profiler callbacks on any thread and must never block (see
// event_log.h), so there is no lock: a sample may mix two updates of one counter that race
// with it, which a live display tolerates.
//
// Thread-safety: Add/Set from any thread; Describe/Sample from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "xrpm/agent/counter_stat.h"
#include "xrpm/agent/runtime_port.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm {
namespace mono {

// The counters of the catalog (xrpm/protocol/netcf_counters.h) that Mono fills, in the order the
// port reports them. X(enumerator, catalog enumerator)
#define XRPM_MONO_COUNTERS(X)                             \
  X(kGarbageCollections, kGarbageCollections)             \
  X(kManagedBytesInUseAfterGc, kManagedBytesInUseAfterGc) \
  X(kGcLatencyTime, kGcLatencyTime)                       \
  X(kObjectsFinalized, kObjectsFinalized)                 \
  X(kGcHeap, kGcHeap)                                     \
  X(kMethodsJitted, kMethodsJitted)                       \
  X(kNativeBytesJitted, kNativeBytesJitted)               \
  X(kExceptionsThrown, kExceptionsThrown)                 \
  X(kAppDomainsCreated, kAppDomainsCreated)               \
  X(kAppDomainsUnloaded, kAppDomainsUnloaded)             \
  X(kAssembliesLoaded, kAssembliesLoaded)                 \
  X(kClassesLoaded, kClassesLoaded)                       \
  X(kThreads, kManagedThreads)                            \
  X(kContestedMonitorEnter, kContestedMonitorEnter)

enum class MonoCounter : uint16_t {
#define XRPM_MONO_COUNTER_ENUM(e, netcf) e,
  XRPM_MONO_COUNTERS(XRPM_MONO_COUNTER_ENUM)
#undef XRPM_MONO_COUNTER_ENUM
      kCount
};
constexpr size_t kMonoCounterCount = static_cast<size_t>(MonoCounter::kCount);

class MonoCounters {
 public:
  static agent::CounterInfo Describe(size_t index);

  void Add(MonoCounter c, int64_t datum) { stats_[static_cast<size_t>(c)].Add(datum); }
  void Set(MonoCounter c, int64_t level) { stats_[static_cast<size_t>(c)].Set(level); }
  int64_t Total(MonoCounter c) const { return stats_[static_cast<size_t>(c)].total(); }
  size_t Sample(agent::CounterValue* out, size_t count) const;

 private:
  std::array<agent::CounterStat<agent::CounterWriters::kMany>, kMonoCounterCount> stats_{};
};

}  // namespace mono
}  // namespace xrpm
