// The native side of the in-game API (Xrpm.dll, device-agent/ports/mono/csharp/Xrpm):
// Xrpm.Profiler.Marker(text), RequestCapture(label) and Scope(tag) reach the agent
// through internal calls that this module registers with Mono (mono_add_internal_call) once the
// runtime is initialised; when it loads it sets XRPM_AGENT_PID to the process's id. Without the
// module neither happens: Xrpm.dll's static constructor finds no variable for this process (a
// child inherits it with its parent's id) and never calls into Native, so Mono never looks the
// calls up; every API call becomes a test of a static readonly field, which the JIT folds away.
//
// Internal calls (Xrpm.Profiler/Native::..., the nested class of Profiler.cs):
//   bool AgentAttached()                 true (only reachable when the module registered it)
//   void PostMarker(int kind, string)    kind 0 marker, 1 capture request -> GameEvents::Post
//   void EnterScope(string tag)          pushes the tag on the calling thread's scope tags
//   void LeaveScope()                    pops it
// The text conversion, the per-thread scope tags and the marker path (agent::GameEvents, whose
// mutex no Mono callback holds, so a thread suspended while holding it delays at most the
// agent's SetSink, never a capture) are the agent's, shared with the .NET port
// (xrpm/agent/game_api.h).
//
// Thread-safety: the internal calls from any managed thread. Each thread's scope stack
// (ThreadScopes) is its own (thread_local).
#pragma once

#include <cstdint>

#include "xrpm/agent/game_api.h"

namespace xrpm {
namespace mono {

class MonoFrames;

// The frame in progress for agent::GameEvents (ctx: the port's MonoFrames).
uint64_t MonoFrameInProgress(const void* frames);

// The calling thread's open Xrpm.Profiler.Scope tags (the innermost labels its allocation
// samples).
const agent::ScopeTagStack& ThreadScopes();

// Sets XRPM_AGENT_PID: call in the module's init, before any thread starts (setenv is not safe
// against a concurrent getenv).
void AnnounceGameApi();
// Registers the internal calls; call once the runtime is initialised (runtime_initialized),
// before the program's managed code runs.
void RegisterGameApi(agent::GameEvents* events);

}  // namespace mono
}  // namespace xrpm
