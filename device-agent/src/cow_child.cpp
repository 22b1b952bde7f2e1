// CowChild: a copy-on-write child made with a raw clone(2) or fork(2) (cow_child.h).
#include "xrpm/agent/cow_child.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

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

}  // namespace

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
