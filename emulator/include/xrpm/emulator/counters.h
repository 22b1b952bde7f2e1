// Counters: the NETCF performance counters of the emulated runtime (the catalog in
// xrpm/agent/netcf_counters.h, all but the Mono port's "Managed Threads").
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

#include "xrpm/agent/netcf_counters.h"
#include "xrpm/agent/runtime_port.h"

namespace xrpm::emulator {

// The emulator reports every NETCF counter of the catalog (xrpm/agent/netcf_counters.h), in its
// order: Counter is the catalog's enumeration.
using Counter = agent::NetcfCounter;
inline constexpr size_t kCounterCount = static_cast<size_t>(Counter::kManagedThreads);

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
