// DotnetProcesses: the local .NET processes the monitor can attach its agent to ("Attach to a
// .NET process"), found by the diagnostics sockets their runtimes listen on
// (dotnet-diagnostic-PID-KEY-socket in the process's TMPDIR or /tmp; .NET Core 3.0 and later,
// unless diagnostics are off), with a name to show: the program's .dll from its command line
// (dotnet PROGRAM.dll), else the executable's name (an app host).
//
// The agent side of attaching (the diagnostics IPC, xrpm-dotnet --attach) is in
// device-agent/ports/dotnet; the monitor only lists candidates and runs that launcher.
//
// Thread-safety: plain functions (reading directories and /proc); call from any one thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace xrpm::app {

struct DotnetProcess {
  pid_t pid = 0;
  std::string name;    // "Graph.dll", "XnaBubbles.dll", "MyApp"
  std::string socket;  // the diagnostics socket's path
};

// The PID in a diagnostics socket's file name ("dotnet-diagnostic-1234-5678-socket" -> 1234),
// 0 when the name is not one.
pid_t DiagnosticSocketPid(const std::string& file_name);
// The directories to look in: $TMPDIR (when set) and /tmp, without duplicates.
std::vector<std::string> DefaultSocketDirs();
// The live processes with a diagnostics socket in `dirs`, by PID, one entry per PID (its newest
// socket), this process excluded.
std::vector<DotnetProcess> ListDotnetProcesses(const std::vector<std::string>& dirs);
// The name to show for `pid` (see above); "" when its command line cannot be read.
std::string DotnetProcessName(pid_t pid);

}  // namespace xrpm::app
