// Frame events: what a runtime reports about every game frame and about sampled allocations, and
// the sampler that picks those allocations without bias (RuntimePort::SetFrameEventSink).
//
// A runtime that supports frames calls, on its game (allocating) thread:
//   - FrameEventSink::OnFrame once at the end of every frame, with the frame's duration, what it
//     allocated and the collections that ran since the previous frame ended;
//   - FrameEventSink::OnAllocationSample for each allocation its AllocationSampler selects, with
//     the type, the size and the managed stack that allocated it, innermost frame first.
// The sink (the agent's FrameTracker) copies what it needs and returns at once: it never blocks,
// never waits for the network and allocates only the first time it sees a method, type or stack
// (bounded tables). Pointers in the records are valid only during the call.
//
// Sampling (AllocationSampler): the allocated bytes are treated as a Poisson process with one
// sample point per `mean_bytes` on average (exponentially distributed gaps, as tcmalloc and
// heapprofd do); an allocation is sampled when a point falls inside it. An allocation of s bytes
// is therefore sampled with probability p(s) = 1 - exp(-s / mean_bytes), independently of the
// others, whatever its size or site (protocol::SampleProbability, xrpm/protocol/sampling.h, is
// that p and the host's estimator weights).
// Cost on the allocation path: one compare and subtract; a log() and a few multiplies per sample.
//
// Thread-safety: FrameEventSink calls are serialised by the runtime (see RuntimePort).
// AllocationSampler is used by one thread at a time (the runtime's allocating thread).
#pragma once

#include <cmath>
#include <cstdint>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm {
namespace agent {

// Longest stack a sample carries; deeper stacks keep their innermost frames. The wire's bound.
constexpr uint32_t kMaxSampleStackDepth = protocol::kMaxStackDepth;

// One game frame, reported when it ends.
struct FrameRecord {
  uint64_t frame;          // frame number, from 0 (consecutive while frames are reported)
  uint64_t end_us;         // device clock (BootMillis() * 1000 scale) when the frame ended
  uint32_t duration_us;    // previous frame's end -> this frame's end (what the player sees)
  uint32_t work_us;        // of which the frame's own work (update, draw, its collections)
  uint64_t alloc_bytes;    // allocated during the frame (exact)
  uint32_t alloc_objects;  // objects allocated during the frame (exact)
  uint32_t gcs;            // collections since the previous frame ended (in it, or between)
  uint32_t gc_pause_us;    // their total pause
  // Bytes that may still be allocated before the next collection (the NETCF 1 MB budget), at the
  // end of the frame; -1 when the runtime has no byte budget.
  int64_t gc_budget_left;
  // The first collections' generations and reasons (xrpm/protocol/gc_kinds.h); 0: not known.
  uint32_t gc_kinds = 0;
};

// One sampled allocation.
struct AllocationSample {
  uint64_t frame;     // the frame it happened in (the next FrameRecord's frame)
  uint32_t size;      // bytes of the object
  uint64_t type_key;  // stable per type while the runtime lives (a type handle, an index)
  const char* type_name;
  // depth <= kMaxSampleStackDepth managed frames, innermost first (the allocating method first):
  // method_keys[i] is stable per method (a MethodDef token, a method handle), method_names[i]
  // its full name ("Bubbles.BubbleField.Spawn").
  uint32_t depth;
  const uint64_t* method_keys;
  const char* const* method_names;
  // The innermost scope tag open on the allocating thread (game_events.h ScopeTagStack):
  // tag_key 0 means none; tag_name its text (cut at kMaxMarkerTextBytes by the agent).
  uint64_t tag_key = 0;
  const char* tag_name = nullptr;
};

class FrameEventSink {
 public:
  virtual void OnFrame(const FrameRecord& frame) noexcept = 0;
  virtual void OnAllocationSample(const AllocationSample& sample) noexcept = 0;

 protected:
  ~FrameEventSink() = default;
};

// The byte countdown a runtime keeps on its allocation path (see the header comment).
class AllocationSampler {
 public:
  // mean_bytes 0 disables sampling (Take is then always false). `seed` seeds the gaps.
  void Reset(uint32_t mean_bytes, uint64_t seed) {
    mean_ = mean_bytes;
    state_ = seed ? seed : 0x9E3779B97F4A7C15ull;
    left_ = mean_ ? Gap() : UINT64_MAX;
  }
  uint32_t mean_bytes() const { return mean_; }

  // Accounts an allocation of `size` bytes; true when it is sampled.
  bool Take(uint64_t size) {
    if (size < left_) {
      left_ -= size;
      return false;
    }
    return TakeSlow(size);
  }

 private:
  bool TakeSlow(uint64_t size) {
    if (!mean_) return false;
    // A sample point lies inside this allocation; move the process past its end.
    uint64_t rest = size - left_;
    uint64_t gap = Gap();
    while (gap <= rest) {
      rest -= gap;
      gap = Gap();
    }
    left_ = gap - rest;
    return true;
  }
  // An exponential gap with mean mean_ (>= 1): -mean * ln(u), u uniform in (0, 1].
  uint64_t Gap() {
    // splitmix64
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u = (static_cast<double>(z >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    const double g = -std::log(u) * mean_;
    return g < 1 ? 1 : static_cast<uint64_t>(g);
  }

  uint32_t mean_ = 0;
  uint64_t state_ = 1;
  uint64_t left_ = UINT64_MAX;
};

}  // namespace agent
}  // namespace xrpm
