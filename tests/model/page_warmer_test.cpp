// PageWarmer: faults in the pages of the ranges it is given, skips a range that is no longer
// mapped, stops on request, and runs at its owner's priority (never below it: its populate call
// holds the process's memory-map lock).
// ctest-labels: threaded
#include "xrpm/model/page_warmer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "resident_pages.h"

namespace xrpm::testing {
namespace {

bool PopulateWriteWorks() {
#ifdef MADV_POPULATE_WRITE
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool ok = p != MAP_FAILED && madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  if (p != MAP_FAILED) munmap(p, 4096);
  return ok;
#else
  return false;
#endif
}

TEST(PageWarmer, FaultsInTheRangesAndSkipsOneNoLongerMapped) {
  if (!PopulateWriteWorks()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (5.14+)";
  constexpr size_t kBytes = 8 << 20;
  auto map = [] {
    return mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  };
  void* gone = map();
  void* a = map();
  void* b = map();
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_NE(a, MAP_FAILED);
  ASSERT_NE(b, MAP_FAILED);
  munmap(gone, kBytes);
  EXPECT_EQ(ResidentPages(a, kBytes), 0u);
  PageWarmer warmer;
  warmer.Start({{gone, kBytes}, {a, kBytes}, {static_cast<char*>(b) + 100, kBytes / 2}});
  warmer.Wait();
  EXPECT_EQ(ResidentPages(a, kBytes), kBytes / 4096);
  // Only whole pages inside the range: the first page (from byte 100) is left.
  EXPECT_EQ(ResidentPages(b, kBytes), kBytes / 2 / 4096 - 1);
  munmap(a, kBytes);
  munmap(b, kBytes);
}

TEST(PageWarmer, StopsBeforeTheEndWhenAsked) {
  if (!PopulateWriteWorks()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (5.14+)";
  // 1 GiB of address space, not all faulted in by the time Stop returns: Stop ends the warming
  // early (what it faulted is unmapped below).
  constexpr size_t kBytes = size_t{1} << 30;
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  PageWarmer warmer;
  warmer.Start({{p, kBytes}});
  warmer.Stop();
  EXPECT_LT(ResidentPages(p, kBytes), kBytes / 4096);
  munmap(p, kBytes);
}

// A thread of the warmer's below its owner's priority holds the memory-map lock while it is
// preempted on a busy machine, and every other thread that maps or protects memory waits for it.
TEST(PageWarmer, RunsAtItsOwnersPriority) {
  if (!PopulateWriteWorks()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (5.14+)";
  const int start_nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  if (start_nice >= 18) GTEST_SKIP() << "already at nice " << start_nice << ": no room below 19";
  constexpr size_t kBytes = 4 << 20;
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  // The owner on a thread of its own, a little nicer than the test (a thread may raise its own
  // nice value, not lower it: the test's main thread keeps its priority); a new thread inherits
  // its creator's.
  int owner_nice = 0, warmer_nice = -100, steps = 0;  // the warmer's highest nice value
  bool niced = false;
  std::thread owner([&] {
    niced = setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), start_nice + 1) == 0;
    owner_nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    PageWarmer warmer;
    warmer.Start({{p, kBytes}}, [&] {
      warmer_nice = std::max(warmer_nice, getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())));
      ++steps;
    });
    warmer.Wait();
  });
  owner.join();
  ASSERT_TRUE(niced);
  EXPECT_EQ(owner_nice, start_nice + 1);
  EXPECT_EQ(steps, 2);  // 4 MiB in 2 MiB steps
  EXPECT_EQ(warmer_nice, owner_nice);
  EXPECT_EQ(ResidentPages(p, kBytes), kBytes / 4096);
  munmap(p, kBytes);
}

}  // namespace
}  // namespace xrpm::testing
