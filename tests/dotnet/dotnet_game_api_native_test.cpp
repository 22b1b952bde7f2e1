// The .NET port's native side of the in-game API (dotnet_game_api.h), in process: the exported
// calls do nothing before the agent's GameEvents is published (version 0), then reach it (version
// 1, markers and requests with their kinds); the scope calls keep the calling thread's stack,
// which CurrentScopeTag reads (what the allocation samples will carry). Built only with the
// .NET port (XRPM_HAVE_DOTNET_PORT).
#include <gtest/gtest.h>

#ifdef XRPM_HAVE_DOTNET_PORT
#include <string>
#include <thread>
#include <vector>

#include "dotnet_game_api.h"

namespace xrpm::dotnet {
namespace {

class DotnetApiSink final : public agent::GameEventSink {
 public:
  void OnMarker(agent::MarkerKind kind, const char* text, uint64_t, uint64_t) noexcept override {
    seen.emplace_back(std::to_string(static_cast<int>(kind)) + ":" + text);
  }
  std::vector<std::string> seen;
};

TEST(DotnetGameApiNative, CallsReachThePublishedEventsAndScopesArePerThread) {
  const std::u16string wave = u"Wave 2", ai = u"AI", path = u"Path";
  // Before publication (and published once per process: this test publishes for the binary).
  EXPECT_EQ(GameApiVersion(), 0);
  GameApiPost(0, wave.data(), static_cast<int32_t>(wave.size()));
  static agent::GameEvents events(std::chrono::steady_clock::now(), nullptr, nullptr);
  static DotnetApiSink sink;
  events.SetSink(&sink);
  PublishGameEvents(&events);
  EXPECT_EQ(GameApiVersion(), 1);
  GameApiPost(0, wave.data(), static_cast<int32_t>(wave.size()));
  GameApiPost(1, u"boss fight", 4);
  GameApiPost(0, nullptr, 3);
  GameApiPost(0, wave.data(), -1);
  EXPECT_EQ(sink.seen, (std::vector<std::string>{"0:Wave 2", "1:boss", "0:", "0:"}));

  EXPECT_EQ(CurrentScopeTag(), nullptr);
  GameApiEnterScope(ai.data(), static_cast<int32_t>(ai.size()));
  GameApiEnterScope(path.data(), static_cast<int32_t>(path.size()));
  EXPECT_STREQ(CurrentScopeTag(), "Path");
  EXPECT_EQ(ThreadScopes().depth(), 2u);
  const char* other = "unset";
  std::thread([&] { other = CurrentScopeTag(); }).join();
  EXPECT_EQ(other, nullptr) << "another thread's stack is its own";
  GameApiLeaveScope();
  EXPECT_STREQ(CurrentScopeTag(), "AI");
  GameApiLeaveScope();
  GameApiLeaveScope();  // unbalanced: ignored
  EXPECT_EQ(CurrentScopeTag(), nullptr);
  events.SetSink(nullptr);
}

}  // namespace
}  // namespace xrpm::dotnet
#endif
