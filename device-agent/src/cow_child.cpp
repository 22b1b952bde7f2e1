// CowChild: a copy-on-write child made with a raw clone(2) or fork(2) (cow_child.h).
#include "xrpm/agent/cow_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

// Headers older than Linux 5.14 lack the advice; the kernel is asked at run time (the same
// number on every architecture).
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace xrpm {
namespace agent {
namespace {

std::string Fate(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "the snapshot process was killed by signal " + std::to_string(sig) +
           (name ? std::string(" (") + name + ")" : "");
  }
  if (!WIFEXITED(status)) return "the snapshot process ended with status " + std::to_string(status);
  switch (WEXITSTATUS(status)) {
    case 0:
      return "";
    case CowChild::kExitWriteFailed:
      return "the snapshot process could not write its walk";
    case CowChild::kExitThrew:
      return "the snapshot process ran out of memory walking";
    case CowChild::kExitOrphan:
      return "the snapshot process lost its parent";
    default:
      return "the snapshot process exited with " + std::to_string(WEXITSTATUS(status));
  }
}

// In the child: one thread, a copy of the caller's memory.
void SetUpChild(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (static_cast<pid_t>(syscall(SYS_getppid)) != parent) _exit(CowChild::kExitOrphan);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &dfl, nullptr);
  struct sigaction ign = dfl;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, nullptr);
}

// The whole text of /proc/self/maps ("" when it cannot be read).
std::string ReadMaps() {
  std::string text;
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[16384];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

// One line of /proc/self/maps ("start-end perms offset dev inode [path]"): true with [*from,
// *to) for a private anonymous writable mapping (inode 0, not one of the kernel's [vvar] and
// the like: those are never writable).
bool PrivateAnonymousWritable(const char* line, uintptr_t* from, uintptr_t* to) {
  char* end = nullptr;
  *from = static_cast<uintptr_t>(std::strtoull(line, &end, 16));
  if (*end != '-') return false;
  *to = static_cast<uintptr_t>(std::strtoull(end + 1, &end, 16));
  if (*end != ' ' || std::strncmp(end + 1, "rw", 2) != 0 || end[4] != 'p') return false;
  const char* field = end + 5;  // " offset dev inode"
  for (int i = 0; i < 3; ++i) {
    while (*field == ' ') ++field;
    if (i == 2) break;
    while (*field && *field != ' ' && *field != '\n') ++field;
  }
  return std::strtoull(field, nullptr, 10) == 0 && *to > *from;
}

// Whether this kernel knows MADV_POPULATE_WRITE (5.14+), tried on a page of our own (in the
// program's mappings EINVAL also means a run made inaccessible meanwhile). Only the kernel's
// refusal (EINVAL, or EPERM from a seccomp filter) is kept: a failure for want of memory is
// asked again next time.
bool PopulateWriteKnown() {
  static std::atomic<int> known{-1};  // -1 not asked yet, 0 no, 1 yes
  const int k = known.load(std::memory_order_relaxed);
  if (k >= 0) return k == 1;
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  const int why = errno;
  munmap(p, 4096);
  if (ok || why == EINVAL || why == EPERM) known.store(ok ? 1 : 0, std::memory_order_relaxed);
  return ok;
}

// MakeWritableAgain's work over the mappings; throws std::bad_alloc.
void RewriteMappings(CowChild::Rewritten* done) {
  constexpr size_t kWindow = size_t{16} << 20;  // looked at with one read of the page map
  constexpr size_t kStep = size_t{2} << 20;     // the address space's longest wait
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // A mapping larger than the machine's memory is a reservation kept sparse on purpose (a
  // sanitizer's shadow, terabytes): left alone, its page-by-page state is not worth reading.
  const uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * page;
  // Which pages to take: present in memory, mapped by this process alone and not
  // write-protected by a userfaultfd (/proc/self/pagemap bits 63, 56 and 57; 61, a file's page,
  // never), so that neither the shared zero page of memory only read nor a page another
  // process still shares becomes a copy, and no advice waits for a userfaultfd's monitor.
  // Without the page map (a restricted /proc) nothing is done: residency alone (mincore) would
  // take those pages too.
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) close(fd);
    }
  } map_file{open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)};
  const int pagemap = map_file.fd;
  if (pagemap < 0) {
    done->supported = false;
    return;
  }
  std::vector<uint64_t> entries(kWindow / page);
  std::vector<unsigned char> take(kWindow / page);
  auto look = [&](uintptr_t window, size_t pages) {
    const size_t want = pages * sizeof(uint64_t);
    if (pread(pagemap, entries.data(), want, static_cast<off_t>(window / page * 8)) !=
        static_cast<ssize_t>(want))
      return false;
    for (size_t i = 0; i < pages; ++i) {
      const uint64_t e = entries[i];
      take[i] = (e >> 63 & 1) && (e >> 56 & 1) && !(e >> 57 & 1) && !(e >> 61 & 1);
    }
    return true;
  };
  const std::string maps = ReadMaps();
  for (size_t at = 0; at < maps.size();) {
    size_t eol = maps.find('\n', at);
    if (eol == std::string::npos) eol = maps.size();
    uintptr_t from = 0, to = 0;
    const bool anonymous = PrivateAnonymousWritable(maps.c_str() + at, &from, &to);
    at = eol + 1;
    if (!anonymous || to - from > memory) continue;
    // Stepped by what is left, not past `to`: a mapping at the top of a 32-bit address space
    // (a compat process's stack) would wrap around.
    for (uintptr_t window = from, len = 0; window < to; window += len) {
      len = std::min<uintptr_t>(kWindow, to - window);
      const size_t pages = (len + page - 1) / page;
      // Unmapped since the maps were read: the next window may still be there.
      if (!look(window, pages)) continue;
      for (size_t i = 0; i < pages;) {
        if (!(take[i] & 1)) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < pages && j - i < kStep / page && (take[j] & 1)) ++j;
        const uintptr_t run = window + i * page;
        const size_t bytes = std::min<uintptr_t>((j - i) * page, to - run);
        // Failing, the run changed under us (made inaccessible, unmapped): left as it is.
        if (madvise(reinterpret_cast<void*>(run), bytes, MADV_POPULATE_WRITE) == 0)
          done->bytes += bytes;
        i = j;
      }
    }
  }
}

}  // namespace

