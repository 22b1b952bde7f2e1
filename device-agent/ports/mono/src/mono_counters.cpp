#include "mono_counters.h"

namespace xrpm {
namespace mono {
namespace {

constexpr protocol::NetcfCounter kCatalog[] = {
#define XRPM_MONO_COUNTER_NETCF(e, netcf) protocol::NetcfCounter::netcf,
    XRPM_MONO_COUNTERS(XRPM_MONO_COUNTER_NETCF)
#undef XRPM_MONO_COUNTER_NETCF
};

}  // namespace

agent::CounterInfo MonoCounters::Describe(size_t index) {
  if (index >= kMonoCounterCount) return {"", "", ""};
  return protocol::Spec(kCatalog[index]).info;
}

size_t MonoCounters::Sample(agent::CounterValue* out, size_t count) const {
  const size_t n = count < kMonoCounterCount ? count : kMonoCounterCount;
  for (size_t i = 0; i < n; ++i) out[i] = stats_[i].Value();
  return n;
}

}  // namespace mono
}  // namespace xrpm
