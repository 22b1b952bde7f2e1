#include "game_api.h"

#include <mono/metadata/loader.h>
#include <mono/metadata/object.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "mono_frames.h"

namespace xrpm {
namespace mono {
namespace {

GameEvents* g_events = nullptr;

// The scope texts of one thread, one slot per kept depth (ScopeTagStack keeps pointers).
struct ThreadScopeState {
  agent::ScopeTagStack stack;
  char names[agent::ScopeTagStack::kMaxDepth][agent::kMaxMarkerTextBytes + 1];
};
// Only a pointer is thread-local: the module is dlopen'ed, and static TLS has little room left
// then. The state (4.6 KB) is allocated on a thread's first Scope and freed when it ends.
thread_local std::unique_ptr<ThreadScopeState> t_scopes;
const agent::ScopeTagStack kNoScopes{};

// UTF-16 -> UTF-8 into out[kMaxMarkerTextBytes + 1], cut at a character boundary; unpaired
// surrogates become U+FFFD. Returns the FNV-1a hash of the bytes (never 0) for scope keys.
uint64_t ToUtf8(MonoString* s, char* out) {
  size_t n = 0;
  if (s) {
    const mono_unichar2* c = mono_string_chars(s);
    const int32_t len = mono_string_length(s);
    for (int32_t i = 0; i < len; ++i) {
      uint32_t cp = c[i];
      if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < len && c[i + 1] >= 0xDC00 && c[i + 1] <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (c[i + 1] - 0xDC00);
        ++i;
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD;
      }
      char b[4];
      size_t k;
      if (cp < 0x80) {
        b[0] = static_cast<char>(cp);
        k = 1;
      } else if (cp < 0x800) {
        b[0] = static_cast<char>(0xC0 | (cp >> 6));
        b[1] = static_cast<char>(0x80 | (cp & 0x3F));
        k = 2;
      } else if (cp < 0x10000) {
        b[0] = static_cast<char>(0xE0 | (cp >> 12));
        b[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        b[2] = static_cast<char>(0x80 | (cp & 0x3F));
        k = 3;
      } else {
        b[0] = static_cast<char>(0xF0 | (cp >> 18));
        b[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        b[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        b[3] = static_cast<char>(0x80 | (cp & 0x3F));
        k = 4;
      }
      if (n + k > agent::kMaxMarkerTextBytes) break;
      for (size_t j = 0; j < k; ++j) out[n++] = b[j];
    }
  }
  out[n] = 0;
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(out[i])) * 1099511628211ull;
  return h | 1;
}

mono_bool AgentAttached() {
  return 1;
}

void PostMarker(int32_t kind, MonoString* text) {
  if (!g_events) return;
  char buf[agent::kMaxMarkerTextBytes + 1];
  ToUtf8(text, buf);
  g_events->Post(kind == 1 ? agent::MarkerKind::kCaptureRequest : agent::MarkerKind::kMarker, buf);
}

void EnterScope(MonoString* tag) {
  if (!t_scopes) t_scopes = std::make_unique<ThreadScopeState>();
  ThreadScopeState& t = *t_scopes;
  const uint32_t depth = t.stack.depth();
  if (depth >= agent::ScopeTagStack::kMaxDepth) {
    t.stack.Enter(0, nullptr);  // counted; the innermost kept tag stays in force
    return;
  }
  const uint64_t key = ToUtf8(tag, t.names[depth]);
  t.stack.Enter(key, t.names[depth]);
}

void LeaveScope() {
  if (t_scopes) t_scopes->stack.Leave();
}

}  // namespace

bool GameEvents::SetSink(agent::GameEventSink* sink) {
  sink_.Set(sink);
  return true;
}

void GameEvents::Post(agent::MarkerKind kind, const char* text) {
  if (!sink_.on()) return;
  const uint64_t now_us =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::steady_clock::now() - start_)
                                .count());
  sink_.Post(kind, text, frames_.completed(), now_us);
}

const agent::ScopeTagStack& ThreadScopes() {
  return t_scopes ? t_scopes->stack : kNoScopes;
}

void AnnounceGameApi() {
  // Xrpm.dll asks for this before it calls anything (a child process inherits the variable, not
  // the module, and its id differs).
  setenv("XRPM_AGENT_PID", std::to_string(getpid()).c_str(), 1);
}

void RegisterGameApi(GameEvents* events) {
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
