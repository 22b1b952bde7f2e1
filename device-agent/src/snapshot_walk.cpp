// SnapshotWalk: the heap walk in a copy-on-write child (a raw clone(2) or fork(2)), replayed by
// the parent (snapshot_walk.h).
#include "xrpm/agent/snapshot_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <exception>

namespace xrpm {
namespace agent {
namespace {

constexpr int kPipeBytes = 1 << 20;
// Child exit codes.
constexpr int kExitWriteFailed = 2;
constexpr int kExitWalkThrew = 3;
constexpr int kExitOrphan = 4;

// In the child: one thread, a copy of the caller's memory. Only system calls and the walk.
[[noreturn]] void ChildMain(pid_t parent, int read_fd, WalkRecorder& rec,
                            void (*walk)(void*, HeapInfoCallback&), void* ctx, bool stop_for_test) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (static_cast<pid_t>(syscall(SYS_getppid)) != parent) _exit(kExitOrphan);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &dfl, nullptr);
  struct sigaction ign = dfl;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, nullptr);
  close(read_fd);
  // glibc's raise() would signal the parent's thread (its cached thread id, after a raw clone).
  if (stop_for_test) syscall(SYS_kill, static_cast<pid_t>(syscall(SYS_getpid)), SIGSTOP);
  try {
    walk(ctx, rec);
  } catch (const std::exception&) {  // bad_alloc: no end record, the parent reports the exit
    _exit(kExitWalkThrew);
  }
  _exit(rec.Flush() ? 0 : kExitWriteFailed);
}

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
    case kExitWriteFailed:
      return "the snapshot process could not write its walk";
    case kExitWalkThrew:
      return "the snapshot process ran out of memory walking";
    case kExitOrphan:
      return "the snapshot process lost its parent";
    default:
      return "the snapshot process exited with " + std::to_string(WEXITSTATUS(status));
  }
}

}  // namespace

SnapshotWalk::~SnapshotWalk() {
  if (pid_ > 0) Reap(true);
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
  const pid_t parent = static_cast<pid_t>(syscall(SYS_getpid));
  pid_t pid = -1;
  {
    // Allocated before the clone: the child only writes.
    WalkRecorder rec(fds[1], detail);
    // kRaw: exit signal 0 (no SIGCHLD), no CLONE_* flag: a copy-on-write copy, like fork(2),
    // of the calling thread only, returning here in both processes on a copy of this stack.
    pid = clone == Clone::kFork
              ? fork()
              : static_cast<pid_t>(syscall(SYS_clone, 0UL, nullptr, nullptr, nullptr, nullptr));
    if (pid == 0) ChildMain(parent, fds[0], rec, walk, ctx, stop_for_test);
  }
  const int clone_errno = errno;
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    *error = std::string(clone == Clone::kFork ? "fork: " : "clone: ") + std::strerror(clone_errno);
    return false;
  }
  pid_ = pid;
  fd_ = fds[0];
  return true;
}

std::string SnapshotWalk::Reap(bool kill_first) {
  if (pid_ <= 0) return "";
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG | __WALL);
  if (r == 0 && kill_first) kill(pid_, SIGKILL);
  while (r == 0 || (r < 0 && errno == EINTR)) r = waitpid(pid_, &status, __WALL);
  pid_ = -1;
  return r < 0 ? std::string("waitpid: ") + std::strerror(errno) : Fate(status);
}

ReplayResult SnapshotWalk::Replay(HeapInfoCallback& sink) {
  FdByteSource source(fd_, kIdleTimeoutMs, [&sink] { return sink.Cancelled(); });
  WalkReplayer replayer;
  // A broken stream: the child crashed, was killed, hung (killed now) or the sink cancelled.
  replayer.set_explain([this] { return Reap(true); });
  ReplayResult r = replayer.Replay(source, sink);
  close(fd_);  // a child still writing (a cancel) fails its next write
  fd_ = -1;
  if (pid_ > 0) {
    const std::string fate = Reap(!r.ended);
    if (r.ended && !fate.empty()) r.error = fate;  // a whole stream, then a crash: report it
  }
  return r;
}

}  // namespace agent
}  // namespace xrpm
