#include "subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>

extern char** environ;

namespace xrpm::testing {
namespace {

pid_t Spawn(const std::vector<std::string>& argv, int out_fd, int err_fd, int close1, int close2) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  if (err_fd >= 0) posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  if (close1 >= 0) posix_spawn_file_actions_addclose(&fa, close1);
  if (close2 >= 0) posix_spawn_file_actions_addclose(&fa, close2);
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

std::string ReadAll(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  close(fd);
  return s;
}

// Waits for pid with a timeout (a thread blocks in waitpid); SIGKILL on timeout.
int WaitFor(pid_t pid, uint32_t timeout_ms) {
  auto status = std::async(std::launch::async, [pid] {
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
  });
  if (status.wait_for(std::chrono::milliseconds(timeout_ms)) != std::future_status::ready)
    kill(pid, SIGKILL);
  const int st = status.get();
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

RunResult RunProcess(const std::vector<std::string>& argv, uint32_t timeout_ms) {
  int out[2], err[2];
  RunResult r;
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  const pid_t pid = Spawn(argv, out[1], err[1], out[0], err[0]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    r.err = "cannot start " + argv[0];
    return r;
  }
  std::thread to([&] { r.out = ReadAll(out[0]); });
  std::thread te([&] { r.err = ReadAll(err[0]); });
  r.exit_code = WaitFor(pid, timeout_ms);
  to.join();
  te.join();
  return r;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv) {
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) return;
  pid_ = Spawn(argv, -1, err[1], err[0], -1);
  close(err[1]);
  err_fd_ = err[0];
  auto sink = log_.fn();
  reader_ = std::thread([this, sink] {
    std::string pending;
    char buf[1024];
    ssize_t n;
    while ((n = read(err_fd_, buf, sizeof buf)) > 0) {
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        sink(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
    }
    if (!pending.empty()) sink(pending);
  });
}

int BackgroundProcess::Stop(uint32_t timeout_ms) {
  int code = -1;
  if (reaped_) {
    code = exit_code_;
    pid_ = -1;
  }
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    code = WaitFor(pid_, timeout_ms);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();  // the pipe closes with the process
  if (err_fd_ >= 0) close(err_fd_);
  err_fd_ = -1;
  return code;
}

bool BackgroundProcess::Exited() {
  if (reaped_ || pid_ <= 0) return true;
  int st = 0;
  if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
  reaped_ = true;
  exit_code_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return true;
}

int BackgroundProcess::Wait(uint32_t timeout_ms) {
  if (!reaped_ && pid_ > 0) {
    exit_code_ = WaitFor(pid_, timeout_ms);
    reaped_ = true;
  }
  pid_ = -1;
  if (reader_.joinable()) reader_.join();
  if (err_fd_ >= 0) close(err_fd_);
  err_fd_ = -1;
  return exit_code_;
}

BackgroundProcess::~BackgroundProcess() {
  Stop();
}

RunResult RunShell(const std::string& command, uint32_t timeout_ms) {
  return RunProcess({"/bin/sh", "-c", command}, timeout_ms);
}

std::string WaitForAgentEndpoint(BackgroundProcess& proc, uint32_t timeout_ms) {
  const std::string line = proc.log().WaitFor("listening on 127.0.0.1:", timeout_ms);
  if (line.empty()) return "";
  const std::string from = line.substr(line.find("127.0.0.1:"));
  return from.substr(0, from.find(' '));
}

}  // namespace xrpm::testing
