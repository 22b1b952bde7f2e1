// Parallel chunks: the only threading the analysis engine uses. A range is cut into one
// contiguous chunk per thread, run by ForkJoin (xrpm/model/fork_join.h): chunk 0 on the calling
// thread, an exception in any chunk rethrown on the caller after all chunks have finished.
//
// Thread-safety: fn must only write state owned by its own chunk (or use atomics).
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "xrpm/model/fork_join.h"

namespace xrpm::analysis::detail {

using xrpm::ResolveThreads;  // xrpm/model/fork_join.h

// Runs fn(chunk, begin, end) for the chunks [bounds[k], bounds[k+1]) (xrpm/model/fork_join.h).
template <class Fn>
void RunChunks(const std::vector<size_t>& bounds, Fn&& fn) {
  ForkJoin(static_cast<unsigned>(bounds.size() - 1),
           [&](unsigned k) { fn(k, bounds[k], bounds[k + 1]); });
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
