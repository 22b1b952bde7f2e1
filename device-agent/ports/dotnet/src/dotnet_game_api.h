// The native side of the in-game API on .NET (Xrpm.dll, csharp/Xrpm): Xrpm.Profiler.Marker(text),
// RequestCapture(label) and Scope(tag) reach the agent through four C functions the profiler
// library exports (dotnet_game_api_exports.cpp), which Xrpm.dll finds in the already-loaded library
// (among the process's loaded objects by its file name, dl_iterate_phdr; then NativeLibrary by its
// full path and TryGetExport) and calls through unmanaged function pointers:
//
//   int  xrpm_game_api_version(void)                         1 once the agent runs in this
//                                                            process (0 before, or never)
//   void xrpm_game_post(int kind, const char16_t*, int len)  kind 0 marker, 1 capture request
//   void xrpm_game_enter_scope(const char16_t*, int len)     pushes a tag on the thread's stack
//   void xrpm_game_leave_scope(void)                         pops it
//
// The text arrives as the managed string's UTF-16 (pinned by the caller for the call); the
// conversion, the per-thread scope tags and the marker path are the agent's, shared with the Mono
// port (xrpm/agent/game_api.h). The marker path takes a mutex (the sink's slot): Xrpm.dll calls
// xrpm_game_post with a normal GC transition; the scope calls touch the calling thread's own state
// only (no lock; an allocation on a thread's first scope) and may be called without one.
// Publication: the profiler publishes the port's GameEvents once its agent listens (start-up,
// before any managed code, or an attach); never withdrawn (the port lives until the process ends).
//
// CurrentScopeTag: the calling thread's innermost open tag (nullptr when none), for the
// allocation samples of the thread that allocates.
//
// Thread-safety: all of it from any thread; scope state is per thread.
#pragma once

#include <cstdint>

#include "xrpm/agent/game_api.h"

namespace xrpm {
namespace dotnet {

// Makes `events` the target of the exported calls (once, after the agent started).
void PublishGameEvents(agent::GameEvents* events);

int32_t GameApiVersion();
void GameApiPost(int32_t kind, const char16_t* text, int32_t length);
void GameApiEnterScope(const char16_t* tag, int32_t length);
void GameApiLeaveScope();

// The calling thread's open Xrpm.Profiler.Scope tags, and the innermost one's text.
const agent::ScopeTagStack& ThreadScopes();
const char* CurrentScopeTag();

}  // namespace dotnet
}  // namespace xrpm
