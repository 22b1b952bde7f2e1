#include "game_api.h"

#include <mono/metadata/loader.h>
#include <mono/metadata/object.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "mono_frames.h"

namespace xrpm {
namespace mono {
namespace {

agent::GameEvents* g_events = nullptr;

const char16_t* MonoStringChars(MonoString* s) {
  return s ? reinterpret_cast<const char16_t*>(mono_string_chars(s)) : nullptr;
}
size_t MonoStringLength(MonoString* s) {
  return s ? static_cast<size_t>(mono_string_length(s)) : 0;
}

mono_bool AgentAttached() {
  return 1;
}

void PostMarker(int32_t kind, MonoString* text) {
  if (!g_events) return;
  g_events->PostUtf16(kind == 1 ? agent::MarkerKind::kCaptureRequest : agent::MarkerKind::kMarker,
                      MonoStringChars(text), MonoStringLength(text));
}

void EnterScope(MonoString* tag) {
  agent::ScopeTags::Enter(MonoStringChars(tag), MonoStringLength(tag));
}

void LeaveScope() {
  agent::ScopeTags::Leave();
}

}  // namespace

uint64_t MonoFrameInProgress(const void* frames) {
  return static_cast<const MonoFrames*>(frames)->completed();
}

const agent::ScopeTagStack& ThreadScopes() {
  return agent::ScopeTags::Current();
}

void AnnounceGameApi() {
  // Xrpm.dll asks for this before it calls anything (a child process inherits the variable, not
  // the module, and its id differs).
  setenv("XRPM_AGENT_PID", std::to_string(getpid()).c_str(), 1);
}

void RegisterGameApi(agent::GameEvents* events) {
  g_events = events;
  mono_add_internal_call("Xrpm.Profiler/Native::AgentAttached",
                         reinterpret_cast<const void*>(&AgentAttached));
  mono_add_internal_call("Xrpm.Profiler/Native::PostMarker",
                         reinterpret_cast<const void*>(&PostMarker));
  mono_add_internal_call("Xrpm.Profiler/Native::EnterScope",
                         reinterpret_cast<const void*>(&EnterScope));
  mono_add_internal_call("Xrpm.Profiler/Native::LeaveScope",
                         reinterpret_cast<const void*>(&LeaveScope));
}

}  // namespace mono
}  // namespace xrpm
