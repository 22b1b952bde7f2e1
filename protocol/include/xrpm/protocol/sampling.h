// Allocation sampling as device and host both understand it (docs/PROTOCOL.md, "Frames and
// allocation samples"): the device treats allocated bytes as a Poisson process with one sample
// point per `mean_bytes` on average (the agent's AllocationSampler, frame_events.h), so an
// allocation of s bytes is sampled with probability
//   p(s) = 1 - exp(-s / mean_bytes),
// independently of the others. The host's unbiased estimates weight each sample by 1 / p(s):
//   bytes = sum over samples of s / p(s),   objects = sum over samples of 1 / p(s).
// The one definition of p: the agent's tests, the host's allocation profiles and the per-site
// statistics of a capture all call SampleProbability.
//
// Thread-safety: a pure function.
#pragma once

#include <cmath>

namespace xrpm {
namespace protocol {

// p(size) for a sampler with mean interval `mean_bytes`; 1 when sampling is off (mean <= 0),
// so every allocation then counts once.
inline double SampleProbability(double size, double mean_bytes) {
  return mean_bytes <= 0 ? 1.0 : -std::expm1(-size / mean_bytes);
}

}  // namespace protocol
}  // namespace xrpm
