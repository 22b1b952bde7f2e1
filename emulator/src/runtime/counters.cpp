#include "xrpm/emulator/counters.h"

#include <algorithm>

namespace xrpm::emulator {
static_assert(kCounterCount + 1 == static_cast<size_t>(Counter::kCount),
              "the catalog's last counter (Managed Threads) is the Mono port's alone");

Counters::Counters() {
  Publish();
}

agent::CounterInfo Counters::Describe(size_t index) {
  if (index >= kCounterCount) return {"", "", ""};
  return protocol::kNetcfCounters[index].info;
}

void Counters::Publish() {
  std::array<agent::CounterValue, kCounterCount> v;
  for (size_t i = 0; i < kCounterCount; ++i) v[i] = stats_[i].Value();
  std::lock_guard<std::mutex> lock(published_mutex_);
  published_ = v;
}

size_t Counters::Sample(agent::CounterValue* out, size_t count) const {
  size_t n = std::min(count, kCounterCount);
  std::lock_guard<std::mutex> lock(published_mutex_);
  std::copy_n(published_.begin(), n, out);
  return n;
}

}  // namespace xrpm::emulator
