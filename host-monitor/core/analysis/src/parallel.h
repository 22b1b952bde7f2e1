// Parallel chunks: the only threading the analysis engine uses. A range is cut into one
// contiguous chunk per thread; chunk 0 runs on the calling thread, the others on short-lived
// std::threads joined before returning. An exception in any chunk is rethrown on the caller
// after all chunks have finished.
//
// Thread-safety: fn must only write state owned by its own chunk (or use atomics).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace xrpm::analysis::detail {

// 0 means "as many as the machine has" (capped: the steps are memory-bound).
inline unsigned ResolveThreads(unsigned requested) {
  if (requested) return requested;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

// Runs fn(chunk, begin, end) for the chunks [bounds[k], bounds[k+1]).
template <class Fn>
void RunChunks(const std::vector<size_t>& bounds, Fn&& fn) {
  const size_t chunks = bounds.size() - 1;
  std::vector<std::exception_ptr> errors(chunks);
  auto run = [&](size_t k) {
    try {
      fn(k, bounds[k], bounds[k + 1]);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(chunks);
  for (size_t k = 1; k < chunks; ++k) workers.emplace_back(run, k);
  if (chunks) run(0);
  for (auto& t : workers) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Equal-sized chunks of [0, n): at least `min_per_chunk` items each (small inputs stay serial).
inline std::vector<size_t> EvenBounds(size_t n, unsigned threads, size_t min_per_chunk = 1 << 16) {
  size_t chunks =
      std::max<size_t>(1, std::min<size_t>(threads, n / std::max<size_t>(1, min_per_chunk)));
  std::vector<size_t> b(chunks + 1);
  for (size_t k = 0; k <= chunks; ++k) b[k] = n * k / chunks;
  return b;
}

// Chunks of [0, n) with about equal total weight, where prefix(i) is the weight of [0, i)
// (monotone), e.g. a CSR offset array.
template <class Prefix>
std::vector<size_t> WeightedBounds(size_t n, unsigned threads, Prefix&& prefix,
                                   size_t min_weight_per_chunk = 1 << 18) {
  const size_t total = n ? static_cast<size_t>(prefix(n)) + n : 0;  // + n: objects cost too
  size_t chunks = std::max<size_t>(
      1, std::min<size_t>(threads, total / std::max<size_t>(1, min_weight_per_chunk)));
  std::vector<size_t> b(chunks + 1, n);
  b[0] = 0;
  for (size_t k = 1; k < chunks; ++k) {
    const size_t target = total * k / chunks;
    size_t lo = b[k - 1], hi = n;  // first i with prefix(i) + i >= target
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (static_cast<size_t>(prefix(mid)) + mid < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    b[k] = lo;
  }
  return b;
}

}  // namespace xrpm::analysis::detail
