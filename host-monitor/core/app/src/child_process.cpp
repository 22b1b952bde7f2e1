#include "xrpm/app/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

extern char** environ;

namespace xrpm::app {
namespace fs = std::filesystem;

bool ChildProcess::Start(const std::string& program, const std::vector<std::string>& args,
                         const std::string& log_path, std::string* error) {
  Stop();
  exit_text_.clear();
  log_path_ = log_path;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group: a Ctrl+C in the monitor's terminal is the monitor's to handle.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *error = "cannot start " + program + ": " + std::strerror(rc);
    return false;
  }
  pid_ = pid;
  return true;
}

void ChildProcess::Reaped(int status) {
  pid_ = -1;
  if (WIFEXITED(status))
    exit_text_ = "exited with code " + std::to_string(WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    exit_text_ = "killed by signal " + std::to_string(WTERMSIG(status));
  else
    exit_text_ = "ended";
}

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    Reaped(status);
    return false;
  }
  return r == 0;
}

bool ChildProcess::WaitExit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a child's exit
  }
  return true;
}

void ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (!Running()) return;
  for (int sig : {SIGINT, SIGTERM}) {
    kill(pid_, sig);
    if (WaitExit(grace)) return;
  }
  kill(pid_, SIGKILL);
  int status = 0;
  if (waitpid(pid_, &status, 0) == pid_) Reaped(status);
}

std::string FindCompanionProgram(const std::string& name, const std::string& build_subdir,
                                 const std::string& configured) {
  std::error_code ec;
  auto executable = [&](const fs::path& p) {
    return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (!configured.empty()) return executable(configured) ? configured : std::string();
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = self.parent_path();
    if (executable(dir / name)) return (dir / name).string();
    const fs::path built = dir.parent_path().parent_path() / build_subdir / name;
    if (executable(built)) return fs::weakly_canonical(built, ec).string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (size_t b = 0; b <= p.size();) {
      size_t e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      const fs::path cand = fs::path(p.substr(b, e - b)) / name;
      if (e > b && executable(cand)) return cand.string();
      b = e + 1;
    }
  }
  return {};
}

std::string TailOfFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start =
      size > std::streamoff(max_bytes) ? size - std::streamoff(max_bytes) : 0;
  in.seekg(start);
  std::string s(static_cast<size_t>(size - start), '\0');
  in.read(s.data(), std::streamsize(s.size()));
  return s;
}

}  // namespace xrpm::app
