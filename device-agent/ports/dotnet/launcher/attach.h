// Attach: `xrpm-dotnet --attach PID`, loading the profiler library (and with it the device agent)
// into a .NET process that already runs, through the runtime's diagnostics IPC
// (diagnostics_ipc.h).
//
// The launcher makes a private directory (0700) with a FIFO in it, opens the FIFO for reading,
// and sends AttachProfiler with the agent's options, the token and the FIFO's path as client
// data. The runtime answers once the profiler's InitializeForAttach returned, by which time the
// profiler wrote its status line into the FIFO: "ok ADDR:PORT" (the launcher then prints the
// agent's own line, "xrpm-agent: listening on ADDR:PORT", and exits 0: the agent lives on in the
// process until it ends) or "error MESSAGE". The agent's later log lines go to the process's own
// stderr. Nothing here stops, signals or ends the process.
//
// Exit codes: 0 attached; 2 the process is not there, not ours to attach to, not .NET (no
// diagnostics socket), already has a profiler, or the agent refused (bad options, port in use:
// the process runs on without it); 1 the runtime did not answer, refused the attach otherwise, or
// the library is missing.
//
// Thread-safety: for the launcher's main thread.
#pragma once

#include <sys/types.h>

#include <string>

namespace xrpm {
namespace dotnet {

struct AttachOptions {
  pid_t pid = 0;
  std::string agent_options;  // "xrpm:listen=...,..." (profiler_options.h)
  std::string token;
  std::string library;     // the profiler library's absolute path
  int timeout_ms = 30000;  // for the runtime's answer
};

// Attaches; prints what happened on stderr ("xrpm-dotnet: ..." or the agent's listening line)
// and returns the exit code.
int Attach(const AttachOptions& options);

}  // namespace dotnet
}  // namespace xrpm
