// What xrpm-dotnet and the CoreCLR profiler library agree on: the profiler's CLSID, the
// library's file name, and the environment variables that carry the agent's options, the token
// and the launcher's handshake descriptor into the program.
//
//   CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER={CLSID}, CORECLR_PROFILER_PATH=.../lib
//                          make CoreCLR load the library at start-up (the runtime's own variables)
//   XRPM_DOTNET_OPTIONS    the agent's options in the Mono module's syntax
//                          ("xrpm:port=N,listen=ADDR:PORT,quiet,announce,allocations,
//                          sample_bytes=N,no_frame"; profiler_options.h of the Mono port, which
//                          parses it; allocations: dotnet_allocations.h); absent: the defaults
//                          (port 4510)
//   XRPM_DOTNET_TOKEN      the token a host must present (not on a command line)
//   DOTNET_gcConcurrent=0  set by the launcher unless the environment already has it: without
//                          background collections the runtime lets the profiler ask for its GC
//                          events during a capture only (dotnet_port.h, the event modes)
//   XRPM_DOTNET_GC_SET     "1" when the launcher set DOTNET_gcConcurrent (the library then
//                          removes it again, so child processes get background GC back)
//   XRPM_DOTNET_STATUS_FD  a descriptor the library writes one line to once it has started the
//                          agent ("ok ADDR:PORT" or "error MESSAGE"): CoreCLR runs a program
//                          without a profiler it cannot load, the launcher must notice
//   XRPM_DOTNET_PID        the process id of the program the launcher started: the library
//                          starts the agent there only and declines (Initialize answers
//                          CORPROF_E_PROFILER_CANCEL_ACTIVATION) in any other process
// The library removes all of them from the C environment once read, but that does not reach
// the program's own .NET child processes (MSBuild's compiler, `dotnet build`'s nodes): CoreCLR
// keeps its own copy of the environment, taken before the profiler loads, and managed code
// (Process.Start) passes that copy on. So a child loads the library too, finds another process
// id in XRPM_DOTNET_PID and declines at once: it runs without a profiler and no second agent
// competes for the port. What a child still inherits: DOTNET_gcConcurrent=0 when the launcher
// set it (docs/DOTNET.md, "Programs that start other .NET processes").
//
// Thread-safety: constants.
#pragma once

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

constexpr const char* kProfilerClsidText = "{0239CD0B-4536-4B30-B1D8-D529C418EEC6}";
constexpr cor::GUID kProfilerClsid = {
    0x0239CD0B, 0x4536, 0x4B30, {0xB1, 0xD8, 0xD5, 0x29, 0xC4, 0x18, 0xEE, 0xC6}};
constexpr const char* kProfilerLibrary = "libxrpm-dotnet-profiler.so";

constexpr const char* kOptionsEnv = "XRPM_DOTNET_OPTIONS";
constexpr const char* kTokenEnv = "XRPM_DOTNET_TOKEN";
constexpr const char* kStatusFdEnv = "XRPM_DOTNET_STATUS_FD";
constexpr const char* kGcConcurrentEnv = "DOTNET_gcConcurrent";
constexpr const char* kGcSetEnv = "XRPM_DOTNET_GC_SET";
constexpr const char* kPidEnv = "XRPM_DOTNET_PID";

// The runtime's variables (and their DOTNET_ spellings), removed once the library is loaded.
constexpr const char* kRuntimeProfilerEnv[] = {
    "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER",        "CORECLR_PROFILER_PATH",
    "CORECLR_PROFILER_PATH_64", "DOTNET_ENABLE_PROFILING", "DOTNET_PROFILER",
    "DOTNET_PROFILER_PATH",     "DOTNET_PROFILER_PATH_64"};

}  // namespace dotnet
}  // namespace xrpm
