// CowChild: a child's fate as Reap tells it, and the parent's pages made writable again after
// it (MakeWritableAgain), counted in the page faults of this thread's own writes.
#include "xrpm/agent/cow_child.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "proc_usage.h"
#include "resident_pages.h"
#include "sanitizers.h"

namespace xrpm::agent {
namespace {

constexpr size_t kPages = 4096;  // 16 MiB of 4 KiB pages

// ThreadSanitizer's instrumented writes also write its shadow, whose pages the clone
// write-protected too (a mapping larger than memory, which MakeWritableAgain leaves alone):
// the faults counted are then its, not the region's.
constexpr bool kCountsFaults = !testing::kUnderTsan;

size_t PageBytes() {
  return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

long ThreadMinorFaults() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return r.ru_minflt;
}

// A private anonymous mapping of `pages` pages (kPages unless said), the first `touched` of
// them written.
struct Region {
  explicit Region(size_t touched, size_t pages = kPages) {
    bytes = pages * PageBytes();
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    data = static_cast<char*>(p);
    madvise(data, bytes, MADV_NOHUGEPAGE);  // one fault a page, whatever the machine's THP
    std::memset(data, 1, touched * PageBytes());
  }
  ~Region() {
    if (data) munmap(data, bytes);
  }
  // Writes a byte of each of the first `pages` pages: the faults that took.
  long WriteEachPage(size_t pages) {
    const long before = ThreadMinorFaults();
    for (size_t i = 0; i < pages; ++i) data[i * PageBytes()] += 1;
    return ThreadMinorFaults() - before;
  }
  char* data = nullptr;
  size_t bytes = 0;
};

// A child that exits at once, reaped: the pages the two shared stay write-protected here.
void ForkAndReap() {
  CowChild child;
  std::string error;
  ASSERT_TRUE(child.Make(CowChild::Clone::kFork, &error)) << error;
  if (child.child()) _exit(0);
  EXPECT_EQ(child.Reap(false), "");
}

TEST(CowChild, AfterTheChildEveryFirstWriteFaults) {
  if (!kCountsFaults) GTEST_SKIP() << "the sanitizer's own writes fault too";
  Region region(kPages);
  ASSERT_NE(region.data, nullptr);
  EXPECT_LT(region.WriteEachPage(kPages), static_cast<long>(kPages / 16));  // writable now
  ForkAndReap();
  // What MakeWritableAgain is for: each page's first write after the child takes a fault.
  EXPECT_GE(region.WriteEachPage(kPages), static_cast<long>(kPages / 2));
}

TEST(CowChild, MakeWritableAgainTakesTheFaultsAhead) {
  Region region(kPages);
  ASSERT_NE(region.data, nullptr);
  ForkAndReap();
  const CowChild::Rewritten w = CowChild::MakeWritableAgain();
  if (!w.supported) GTEST_SKIP() << "no MADV_POPULATE_WRITE (Linux 5.14+) or no /proc/self/pagemap";
  EXPECT_GE(w.bytes, region.bytes);  // this region, and the rest of the process's
  const long faults = region.WriteEachPage(kPages);
  if (kCountsFaults) {
    EXPECT_LT(faults, static_cast<long>(kPages / 16));
  }
  // The contents are untouched: each page's byte was 1, written once since.
  for (size_t i = 0; i < kPages; ++i) ASSERT_EQ(region.data[i * PageBytes()], 2) << "page " << i;
}

TEST(CowChild, MakeWritableAgainBringsNoPageIntoMemory) {
  Region region(kPages / 2);        // the first half written, the third quarter only read, the rest
  ASSERT_NE(region.data, nullptr);  // never touched
  unsigned sum = 0;
  for (size_t i = kPages / 2; i < kPages * 3 / 4; ++i)
    sum += static_cast<volatile char*>(region.data)[i * PageBytes()];  // the zero page
  EXPECT_EQ(sum, 0u);
  ForkAndReap();
  const uint64_t before = testing::StatusKiB("self", "RssAnon");
  if (!CowChild::MakeWritableAgain().supported)
    GTEST_SKIP() << "no MADV_POPULATE_WRITE (Linux 5.14+) or no /proc/self/pagemap";
  // The pages only read stay the zero page: not a quarter of the region (4 MiB) more.
  EXPECT_LT(testing::StatusKiB("self", "RssAnon"), before + kPages / 8 * PageBytes() / 1024);
  const size_t quarter = region.bytes / 4;
  EXPECT_EQ(testing::ResidentPages(region.data + 3 * quarter, quarter), 0u);
  EXPECT_EQ(testing::ResidentPages(region.data, 2 * quarter), 2 * quarter / 4096);  // 4 KiB units
  // And the half written takes no fault at its next write.
  const long faults = region.WriteEachPage(kPages / 2);
  if (kCountsFaults) {
    EXPECT_LT(faults, static_cast<long>(kPages / 32));
  }
}

TEST(CowChild, MakeWritableAgainCoversAMappingOfSeveralWindowsToItsLastPage) {
  if (!kCountsFaults) GTEST_SKIP() << "the sanitizer's own writes fault too";
  // Larger than the 16 MiB looked at a time, and ending 37 pages into the next window.
  const size_t pages = 2 * kPages + 37;
  Region region(pages, pages);
  ASSERT_NE(region.data, nullptr);
  ForkAndReap();
  if (!CowChild::MakeWritableAgain().supported)
    GTEST_SKIP() << "no MADV_POPULATE_WRITE (Linux 5.14+) or no /proc/self/pagemap";
  // The last pages first, the window that holds them alone: no fault there.
  const long before = ThreadMinorFaults();
  for (size_t i = pages - 37; i < pages; ++i) region.data[i * PageBytes()] += 1;
  EXPECT_LT(ThreadMinorFaults() - before, 4);
  EXPECT_LT(region.WriteEachPage(pages), static_cast<long>(pages / 16));
}

TEST(CowChild, ReapTellsTheChildsFate) {
  CowChild child;
  std::string error;
  ASSERT_TRUE(child.Make(CowChild::Clone::kFork, &error)) << error;
  if (child.child()) _exit(CowChild::kExitThrew);
  EXPECT_EQ(child.Reap(false), "the snapshot process ran out of memory walking");
  EXPECT_FALSE(child.running());
}

}  // namespace
}  // namespace xrpm::agent
