// What the managed runtimes' in-game APIs share (Xrpm.dll on Mono and on .NET: Xrpm.Profiler.
// Marker, RequestCapture, Scope), whatever way the call crosses into native code:
//
//   Utf16ToMarkerText  a managed string's UTF-16 text -> the UTF-8 a marker or tag carries, cut
//                      at kMaxMarkerTextBytes on a character boundary (never refused; an unpaired
//                      surrogate becomes U+FFFD), with a stable key for a scope tag.
//   ScopeTags          the calling thread's open Scope tags (a ScopeTagStack plus the texts it
//                      points at): Enter / Leave from the game's calls, Current() for the
//                      runtime's allocation samples (the innermost tag labels a sample).
//   GameEvents         the marker path to the agent's queue (RuntimePort::SetGameEventSink): one
//                      relaxed load without an agent, else the device clock (BootMillis' origin),
//                      the frame in progress (the port's frame counter) and the sink's call
//                      under GameEventSlot's mutex (held only to exclude a sink change).
//
// Memory: nothing allocates but a thread's scope state (4.6 KB, on its first Enter, freed when
// the thread ends). Only a pointer is thread-local: a runtime loads the agent's library with
// dlopen, where static TLS has little room left.
//
// Thread-safety: Utf16ToMarkerText is reentrant; ScopeTags' calls act on the calling thread's own
// state; GameEvents::Post from any thread, SetSink from the agent's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "xrpm/agent/game_events.h"

namespace xrpm {
namespace agent {

// `length` UTF-16 code units at `chars` (nullptr: empty) -> out[kMaxMarkerTextBytes + 1],
// NUL-terminated. Returns the FNV-1a hash of the bytes, never 0 (a scope tag's key).
uint64_t Utf16ToMarkerText(const char16_t* chars, size_t length, char* out);

class ScopeTags {
 public:
  // Opens a scope tagged with the UTF-16 text (deeper than ScopeTagStack::kMaxDepth: counted,
  // the innermost kept tag stays in force).
  static void Enter(const char16_t* chars, size_t length);
  // Closes the innermost open scope (none open: ignored).
  static void Leave();
  // The calling thread's open scopes (empty when it never entered one).
  static const ScopeTagStack& Current();
};

class GameEvents {
 public:
  // `frame(ctx)`: the port's frame in progress (FrameRecord numbering), read at each Post.
  using FrameFn = uint64_t (*)(const void* ctx);
  GameEvents(std::chrono::steady_clock::time_point start, FrameFn frame, const void* ctx)
      : start_(start), frame_(frame), ctx_(ctx) {}
  GameEvents(const GameEvents&) = delete;
  GameEvents& operator=(const GameEvents&) = delete;

  bool SetSink(GameEventSink* sink) {
    slot_.Set(sink);
    return true;
  }
  bool on() const { return slot_.on(); }
  // `text` UTF-8, NUL-terminated.
  void Post(MarkerKind kind, const char* text);
  // A managed string's UTF-16 text (converted only when an agent listens).
  void PostUtf16(MarkerKind kind, const char16_t* chars, size_t length);

 private:
  const std::chrono::steady_clock::time_point start_;
  const FrameFn frame_;
  const void* const ctx_;
  GameEventSlot slot_;
};

}  // namespace agent
}  // namespace xrpm
