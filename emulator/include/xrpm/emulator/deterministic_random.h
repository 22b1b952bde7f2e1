// Deterministic pseudo-random numbers for scenarios: SplitMix64 (Steele, Lea, Flood 2014), a
// tiny generator with good statistical quality, and a stateless Mix() for hashing indices, so
// that the same seed always builds the same heap.
//
// Thread-safety: a value; one generator per thread.
#pragma once

#include <cstdint>

namespace xrpm::emulator {

inline uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t Mix(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return Mix(seed ^ Mix(a ^ Mix(b)));
}

class DeterministicRandom {
 public:
  explicit DeterministicRandom(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix(state_++ * 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, n).
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>((Next() >> 32) * n >> 32); }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0); }
  float Range(float lo, float hi) { return lo + static_cast<float>(Unit()) * (hi - lo); }

 private:
  uint64_t state_;
};

}  // namespace xrpm::emulator
