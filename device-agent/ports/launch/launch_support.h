// What the runtime launchers (xrpm-mono, xrpm-dotnet) share: finding themselves and programs on
// the PATH, passing SIGINT/SIGTERM on to the program they started, and the start-up handshake
// with the agent inside it. A runtime runs a program without an agent it cannot load, so the
// launcher gives the agent a pipe's write end (an inherited descriptor named in the program's
// environment); the agent writes one line once it runs ("ok ADDR:PORT", or "error MESSAGE" before
// it ends the process with exit code 2), and the launcher waits for that line, bounded.
//
// Thread-safety: plain functions for a launcher's main thread; the signal forwarding keeps one
// process-wide child id (a sig_atomic_t) for its handler.
#pragma once

#include <sys/types.h>

#include <string>

namespace xrpm {
namespace launch {

// The directory of the running executable ("." when unknown).
std::string SelfDir();
// The first executable file `name` on $PATH (or /usr/bin:/bin; directories are passed over), ""
// if none; a name with a '/' is returned as it is when executable.
std::string FindOnPath(const std::string& name);
// A waitpid status as a shell shows it: the exit code, or 128+N after signal N.
int ExitCodeOf(int status);
// waitpid(pid, 0), retried on EINTR; the status.
int WaitFor(pid_t pid);

// Reads `fd` into *out (at most 4 KiB kept) until EOF, the time limit, or, with
// first_line_only, a newline. Returns true when it stopped at EOF (the writer closed its end).
bool ReadBounded(int fd, int timeout_ms, bool first_line_only, std::string* out);

// From now on SIGINT and SIGTERM sent to the launcher go to `child` (after fork, in the parent).
void InstallSignalForwarding();
void ForwardSignalsTo(pid_t child);

// The agent's handshake line on `fd` (the pipe's read end; the caller closed its write end).
struct Handshake {
  enum Outcome {
    kOk,           // "ok ADDR:PORT": the agent runs; the program goes on
    kAgentError,   // "error MESSAGE": the agent said why on stderr; the process was reaped
    kTimedOut,     // no line within the limit: the program was killed and reaped
    kEndedWithout  // the process ended without a line (ran without the agent), reaped
  };
  Outcome outcome = kEndedWithout;
  std::string line;   // what the agent wrote
  int exit_code = 0;  // the program's, when it was reaped (ExitCodeOf)
};
Handshake AwaitHandshake(pid_t child, int fd, int timeout_ms);

}  // namespace launch
}  // namespace xrpm
