// The runtime launchers' shared helpers (launch_support.h).
#include "launch_support.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <vector>

namespace xrpm {
namespace launch {
namespace {

volatile sig_atomic_t g_child = 0;

void Forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// A file that may be run: not a directory of that name (build/release/bin/dotnet/ holds the C#
// programs, and that directory is on the PATH of whoever runs xrpm-dotnet from there).
bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string SelfDir() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  std::string path(buf.data(), static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string FindOnPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return IsExecutable(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string all = path ? path : "/usr/bin:/bin";
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t colon = all.find(':', pos);
    if (colon == std::string::npos) colon = all.size();
    std::string dir = all.substr(pos, colon - pos);
    if (dir.empty()) dir = ".";
    if (IsExecutable(dir + "/" + name)) return dir + "/" + name;
    pos = colon + 1;
  }
  return "";
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

int WaitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

bool ReadBounded(int fd, int timeout_ms, bool first_line_only, std::string* out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!(first_line_only && out->find('\n') != std::string::npos)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left));
    if (r <= 0) continue;  // EINTR, or the time is up (checked above)
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (out->size() < 4096) out->append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return true;
    }
  }
  return false;
}

void InstallSignalForwarding() {
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void ForwardSignalsTo(pid_t child) {
  g_child = child;
}

Handshake AwaitHandshake(pid_t child, int fd, int timeout_ms) {
  Handshake h;
  const bool eof = ReadBounded(fd, timeout_ms, /*first_line_only=*/true, &h.line);
  if (h.line.rfind("ok ", 0) == 0) {
    h.outcome = Handshake::kOk;
    return h;
  }
  if (h.line.rfind("error ", 0) == 0) {
    h.outcome = Handshake::kAgentError;
  } else if (!eof) {
    h.outcome = Handshake::kTimedOut;
    kill(child, SIGKILL);
  } else {
    h.outcome = Handshake::kEndedWithout;
  }
  h.exit_code = ExitCodeOf(WaitFor(child));
  return h;
}

}  // namespace launch
}  // namespace xrpm
