// The in-game API's shared part (xrpm/agent/game_api.h): UTF-16 marker text, per-thread scope
// tags, the marker path to the agent's queue.
#include "xrpm/agent/game_api.h"

#include <memory>

namespace xrpm {
namespace agent {
namespace {

// The scope texts of one thread, one slot per kept depth (ScopeTagStack keeps pointers).
struct ThreadScopeState {
  ScopeTagStack stack;
  char names[ScopeTagStack::kMaxDepth][kMaxMarkerTextBytes + 1];
};
thread_local std::unique_ptr<ThreadScopeState> t_game_scopes;
const ScopeTagStack kNoGameScopes{};

// One code point as UTF-8 into b[4]; returns its length.
size_t EncodeMarkerUtf8(uint32_t cp, char* b) {
  if (cp < 0x80) {
    b[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    b[0] = static_cast<char>(0xC0 | (cp >> 6));
    b[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    b[0] = static_cast<char>(0xE0 | (cp >> 12));
    b[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    b[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  b[0] = static_cast<char>(0xF0 | (cp >> 18));
  b[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  b[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  b[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace

uint64_t Utf16ToMarkerText(const char16_t* chars, size_t length, char* out) {
  size_t n = 0;
  if (chars) {
    for (size_t i = 0; i < length; ++i) {
      uint32_t cp = chars[i];
      if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < length && chars[i + 1] >= 0xDC00 &&
          chars[i + 1] <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (chars[i + 1] - 0xDC00);
        ++i;
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD;
      }
      char b[4];
      const size_t k = EncodeMarkerUtf8(cp, b);
      if (n + k > kMaxMarkerTextBytes) break;
      for (size_t j = 0; j < k; ++j) out[n++] = b[j];
    }
  }
  out[n] = 0;
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(out[i])) * 1099511628211ull;
  return h | 1;
}

void ScopeTags::Enter(const char16_t* chars, size_t length) {
  if (!t_game_scopes) t_game_scopes = std::make_unique<ThreadScopeState>();
  ThreadScopeState& t = *t_game_scopes;
  const uint32_t depth = t.stack.depth();
  if (depth >= ScopeTagStack::kMaxDepth) {
    t.stack.Enter(0, nullptr);  // counted; the innermost kept tag stays in force
    return;
  }
  const uint64_t key = Utf16ToMarkerText(chars, length, t.names[depth]);
  t.stack.Enter(key, t.names[depth]);
}

void ScopeTags::Leave() {
  if (t_game_scopes) t_game_scopes->stack.Leave();
}

const ScopeTagStack& ScopeTags::Current() {
  return t_game_scopes ? t_game_scopes->stack : kNoGameScopes;
}

void GameEvents::Post(MarkerKind kind, const char* text) {
  if (!slot_.on()) return;
  const uint64_t now_us =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::steady_clock::now() - start_)
                                .count());
  slot_.Post(kind, text, frame_ ? frame_(ctx_) : 0, now_us);
}

void GameEvents::PostUtf16(MarkerKind kind, const char16_t* chars, size_t length) {
  if (!slot_.on()) return;
  char buf[kMaxMarkerTextBytes + 1];
  Utf16ToMarkerText(chars, length, buf);
  Post(kind, buf);
}

}  // namespace agent
}  // namespace xrpm
