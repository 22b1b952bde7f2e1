// SampleInterval: the mean allocation-sampling interval in force in a runtime port that samples
// allocations itself (Mono, CoreCLR), and each thread's AllocationSampler following it
// (frame_events.h: one sample per `mean` bytes on average, without bias).
//
// In force: the frames subscription's interval while one is active, else the start-up interval
// (the port's sample_bytes option: Mono's allocation origins; 0 = no sampling without a
// subscription). Each allocating thread keeps its own sampler (thread_local in the port) and
// re-seeds it when the interval changes (a generation number): O(1) per allocation, one compare
// and subtract when nothing changed.
//
// Thread-safety: Set from the agent's thread; Take from any thread with that thread's
// ThreadSampler.
#pragma once

#include <atomic>
#include <cstdint>

#include "xrpm/agent/frame_events.h"

namespace xrpm {
namespace agent {

struct ThreadSampler {
  AllocationSampler sampler;
  uint32_t generation = 0;  // 0: never reset
};

class SampleInterval {
 public:
  explicit SampleInterval(uint32_t startup_bytes) : startup_(startup_bytes) {
    Publish(startup_bytes);
  }
  uint32_t startup_bytes() const { return startup_; }
  // A frames subscription started with `bytes` (or ended: 0).
  void SetSubscription(uint32_t bytes) { Publish(bytes ? bytes : startup_); }
  uint32_t mean_bytes() const { return mean_.load(std::memory_order_acquire); }

  // Accounts an allocation of `size` bytes on the calling thread; true when it is sampled.
  bool Take(ThreadSampler& t, uint64_t size, uint64_t thread_seed) {
    const uint32_t g = generation_.load(std::memory_order_acquire);
    if (t.generation != g) {
      t.sampler.Reset(mean_.load(std::memory_order_acquire),
                      thread_seed * 0x9E3779B97F4A7C15ull + g);
      t.generation = g;
    }
    return t.sampler.Take(size);
  }

 private:
  void Publish(uint32_t bytes) {
    mean_.store(bytes, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  const uint32_t startup_;
  std::atomic<uint32_t> mean_{0};
  std::atomic<uint32_t> generation_{0};
};

}  // namespace agent
}  // namespace xrpm
