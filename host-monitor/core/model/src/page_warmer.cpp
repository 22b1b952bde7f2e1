#include "xrpm/model/page_warmer.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace xrpm {
namespace {

constexpr size_t kStepBytes = size_t{2} << 20;  // one huge page: Stop() waits at most this much
constexpr uintptr_t kPageBytes = 4096;

void Warm(const std::vector<PageWarmer::Range>& ranges, const std::atomic<bool>& stop,
          const PageWarmer::StepHook& before_step) {
#ifdef MADV_POPULATE_WRITE
  pthread_setname_np(pthread_self(), "xrpm-warmer");  // for top, perf and /proc
  // The ranges fill side by side (a capture's columns as batches arrive, the search's arrays a
  // vertex at a time): each round warms the next equal share of every range, about 2 MiB of
  // the largest.
  size_t largest = 0;
  for (const PageWarmer::Range& r : ranges) largest = std::max(largest, r.bytes);
  const size_t rounds = (largest + kStepBytes - 1) / kStepBytes;
  std::vector<bool> done(ranges.size(), false);
  for (size_t k = 0; k < rounds; ++k) {
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (stop.load(std::memory_order_relaxed)) return;
      if (done[i]) continue;
      // Whole pages inside the range (madvise wants a page-aligned start), split into equal
      // shares on page boundaries.
      const uintptr_t data = reinterpret_cast<uintptr_t>(ranges[i].data);
      const uintptr_t begin = (data + kPageBytes - 1) & ~(kPageBytes - 1);
      const uintptr_t end = (data + ranges[i].bytes) & ~(kPageBytes - 1);
      if (begin >= end) continue;
      const uintptr_t pages = (end - begin) / kPageBytes;
      const uintptr_t from = begin + pages * k / rounds * kPageBytes;
      const uintptr_t to = begin + pages * (k + 1) / rounds * kPageBytes;
      if (from >= to) continue;
      if (before_step) before_step();
      // Fails where the range was unmapped or moved since: that range is done with.
      if (madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) != 0)
        done[i] = true;
    }
  }
#else
  (void)ranges;
  (void)stop;
  (void)before_step;
#endif
}

}  // namespace

void PageWarmer::Start(std::vector<Range> ranges, StepHook before_step) {
  Stop();
  stop_.store(false, std::memory_order_relaxed);
  thread_ = std::thread([this, ranges = std::move(ranges), hook = std::move(before_step)] {
    Warm(ranges, stop_, hook);
  });
}

void PageWarmer::Wait() {
  if (thread_.joinable()) thread_.join();
}

void PageWarmer::Stop() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

}  // namespace xrpm