CowChild::Rewritten CowChild::MakeWritableAgain() noexcept {
  Rewritten done;
  const auto start = std::chrono::steady_clock::now();
  done.supported = PopulateWriteKnown();
  if (done.supported) {
    try {
      RewriteMappings(&done);
    } catch (const std::exception&) {  // out of memory for the maps' text: the rest left
    }
  }
  done.us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  return done;
}

CowChild::~CowChild() {
  if (!child_ && pid_ > 0) Reap(true);
}

bool CowChild::Make(Clone clone, std::string* error) {
  const pid_t parent = static_cast<pid_t>(syscall(SYS_getpid));
  // kRaw: exit signal 0 (no SIGCHLD), no CLONE_* flag: a copy-on-write copy, like fork(2), of
  // the calling thread only, returning here in both processes on a copy of this stack.
  const pid_t pid =
      clone == Clone::kFork
          ? fork()
          : static_cast<pid_t>(syscall(SYS_clone, 0UL, nullptr, nullptr, nullptr, nullptr));
  if (pid == 0) {
    child_ = true;
    pid_ = -1;
    SetUpChild(parent);
    return true;
  }
  if (pid < 0) {
    *error = std::string(clone == Clone::kFork ? "fork: " : "clone: ") + std::strerror(errno);
    return false;
  }
  pid_ = pid;
  return true;
}

std::string CowChild::Reap(bool kill_first) {
  if (child_ || pid_ <= 0) return "";
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG | __WALL);
  if (r == 0 && kill_first) kill(pid_, SIGKILL);
  while (r == 0 || (r < 0 && errno == EINTR)) r = waitpid(pid_, &status, __WALL);
  pid_ = -1;
  return r < 0 ? std::string("waitpid: ") + std::strerror(errno) : Fate(status);
}

}  // namespace agent
}  // namespace xrpm
