// CowChild: a copy-on-write child of the calling process, made with the world stopped, that
// goes on from the point of the call with one thread (a copy of the caller: its stack, its
// TLS) and a snapshot of the process's memory, while the parent lets the game run. The heap
// walks that leave the game's pause use it: SnapshotWalk (snapshot_walk.h: a walk run in the
// child, replayed by the parent) and the .NET port, whose child goes on with the runtime's own
// heap report (device-agent/ports/dotnet/src/record_child.h).
//
// How the child is made (CowChild::Clone):
//  - kRaw: a raw syscall(SYS_clone) with exit signal 0 and no other flag: a fork without
//    glibc's fork(), which would take every malloc arena lock and run the atfork handlers. For
//    a runtime whose stopped threads may be suspended anywhere (one may hold an arena lock, and
//    fork() would hang the game for good). The child may use only the calling thread's own
//    malloc arena. It sends no SIGCHLD, so a runtime's waitpid(-1) of its own children never
//    sees it.
//  - kFork: glibc's fork(), for a runtime whose threads stop only at safe points (the
//    emulator's game thread parks at its frame boundary): malloc is whole in the child.
// The child, before Make returns 0 in it: PR_SET_PDEATHSIG SIGKILL (it dies with the calling
// thread), exit if the parent is already gone, default dispositions for the crash signals (the
// runtime's handlers are the parent's business), SIGPIPE ignored (a parent that stopped reading
// makes the writes fail). It must end with _exit (ChildExit's codes), never return into code
// that waits for a thread it does not have.
//
// Reap waits for the child with waitpid(__WALL) (a child with exit signal 0 is found too) and
// describes its fate; the destructor kills and reaps a child nobody reaped.
//
// After the child: the clone write-protected every private page the two shared, and they stay
// so in the parent once the child is gone: the parent's first write to each takes a fault then
// (the kernel finds the page its own again and makes it writable). The next full collection
// writes to every page of the heap: on the paravirtualised machines we measure on, 14,000 such
// faults made a 90 ms collection take 470-570 ms, the next capture's pause or the game's.
// MakeWritableAgain takes those faults ahead, in one madvise(MADV_POPULATE_WRITE) per run of
// pages (Linux 5.14; without it, nothing is done), 2 MiB at a time so that the runtime's own
// mmap/mprotect never waits long for the address space. It reads and writes no byte of the
// program's memory, only its page tables and the pages' state: the pages it passes over count
// as written and recently used, so a page the runtime freed lazily (MADV_FREE) and the kernel
// has not taken yet is an ordinary page again, swapped rather than dropped under memory
// pressure until the runtime frees it again. It takes only pages of private anonymous writable
// mappings that are in memory, this process's alone and not under a userfaultfd
// (/proc/self/pagemap; without it, nothing is done), so it brings nothing new into memory and
// copies no page (the zero page that memory only read maps, a page another process shares,
// such as a child's still alive); a page the runtime gives back between the look and the
// advice comes back zero-filled, as the runtime's next touch would have brought it.
//
// Complexity: Make copies the page tables, O(resident memory / page size), in the caller; the
// pages either side writes afterwards are copied once each while the child lives.
// MakeWritableAgain is O(mappings + mapped memory / page size); it holds the maps' text and
// 36 KiB of page-map scratch while it runs, and throws nothing (out of memory, it does less).
//
// Thread-safety: MakeWritableAgain on any thread, the program running on. Make on the thread
// the child is to copy; Reap and the destructor on one thread (any) after Make returned.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm {
namespace agent {

class CowChild {
 public:
  enum class Clone { kRaw, kFork };  // the header comment
  // The child's exit codes that Reap explains; 0 is success.
  enum ChildExit : int {
    kExitWriteFailed = 2,  // its pipe to the parent failed
    kExitThrew = 3,        // out of memory
    kExitOrphan = 4,       // the parent was gone before it started
  };

  CowChild() = default;
  ~CowChild();
  CowChild(const CowChild&) = delete;
  CowChild& operator=(const CowChild&) = delete;

  // Makes the child: true in both processes (in the child, with child() true, set up as the
  // header comment says); false in the parent with *error ("clone: ...") when none was made.
  bool Make(Clone clone, std::string* error);
  bool child() const { return child_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // In the parent: waits for the child (killing it first when asked and still alive) and
  // returns its fate: "" when it exited with 0, else a sentence ("the snapshot process was
  // killed by signal 9 (Killed)").
  std::string Reap(bool kill_first);

  // In the parent, after Reap (the pages a child still alive shares are left as they are):
  // the header comment's "After the child". What it did, for the log.
  struct Rewritten {
    size_t bytes = 0;  // bytes taken (already writable ones count too)
    int64_t us = 0;
    bool supported = true;  // false: no MADV_POPULATE_WRITE, or no /proc/self/pagemap
  };
  static Rewritten MakeWritableAgain() noexcept;

 private:
  pid_t pid_ = -1;
  bool child_ = false;
};

}  // namespace agent
}  // namespace xrpm
