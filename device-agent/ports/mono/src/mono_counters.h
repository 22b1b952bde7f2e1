// MonoCounters: the NETCF performance counters Mono can fill, under the NETCF names and
// categories (the emulator's Counters lists the full set). A counter Mono cannot report
// (objects allocated without allocation events, pitching, timers, ...) is not in this list,
// so the host never shows a made-up zero.
//
// Each counter keeps the .stat columns (total, last, n, mean, min, max) in atomics: event
// counters add each datum to their total, level counters record samples and their total is the
// current level. Updates come from Mono's profiler callbacks on any thread and must never block
// (see event_log.h), so there is no lock: a sample may mix two updates of one counter that
// race with it, which a live display tolerates.
//
// Thread-safety: Add/Set from any thread; Describe/Sample from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace mono {

// X(enumerator, category, name, unit, is_level)
#define XRPM_MONO_COUNTERS(X)                                                                 \
  X(kGarbageCollections, "Garbage Collector", "Garbage Collections (GC)", "count", false)     \
  X(kManagedBytesInUseAfterGc, "Garbage Collector", "Managed Bytes In Use After GC", "bytes", \
    true)                                                                                     \
  X(kGcLatencyTime, "Garbage Collector", "GC Latency Time (ms)", "ms", false)                 \
  X(kObjectsFinalized, "Garbage Collector", "Objects Finalized", "count", false)              \
  X(kGcHeap, "Memory", "GC Heap", "bytes", true)                                              \
  X(kMethodsJitted, "JIT", "Methods Jitted", "count", false)                                  \
  X(kNativeBytesJitted, "JIT", "Native Bytes Jitted", "bytes", false)                         \
  X(kExceptionsThrown, "Exceptions", "Exceptions Thrown", "count", false)                     \
  X(kAppDomainsCreated, "Loader", "App Domains Created", "count", false)                      \
  X(kAppDomainsUnloaded, "Loader", "App Domains Unloaded", "count", false)                    \
  X(kAssembliesLoaded, "Loader", "Assemblies Loaded", "count", false)                         \
  X(kClassesLoaded, "Loader", "Classes Loaded", "count", false)                               \
  X(kThreads, "Locks and Threads", "Managed Threads", "count", true)                          \
  X(kContestedMonitorEnter, "Locks and Threads", "Contested Monitor.Enter Calls", "count", false)

enum class MonoCounter : uint16_t {
#define XRPM_MONO_COUNTER_ENUM(e, cat, name, unit, level) e,
  XRPM_MONO_COUNTERS(XRPM_MONO_COUNTER_ENUM)
#undef XRPM_MONO_COUNTER_ENUM
      kCount
};
constexpr size_t kMonoCounterCount = static_cast<size_t>(MonoCounter::kCount);

class MonoCounters {
 public:
  static agent::CounterInfo Describe(size_t index);

  void Add(MonoCounter c, int64_t datum) {
    Stat& s = stats_[static_cast<size_t>(c)];
    s.total.fetch_add(datum, std::memory_order_relaxed);
    Record(s, datum);
  }
  void Set(MonoCounter c, int64_t level) {
    Stat& s = stats_[static_cast<size_t>(c)];
    s.total.store(level, std::memory_order_relaxed);
    Record(s, level);
  }
  int64_t Total(MonoCounter c) const {
    return stats_[static_cast<size_t>(c)].total.load(std::memory_order_relaxed);
  }
  size_t Sample(agent::CounterValue* out, size_t count) const;

 private:
  struct Stat {
    std::atomic<int64_t> total{0};
    std::atomic<int64_t> last{0};
    std::atomic<uint64_t> n{0};
    std::atomic<int64_t> sum{0};
    std::atomic<int64_t> min{INT64_MAX};
    std::atomic<int64_t> max{INT64_MIN};
  };
  static void Record(Stat& s, int64_t datum);

  std::array<Stat, kMonoCounterCount> stats_{};
};

}  // namespace mono
}  // namespace xrpm
