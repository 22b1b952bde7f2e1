// CounterStat: one NETCF performance counter as a runtime keeps it, the .stat columns (total,
// last datum, n, mean, min, max; agent::CounterValue). An event counter (Managed Bytes
// Allocated, GC Latency Time) adds each datum to its total (Add); a level counter (GC Heap,
// Managed Bytes In Use After GC) records samples and its total is the current level (Set). The
// one accumulator behind both runtimes' counters: the emulator's (xrpm/emulator/counters.h)
// and the Mono port's (ports/mono/src/mono_counters.h); the catalog is in
// xrpm/protocol/netcf_counters.h.
//
// Thread-safety: set by the writer policy.
//   kOne:  one thread updates (the emulator's world-holding thread). Updates are relaxed loads
//          and stores, as cheap as plain fields on the allocation path; Value() from any thread.
//   kMany: any thread updates, lock-free (Mono's profiler callbacks, which must never block):
//          read-modify-write atomics, min and max by compare-exchange.
// Value() never blocks; read while an update races it, it may mix the two (a live display
// tolerates that). A runtime that needs consistent samples copies Value() at a point where no
// update runs, as the emulator does at each frame's end.
#pragma once

#include <atomic>
#include <cstdint>

#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace agent {

enum class CounterWriters { kOne, kMany };

template <CounterWriters W>
class CounterStat {
 public:
  // Event counter: one datum, added to the total.
  void Add(int64_t datum) {
    Bump(total_, datum);
    Record(datum);
  }
  // Level counter: the current level, also recorded as a datum.
  void Set(int64_t level) {
    total_.store(level, std::memory_order_relaxed);
    Record(level);
  }
  int64_t total() const { return total_.load(std::memory_order_relaxed); }
  uint64_t count() const { return n_.load(std::memory_order_relaxed); }

  CounterValue Value() const {
    CounterValue v;
    v.n = n_.load(std::memory_order_relaxed);
    v.total = total_.load(std::memory_order_relaxed);
    v.last = last_.load(std::memory_order_relaxed);
    v.min = v.n ? min_.load(std::memory_order_relaxed) : 0;
    v.max = v.n ? max_.load(std::memory_order_relaxed) : 0;
    v.mean =
        v.n ? static_cast<double>(sum_.load(std::memory_order_relaxed)) / static_cast<double>(v.n)
            : 0.0;
    return v;
  }

 private:
  template <typename T>
  static void Bump(std::atomic<T>& a, T d) {
    if constexpr (W == CounterWriters::kOne)
      a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
    else
      a.fetch_add(d, std::memory_order_relaxed);
  }
  // Lowers (less) or raises (!less) `a` to d.
  template <bool kLess>
  static void Extreme(std::atomic<int64_t>& a, int64_t d) {
    int64_t seen = a.load(std::memory_order_relaxed);
    if constexpr (W == CounterWriters::kOne) {
      if (kLess ? d < seen : d > seen) a.store(d, std::memory_order_relaxed);
    } else {
      while ((kLess ? d < seen : d > seen) &&
             !a.compare_exchange_weak(seen, d, std::memory_order_relaxed)) {
      }
    }
  }
  void Record(int64_t datum) {
    Extreme<true>(min_, datum);
    Extreme<false>(max_, datum);
    last_.store(datum, std::memory_order_relaxed);
    Bump<int64_t>(sum_, datum);
    Bump<uint64_t>(n_, 1);
  }

  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> last_{0};
  std::atomic<uint64_t> n_{0};
  std::atomic<int64_t> sum_{0};
  std::atomic<int64_t> min_{INT64_MAX};
  std::atomic<int64_t> max_{INT64_MIN};
};

}  // namespace agent
}  // namespace xrpm
