// Attach: the status FIFO, the AttachProfiler request and what its answer means.
#include "attach.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "diagnostics_ipc.h"
#include "launch_support.h"
#include "profiler_env.h"

namespace xrpm {
namespace dotnet {
namespace {

constexpr int kAttachTimeoutMs = 10000;  // the runtime's wait for a background collection
constexpr int kStatusReadMs = 2000;      // the line is there when the answer comes

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "xrpm-dotnet: %s\n", message.c_str());
  return code;
}

// "PID (NAME)" from /proc/PID/comm.
std::string ProcessLabel(pid_t pid) {
  std::string label = std::to_string(pid);
  const std::string path = "/proc/" + label + "/comm";
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char name[64] = {};
    if (std::fgets(name, sizeof name, f)) {
      std::string n(name);
      while (!n.empty() && (n.back() == '\n' || n.back() == '\r')) n.pop_back();
      if (!n.empty()) label += " (" + n + ")";
    }
    std::fclose(f);
  }
  return label;
}

// A private directory with the status FIFO; removed when done.
struct StatusFifo {
  std::string dir, path;
  int fd = -1;
  bool Make(std::string* error) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/xrpm-attach-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) {
      *error = "cannot make a directory for the attach's status (" + pattern +
               "): " + std::strerror(errno);
      return false;
    }
    dir = buf.data();
    path = dir + "/status";
    if (mkfifo(path.c_str(), 0600) != 0) {
      *error = "mkfifo " + path + ": " + std::strerror(errno);
      return false;
    }
    // Open for reading without waiting for a writer; the profiler opens it for writing.
    fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      *error = "open " + path + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }
  ~StatusFifo() {
    if (fd >= 0) close(fd);
    if (!path.empty()) unlink(path.c_str());
    if (!dir.empty()) rmdir(dir.c_str());
  }
};

}  // namespace

int Attach(const AttachOptions& o) {
  if (o.pid <= 0) return Fail(2, "--attach " + std::to_string(o.pid) + ": expected a process id");
  if (kill(o.pid, 0) != 0) {
    if (errno == ESRCH) return Fail(2, "no process " + std::to_string(o.pid) + " to attach to");
    if (errno == EPERM)
      return Fail(
          2, "process " + ProcessLabel(o.pid) + " belongs to another user: attach as that user");
  }
  const std::string label = ProcessLabel(o.pid);
  const std::vector<std::string> sockets = ipc::FindSockets(o.pid, ipc::SocketDirsOf(o.pid));
  if (sockets.empty())
    return Fail(2, "process " + label + " has no .NET diagnostics socket (dotnet-diagnostic-" +
                       std::to_string(o.pid) +
                       "-*-socket in its TMPDIR or /tmp): it is not a .NET process, its runtime "
                       "is older than .NET Core 3.0, or it runs with DOTNET_EnableDiagnostics=0");
  if (access(o.library.c_str(), R_OK) != 0)
    return Fail(1, "the profiler library " + o.library +
                       " is missing (build it: scripts/build.sh release xrpm-dotnet-profiler)");
  if (o.token.find('\n') != std::string::npos) return Fail(2, "--token: no newlines");

  StatusFifo fifo;
  std::string error;
  if (!fifo.Make(&error)) return Fail(1, error);
  ipc::AttachRequest request;
  request.timeout_ms = kAttachTimeoutMs;
  std::memcpy(request.clsid, &kProfilerClsid, sizeof request.clsid);
  request.library_path = o.library;
  request.client_data = ipc::FormatClientData({o.agent_options, o.token, fifo.path});

  ipc::Response response;
  bool answered = false;
  std::string problems;
  // Newest socket first; an older one may be left by an earlier process with this PID.
  for (const std::string& socket : sockets) {
    if (ipc::AttachProfiler(socket, request, o.timeout_ms, &response, &error)) {
      answered = true;
      break;
    }
    problems += (problems.empty() ? "" : "; ") + error;
  }
  if (!answered) {
    if (kill(o.pid, 0) != 0 && errno == ESRCH)
      return Fail(2, "process " + label + " ended during the attach");
    return Fail(1, "attaching to process " + label + " failed: " + problems);
  }
  // The profiler wrote its line when it ran: it answered OK, or refused (NOT_ATTACHABLE).
  std::string line;
  if (response.ok || response.hresult == ipc::kProfilerNotAttachable)
    launch::ReadBounded(fifo.fd, kStatusReadMs, true, &line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (response.ok && line.compare(0, 3, "ok ") == 0) {
    std::fprintf(stderr, "xrpm-agent: listening on %s (in process %s, attached)\n",
                 line.substr(3).c_str(), label.c_str());
    return 0;
  }
  if (line.compare(0, 6, "error ") == 0)
    return Fail(2, "the agent did not start in process " + label + ": " + line.substr(6) +
                       " (the process runs on without it)");
  if (!response.ok) {
    const int code = response.hresult == ipc::kProfilerAlreadyActive ? 2 : 1;
    return Fail(code, "cannot attach to process " + label + ": " +
                          ipc::DescribeAttachResult(response.hresult));
  }
  return Fail(1, "process " + label +
                     " accepted the profiler but its agent sent no status (an older "
                     "libxrpm-dotnet-profiler.so already loaded there?)");
}

}  // namespace dotnet
}  // namespace xrpm
