// The agent's side of the launchers' start-up handshake (launch_support.h has the launcher's),
// shared by the runtime agent libraries (the Mono profiler module, the CoreCLR profiler): one
// status line to the launcher's pipe, a start-up failure that ends the process before the program
// runs, and the program's name from the process's command line.
//
// Thread-safety: for the runtime's start-up thread, before the agent starts; the status
// descriptor is written and closed once (the environment variable naming it is removed then).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace xrpm {
namespace launch {

// Writes `line` and a newline to the descriptor named by the environment variable `fd_env` (the
// pipe the launcher passed, "ok ADDR:PORT" or "error MESSAGE"), closes it and removes the variable,
// so that programs the program starts do not inherit it. Nothing when the variable is unset.
void WriteAgentStatus(const char* fd_env, const std::string& line);

// Says why on stderr ("xrpm-agent: WHY"), tells the launcher ("error WHY") and ends the process
// with exit code 2: a program never runs without the agent it was started with.
[[noreturn]] void FailAgentStartup(const char* fd_env, const std::string& why);

// The process's arguments from /proc/self/cmdline (at most its first 1 MiB); empty if unreadable.
std::vector<std::string> ProcessArguments();
// The part of `path` after its last '/'.
std::string BaseName(const std::string& path);
// The file name of the first argument that is not an option and ends in one of `extensions`
// (compared without case, e.g. ".exe"); "" when there is none.
std::string FirstFileWithExtension(const std::vector<std::string>& args,
                                   std::initializer_list<const char*> extensions);

}  // namespace launch
}  // namespace xrpm
