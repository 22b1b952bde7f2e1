// ChildProcess: a program the monitor starts and owns (the local emulator): started with an
// argument vector (never through a shell), its stdout and stderr appended to a log file, watched
// without blocking, and stopped politely (SIGINT, then SIGTERM, then SIGKILL after grace
// periods). The destructor stops it, so no emulator outlives the monitor.
//
// Thread-safety: none; owned and used by one thread (the UI thread).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace xrpm::app {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess() { Stop(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts `program` (a path) with `args`; false with *error when it cannot be started.
  bool Start(const std::string& program, const std::vector<std::string>& args,
             const std::string& log_path, std::string* error);
  // Whether it still runs (reaps it when it has exited).
  bool Running();
  // After it exited: "exited with code 2", "killed by signal 9".
  const std::string& exit_text() const { return exit_text_; }
  // Stops it and waits for it; a no-op when not running.
  void Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(1500));
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }

 private:
  bool WaitExit(std::chrono::milliseconds timeout);
  void Reaped(int status);

  pid_t pid_ = -1;
  std::string exit_text_;
  std::string log_path_;
};

// Finds a program the monitor ships with: `configured` when not empty, else next to the running
// executable, else in the build tree (<exe dir>/../../<subdir>/<name>), else in PATH. Returns ""
// when not found.
std::string FindCompanionProgram(const std::string& name, const std::string& build_subdir,
                                 const std::string& configured = {});

// The last `max_bytes` of a log file, for showing why a child failed.
std::string TailOfFile(const std::string& path, size_t max_bytes = 2000);

}  // namespace xrpm::app
