// The .NET in-game API's native side (dotnet_game_api.h).
#include "dotnet_game_api.h"

#include <atomic>

namespace xrpm {
namespace dotnet {
namespace {

std::atomic<agent::GameEvents*> g_dotnet_game_events{nullptr};

size_t GameApiLength(const char16_t* text, int32_t length) {
  return text && length > 0 ? static_cast<size_t>(length) : 0;
}

}  // namespace

void PublishGameEvents(agent::GameEvents* events) {
  g_dotnet_game_events.store(events, std::memory_order_release);
}

int32_t GameApiVersion() {
  return g_dotnet_game_events.load(std::memory_order_acquire) ? 1 : 0;
}

void GameApiPost(int32_t kind, const char16_t* text, int32_t length) {
  agent::GameEvents* events = g_dotnet_game_events.load(std::memory_order_acquire);
  if (!events) return;
  events->PostUtf16(kind == 1 ? agent::MarkerKind::kCaptureRequest : agent::MarkerKind::kMarker,
                    text, GameApiLength(text, length));
}

void GameApiEnterScope(const char16_t* tag, int32_t length) {
  agent::ScopeTags::Enter(tag, GameApiLength(tag, length));
}

void GameApiLeaveScope() {
  agent::ScopeTags::Leave();
}

const agent::ScopeTagStack& ThreadScopes() {
  return agent::ScopeTags::Current();
}

const char* CurrentScopeTag() {
  return agent::ScopeTags::Current().name();
}

}  // namespace dotnet
}  // namespace xrpm
