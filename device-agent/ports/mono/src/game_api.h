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
//   void EnterScope(string tag)          pushes the tag on the calling thread's ScopeTagStack
//   void LeaveScope()                    pops it
// A string's text is converted from UTF-16 to UTF-8 into a fixed buffer (cut at
// kMaxMarkerTextBytes, never refused); nothing allocates but a thread's scope state, once.
//
// GameEvents: the marker path to the agent's queue (RuntimePort::SetGameEventSink): one relaxed
// load without an agent, else the device clock, the frame in progress and the sink's call under
// a mutex (held only to exclude a sink change; never held by a Mono callback, so a thread
// suspended while holding it delays at most the agent's SetSink, never a capture).
//
// Thread-safety: Post and the internal calls from any managed thread; SetSink from the agent's
// thread. Each thread's scope stack (ThreadScopes) is its own (thread_local).
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>

#include "xrpm/agent/game_events.h"

namespace xrpm {
namespace mono {

class MonoFrames;

class GameEvents {
 public:
  GameEvents(std::chrono::steady_clock::time_point start, const MonoFrames& frames)
      : start_(start), frames_(frames) {}
  bool SetSink(agent::GameEventSink* sink);
  void Post(agent::MarkerKind kind, const char* text);

 private:
  const std::chrono::steady_clock::time_point start_;
  const MonoFrames& frames_;
  agent::GameEventSlot sink_;
};

// The calling thread's open Xrpm.Profiler.Scope tags (the innermost labels its allocation
// samples).
const agent::ScopeTagStack& ThreadScopes();

// Sets XRPM_AGENT_PID: call in the module's init, before any thread starts (setenv is not safe
// against a concurrent getenv).
void AnnounceGameApi();
// Registers the internal calls; call once the runtime is initialised (runtime_initialized),
// before the program's managed code runs.
void RegisterGameApi(GameEvents* events);

}  // namespace mono
}  // namespace xrpm
