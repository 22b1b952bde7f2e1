// Fork-join: the one way host code runs work on several threads. ForkJoin(n, fn) runs fn(0) on
// the calling thread and fn(1) ... fn(n-1) on short-lived std::threads, joins them all, then
// rethrows the first exception (by index) any of them threw. When a thread cannot be started
// (the process is out of threads or memory), the indices without one run on the calling
// thread after fn(0), in order: the work is done either way, so no caller handles it (an
// index may wait for a lower one's result, never for a higher one's). ForEachTask hands `tasks` out
// in order to up to `threads` such workers and starts no new task after a failure.
//
// No pool: the callers (the readers, the .xrpm blocks, the analysis steps) run a few long
// memory-bound steps, where a thread's start costs nothing next to its work.
//
// Thread-safety: fn runs concurrently with itself; it must only write state owned by its own
// index (or use atomics).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace xrpm {

// Worker threads for a `threads` option: as given, or for 0 as many as the machine has, at most
// 8 (the steps that use it are memory-bound).
inline unsigned ResolveThreads(unsigned requested) {
  if (requested) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : (hw > 8 ? 8 : hw);
}

template <class Fn>
void ForkJoin(unsigned n, Fn&& fn) {
  if (n == 0) return;
  std::vector<std::exception_ptr> errors(n);
  auto run = [&](unsigned i) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  unsigned started = 1;
  try {
    for (; started < n; ++started) threads.emplace_back(run, started);
  } catch (const std::exception&) {  // std::system_error, std::bad_alloc: no thread to be had
  }
  run(0);
  for (unsigned i = started; i < n; ++i) run(i);
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Raises `flag` when it goes out of scope, however the scope ends (an exception too), and wakes
// its waiters: tells the work beside this one (another ForkJoin index) that this part is over,
// for work that only uses the time until then, or waits for its result
// (flag.wait(false, std::memory_order_acquire) then sees everything written before the raise).
struct RaiseOnExit {
  std::atomic<bool>& flag;
  ~RaiseOnExit() {
    flag.store(true, std::memory_order_release);
    flag.notify_all();
  }
};

// Runs fn(worker, task) for every task in [0, tasks) on min(tasks, threads) workers (the caller
// is worker 0), handing tasks out in order. After the first exception no new task starts.
template <class Fn>
void ForEachTask(size_t tasks, unsigned threads, Fn&& fn) {
  const unsigned n = static_cast<unsigned>(tasks < threads ? tasks : threads);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  ForkJoin(n, [&](unsigned worker) {
    try {
      for (size_t t; !failed.load(std::memory_order_relaxed) && (t = next++) < tasks;)
        fn(worker, t);
    } catch (...) {
      failed = true;
      throw;
    }
  });
}

// Runs fn(chunk, begin, end) for the chunks [bounds[k], bounds[k+1]), one worker each.
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
// (monotone), e.g. a CSR offset array. O(chunks log n).
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

}  // namespace xrpm
