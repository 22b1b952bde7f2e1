// The NETCF performance counter catalog: every counter a runtime port may report, under the
// names, categories and units the .NET Compact Framework's Remote Performance Monitor and its
// .stat files use (plus "Managed Threads", which the Mono port reports). One list for the
// runtimes (the emulator reports all NETCF counters, the Mono and .NET ports the ones they can
// fill), the agent and the host: code names a counter by its enumerator, never by a string
// literal. The wire carries a counter's category, name and unit (CounterDescriptor), so the host
// finds a catalog counter among the ones a device reports by Spec(c).info.
//
// An event counter (Managed Bytes Allocated, GC Latency Time) adds each datum to its total; a
// level counter (GC Heap, Managed Bytes In Use After GC) records samples and its total is the
// current level.
//
// Thread-safety: constant data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xrpm {
namespace protocol {

// One performance counter, as the NETCF Remote Performance Monitor shows it (the agent's
// RuntimePort::DescribeCounter, the wire's CounterDescriptor).
struct CounterInfo {
  const char* category;  // "Garbage Collector", "Memory", "JIT", "Exceptions", "Loader", ...
  const char* name;      // "Managed Bytes Allocated", ...
  const char* unit;      // "count", "bytes", "ms"
};

// X(enumerator, category, name, unit, is_level)
#define XRPM_NETCF_COUNTERS(X)                                                                    \
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
  X(kPlatformInvokeCalls, "Interop", "Platform Invoke Calls", "count", false)                     \
  X(kManagedThreads, "Locks and Threads", "Managed Threads", "count", true)

enum class NetcfCounter : uint16_t {
#define XRPM_NETCF_COUNTER_ENUM(e, cat, name, unit, level) e,
  XRPM_NETCF_COUNTERS(XRPM_NETCF_COUNTER_ENUM)
#undef XRPM_NETCF_COUNTER_ENUM
      kCount
};

struct NetcfCounterSpec {
  CounterInfo info;
  bool level;
};

inline constexpr NetcfCounterSpec kNetcfCounters[] = {
#define XRPM_NETCF_COUNTER_SPEC(e, cat, name, unit, level) {{cat, name, unit}, level},
    XRPM_NETCF_COUNTERS(XRPM_NETCF_COUNTER_SPEC)
#undef XRPM_NETCF_COUNTER_SPEC
};

constexpr const NetcfCounterSpec& Spec(NetcfCounter c) {
  return kNetcfCounters[static_cast<size_t>(c)];
}
constexpr const char* CounterName(NetcfCounter c) {
  return Spec(c).info.name;
}

}  // namespace protocol
}  // namespace xrpm
