// What xrpm-dotnet and the CoreCLR profiler library agree on: the profiler's CLSID, the
// library's file name, and the environment variables that carry the agent's options, the token
// and the launcher's handshake descriptor into the program.
//
//   CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER={CLSID}, CORECLR_PROFILER_PATH=.../lib
//                          make CoreCLR load the library at start-up (the runtime's own variables)
//   XRPM_DOTNET_OPTIONS    the agent's options in the Mono module's syntax
//                          ("xrpm:port=N,listen=ADDR:PORT,quiet,announce,allocations,
//                          sample_bytes=N"; profiler_options.h of the Mono port, which parses
//                          it; allocations: dotnet_allocations.h); absent: the defaults (port
//                          4510)
//   XRPM_DOTNET_TOKEN      the token a host must present (not on a command line)
//   XRPM_DOTNET_NO_FRAME   "1": no frame method hook (xrpm-dotnet --no-frame; frame_hook.h)
//   DOTNET_gcConcurrent=0  set by the launcher unless the environment already has it: without
//                          background collections the runtime lets the profiler ask for its GC
//                          events during a capture only (dotnet_port.h, the event modes)
//   XRPM_DOTNET_GC_SET     "1" when the launcher set DOTNET_gcConcurrent (the library then
//                          removes it again, so child processes get background GC back)
//   XRPM_DOTNET_STATUS_FD  a descriptor the library writes one line to once it has started the
//                          agent ("ok ADDR:PORT" or "error MESSAGE"): CoreCLR runs a program
//                          without a profiler it cannot load, the launcher must notice
// The library removes all of them from the process's environment once read, so the program's
// own child processes (a build's compiler servers, say) start without the agent.
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
constexpr const char* kNoFrameEnv = "XRPM_DOTNET_NO_FRAME";
constexpr const char* kStatusFdEnv = "XRPM_DOTNET_STATUS_FD";
constexpr const char* kGcConcurrentEnv = "DOTNET_gcConcurrent";
constexpr const char* kGcSetEnv = "XRPM_DOTNET_GC_SET";

// The runtime's variables (and their DOTNET_ spellings), removed once the library is loaded.
constexpr const char* kRuntimeProfilerEnv[] = {
    "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER",        "CORECLR_PROFILER_PATH",
    "CORECLR_PROFILER_PATH_64", "DOTNET_ENABLE_PROFILING", "DOTNET_PROFILER",
    "DOTNET_PROFILER_PATH",     "DOTNET_PROFILER_PATH_64"};

}  // namespace dotnet
}  // namespace xrpm
