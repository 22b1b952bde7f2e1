// SnapshotWalk: the heap walk in a copy-on-write child (a raw clone(2) or fork(2)), replayed by
// the parent (snapshot_walk.h).
#include "xrpm/agent/snapshot_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <exception>

namespace xrpm {
namespace agent {
namespace {

constexpr int kPipeBytes = 1 << 20;

// In the child (cow_child.h): only system calls and the walk.
[[noreturn]] void ChildMain(int read_fd, WalkRecorder& rec, void (*walk)(void*, HeapInfoCallback&),
                            void* ctx, bool stop_for_test) {
  close(read_fd);
  // glibc's raise() would signal the parent's thread (its cached thread id, after a raw clone).
  if (stop_for_test) syscall(SYS_kill, static_cast<pid_t>(syscall(SYS_getpid)), SIGSTOP);
  try {
    walk(ctx, rec);
  } catch (const std::exception&) {  // bad_alloc: no end record, the parent reports the exit
    _exit(CowChild::kExitThrew);
  }
  _exit(rec.Flush() ? 0 : CowChild::kExitWriteFailed);
}

}  // namespace

SnapshotWalk::~SnapshotWalk() {
  child_.Reap(true);
  if (fd_ >= 0) close(fd_);
}

bool SnapshotWalk::Start(WalkDetail detail, void (*walk)(void* ctx, HeapInfoCallback& rec),
                         void* ctx, bool stop_for_test, std::string* error, Clone clone) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);  // best effort: fewer wake-ups of the replayer
  bool made = false;
  {
    // Allocated before the clone: the child only writes.
    WalkRecorder rec(fds[1], detail);
    made = child_.Make(clone, error);
    if (made && child_.child()) ChildMain(fds[0], rec, walk, ctx, stop_for_test);
  }
  close(fds[1]);
  if (!made) {
    close(fds[0]);
    return false;
  }
  fd_ = fds[0];
  return true;
}

ReplayResult SnapshotWalk::Replay(HeapInfoCallback& sink) {
  FdByteSource source(fd_, kIdleTimeoutMs, [&sink] { return sink.Cancelled(); });
  WalkReplayer replayer;
  // A broken stream: the child crashed, was killed, hung (killed now) or the sink cancelled.
  replayer.set_explain([this] { return child_.Reap(true); });
  ReplayResult r = replayer.Replay(source, sink);
  close(fd_);  // a child still writing (a cancel) fails its next write
  fd_ = -1;
  if (child_.running()) {
    const std::string fate = child_.Reap(!r.ended);
    if (r.ended && !fate.empty()) r.error = fate;  // a whole stream, then a crash: report it
  }
  // The child gone, the pages it shared are still write-protected here (cow_child.h): the
  // faults taken now, not by the runtime's next collection.
  rewritten_ = CowChild::MakeWritableAgain();
  return r;
}

}  // namespace agent
}  // namespace xrpm
