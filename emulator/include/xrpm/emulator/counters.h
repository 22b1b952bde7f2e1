// Counters: the NETCF performance counters of the emulated runtime, under their real names and
// categories (as the Remote Performance Monitor and the .stat file show them).
//
// Each counter keeps the .stat columns: total, last datum, n, mean, min, max. An event counter
// (Managed Bytes Allocated, GC Latency Time) adds each datum to its total; a level counter (GC
// Heap, Managed Bytes In Use After GC) records samples and its total is the current level.
//
// Thread-safety: Add/Set/Total are called by the thread that holds the world (no locking on the
// allocation path). Publish() copies the values under a mutex; Sample() may be called from any
// thread and returns the values of the last Publish(), which the runtime calls at the end of
// every frame and of every collection, so samples are consistent and at most a frame old.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "xrpm/agent/runtime_port.h"

namespace xrpm::emulator {

// X(enumerator, category, name, unit, is_level)
#define XRPM_EMULATOR_COUNTERS(X)                                                                 \
  X(kManagedObjectsAllocated, "Garbage Collector", "Managed Objects Allocated", "count", false)   \
  X(kManagedBytesAllocated, "Garbage Collector", "Managed Bytes Allocated", "bytes", false)       \
  X(kManagedStringObjectsAllocated, "Garbage Collector", "Managed String Objects Allocated",      \
    "count", false)                                                                               \
  X(kBytesOfStringObjectsAllocated, "Garbage Collector", "Bytes of String Objects Allocated",     \
    "bytes", false)                                                                               \
  X(kGarbageCollections, "Garbage Collector", "Garbage Collections (GC)", "count", false)         \
  X(kBytesCollectedByGc, "Garbage Collector", "Bytes Collected By GC", "bytes", false)            \
  X(kManagedBytesInUseAfterGc, "Garbage Collector", "Managed Bytes In Use After GC", "bytes",     \
    true)                                                                                         \
  X(kTotalBytesInUseAfterGc, "Garbage Collector", "Total Bytes In Use After GC", "bytes", true)   \
  X(kGcCompactions, "Garbage Collector", "GC Compactions", "count", false)                        \
  X(kCodePitchings, "Garbage Collector", "Code Pitchings", "count", false)                        \
  X(kCallsToGcCollect, "Garbage Collector", "Calls to GC.Collect", "count", false)                \
  X(kGcLatencyTime, "Garbage Collector", "GC Latency Time (ms)", "ms", false)                     \
  X(kPinnedObjects, "Garbage Collector", "Pinned Objects", "count", false)                        \
  X(kObjectsMovedByCompactor, "Garbage Collector", "Objects Moved by Compactor", "count", false)  \
  X(kObjectsNotMovedByCompactor, "Garbage Collector", "Objects Not Moved by Compactor", "count",  \
    false)                                                                                        \
  X(kObjectsFinalized, "Garbage Collector", "Objects Finalized", "count", false)                  \
  X(kBoxedValueTypes, "Garbage Collector", "Boxed Value Types", "count", false)                   \
  X(kProcessHeap, "Memory", "Process Heap", "bytes", true)                                        \
  X(kShortTermHeap, "Memory", "Short Term Heap", "bytes", true)                                   \
  X(kJitHeap, "Memory", "JIT Heap", "bytes", true)                                                \
  X(kAppDomainHeap, "Memory", "App Domain Heap", "bytes", true)                                   \
  X(kGcHeap, "Memory", "GC Heap", "bytes", true)                                                  \
  X(kMethodsJitted, "JIT", "Methods Jitted", "count", false)                                      \
  X(kNativeBytesJitted, "JIT", "Native Bytes Jitted", "bytes", false)                             \
  X(kMethodsPitched, "JIT", "Methods Pitched", "count", false)                                    \
  X(kBytesPitched, "JIT", "Bytes Pitched", "bytes", false)                                        \
  X(kExceptionsThrown, "Exceptions", "Exceptions Thrown", "count", false)                         \
  X(kAppDomainsCreated, "Loader", "App Domains Created", "count", false)                          \
  X(kAppDomainsUnloaded, "Loader", "App Domains Unloaded", "count", false)                        \
  X(kAssembliesLoaded, "Loader", "Assemblies Loaded", "count", false)                             \
  X(kClassesLoaded, "Loader", "Classes Loaded", "count", false)                                   \
  X(kMethodsLoaded, "Loader", "Methods Loaded", "count", false)                                   \
  X(kThreadsInThreadPool, "Locks and Threads", "Threads in Thread Pool", "count", true)           \
  X(kPendingTimers, "Locks and Threads", "Pending Timers", "count", true)                         \
  X(kScheduledTimers, "Locks and Threads", "Scheduled Timers", "count", false)                    \
  X(kTimersDelayed, "Locks and Threads", "Timers Delayed by Thread Pool Limit", "count", false)   \
  X(kWorkItemsQueued, "Locks and Threads", "Work Items Queued", "count", false)                   \
  X(kUncontestedMonitorEnter, "Locks and Threads", "Uncontested Monitor.Enter Calls", "count",    \
    false)                                                                                        \
  X(kContestedMonitorEnter, "Locks and Threads", "Contested Monitor.Enter Calls", "count", false) \
  X(kPlatformInvokeCalls, "Interop", "Platform Invoke Calls", "count", false)

enum class Counter : uint16_t {
#define XRPM_COUNTER_ENUM(e, cat, name, unit, level) e,
  XRPM_EMULATOR_COUNTERS(XRPM_COUNTER_ENUM)
#undef XRPM_COUNTER_ENUM
      kCount
};
inline constexpr size_t kCounterCount = static_cast<size_t>(Counter::kCount);

class Counters {
 public:
  Counters();

  static agent::CounterInfo Describe(size_t index);
  static bool IsLevel(size_t index);

  // Event counter: one datum.
  void Add(Counter c, int64_t datum) {
    Stat& s = stats_[static_cast<size_t>(c)];
    s.total += datum;
    Record(s, datum);
  }
  // Level counter: the current level (also recorded as a datum).
  void Set(Counter c, int64_t level) {
    Stat& s = stats_[static_cast<size_t>(c)];
    s.total = level;
    Record(s, level);
  }
  int64_t Total(Counter c) const { return stats_[static_cast<size_t>(c)].total; }
  uint64_t Count(Counter c) const { return stats_[static_cast<size_t>(c)].n; }

  void Publish();
  size_t Sample(agent::CounterValue* out, size_t count) const;

 private:
  struct Stat {
    int64_t total = 0;
    int64_t last = 0;
    uint64_t n = 0;
    double sum = 0;
    int64_t min = 0;
    int64_t max = 0;
  };
  static void Record(Stat& s, int64_t datum) {
    if (s.n == 0 || datum < s.min) s.min = datum;
    if (s.n == 0 || datum > s.max) s.max = datum;
    s.last = datum;
    s.sum += static_cast<double>(datum);
    ++s.n;
  }

  std::array<Stat, kCounterCount> stats_{};
  mutable std::mutex published_mutex_;
  std::array<agent::CounterValue, kCounterCount> published_{};
};

}  // namespace xrpm::emulator
