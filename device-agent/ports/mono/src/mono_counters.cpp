#include "mono_counters.h"

namespace xrpm {
namespace mono {
namespace {

constexpr agent::NetcfCounter kCatalog[] = {
#define XRPM_MONO_COUNTER_NETCF(e, netcf) agent::NetcfCounter::netcf,
    XRPM_MONO_COUNTERS(XRPM_MONO_COUNTER_NETCF)
#undef XRPM_MONO_COUNTER_NETCF
};

}  // namespace

agent::CounterInfo MonoCounters::Describe(size_t index) {
  if (index >= kMonoCounterCount) return {"", "", ""};
  return agent::Spec(kCatalog[index]).info;
}

void MonoCounters::Record(Stat& s, int64_t datum) {
  int64_t seen = s.min.load(std::memory_order_relaxed);
  while (datum < seen && !s.min.compare_exchange_weak(seen, datum, std::memory_order_relaxed)) {
  }
  seen = s.max.load(std::memory_order_relaxed);
  while (datum > seen && !s.max.compare_exchange_weak(seen, datum, std::memory_order_relaxed)) {
  }
  s.last.store(datum, std::memory_order_relaxed);
  s.sum.fetch_add(datum, std::memory_order_relaxed);
  s.n.fetch_add(1, std::memory_order_relaxed);
}

size_t MonoCounters::Sample(agent::CounterValue* out, size_t count) const {
  const size_t n = count < kMonoCounterCount ? count : kMonoCounterCount;
  for (size_t i = 0; i < n; ++i) {
    const Stat& s = stats_[i];
    agent::CounterValue& v = out[i];
    v.n = s.n.load(std::memory_order_relaxed);
    v.total = s.total.load(std::memory_order_relaxed);
    v.last = s.last.load(std::memory_order_relaxed);
    v.min = v.n ? s.min.load(std::memory_order_relaxed) : 0;
    v.max = v.n ? s.max.load(std::memory_order_relaxed) : 0;
    v.mean =
        v.n ? static_cast<double>(s.sum.load(std::memory_order_relaxed)) / static_cast<double>(v.n)
            : 0.0;
  }
  return n;
}

}  // namespace mono
}  // namespace xrpm
