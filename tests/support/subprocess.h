// Child processes for the CLI tests: run `xrpm` to completion (with a timeout) capturing its
// output, or keep `xrpm-emulator` running in the background with its stderr in a LogSink so a
// test can wait for "listening on 127.0.0.1:PORT". No shell; argv is passed as is.
//
// Thread-safety: one test thread drives each object; reader threads are internal.
#pragma once

#include <sys/types.h>

#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace xrpm::testing {

struct RunResult {
  int exit_code = -1;  // -1: killed (timeout or signal)
  std::string out, err;
};

// Runs argv to completion; kills it after timeout_ms.
RunResult RunProcess(const std::vector<std::string>& argv, uint32_t timeout_ms = 60000);
// Runs a shell command line (`/bin/sh -c command`, for redirections such as 2>&1) the same way.
RunResult RunShell(const std::string& command, uint32_t timeout_ms = 60000);

class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& argv);
  ~BackgroundProcess();  // Stop() if still running
  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }  // for fault injection (kill -9 mid-capture)
  LogSink& log() { return log_; }
  // SIGTERM, then waits up to timeout_ms (SIGKILL after); returns the exit code (-1 if killed).
  int Stop(uint32_t timeout_ms = 10000);
  // Waits up to timeout_ms for the process to end by itself (SIGKILL after); its exit code
  // (-1 if killed). A process already reaped by Exited() returns that code.
  int Wait(uint32_t timeout_ms);
  // True once the process has ended (reaps it without waiting).
  bool Exited();

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
  bool reaped_ = false;
  int err_fd_ = -1;
  std::thread reader_;
  LogSink log_;
};

// Waits (bounded) for a device agent's "listening on 127.0.0.1:PORT" line in proc's log;
// returns "127.0.0.1:PORT", or "" if it did not come.
std::string WaitForAgentEndpoint(BackgroundProcess& proc, uint32_t timeout_ms);

}  // namespace xrpm::testing
