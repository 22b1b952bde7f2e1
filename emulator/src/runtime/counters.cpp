#include "xrpm/emulator/counters.h"

#include <algorithm>

namespace xrpm::emulator {
namespace {
struct Row {
  agent::CounterInfo info;
  bool level;
};
constexpr Row kRows[] = {
#define XRPM_COUNTER_ROW(e, cat, name, unit, level) {{cat, name, unit}, level},
    XRPM_EMULATOR_COUNTERS(XRPM_COUNTER_ROW)
#undef XRPM_COUNTER_ROW
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kCounterCount);
}  // namespace

Counters::Counters() {
  Publish();
}

agent::CounterInfo Counters::Describe(size_t index) {
  if (index >= kCounterCount) return {"", "", ""};
  return kRows[index].info;
}

bool Counters::IsLevel(size_t index) {
  return index < kCounterCount && kRows[index].level;
}

void Counters::Publish() {
  std::array<agent::CounterValue, kCounterCount> v;
  for (size_t i = 0; i < kCounterCount; ++i) {
    const Stat& s = stats_[i];
    v[i] = agent::CounterValue{s.total, s.last, s.n, s.n ? s.sum / static_cast<double>(s.n) : 0.0,
                               s.min,   s.max};
  }
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
