// Counters: the NETCF performance counters of the emulated runtime (the catalog in
// xrpm/protocol/netcf_counters.h, all but the Mono port's "Managed Threads").
//
// Each counter keeps the .stat columns (agent::CounterStat, one writer): an event counter
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

#include "xrpm/agent/counter_stat.h"
#include "xrpm/agent/runtime_port.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm::emulator {

// The emulator reports every NETCF counter of the catalog (xrpm/protocol/netcf_counters.h), in its
// order: Counter is the catalog's enumeration.
using Counter = protocol::NetcfCounter;
inline constexpr size_t kCounterCount = static_cast<size_t>(Counter::kManagedThreads);

class Counters {
 public:
  Counters();

  static agent::CounterInfo Describe(size_t index);

  // Event counter: one datum.
  void Add(Counter c, int64_t datum) { stats_[static_cast<size_t>(c)].Add(datum); }
  // Level counter: the current level (also recorded as a datum).
  void Set(Counter c, int64_t level) { stats_[static_cast<size_t>(c)].Set(level); }
  int64_t Total(Counter c) const { return stats_[static_cast<size_t>(c)].total(); }
  uint64_t Count(Counter c) const { return stats_[static_cast<size_t>(c)].count(); }

  void Publish();
  size_t Sample(agent::CounterValue* out, size_t count) const;

 private:
  std::array<agent::CounterStat<agent::CounterWriters::kOne>, kCounterCount> stats_{};
  mutable std::mutex published_mutex_;
  std::array<agent::CounterValue, kCounterCount> published_{};
};

}  // namespace xrpm::emulator
