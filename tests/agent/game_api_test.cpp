// The managed ports' shared in-game API part (xrpm/agent/game_api.h): UTF-16 text to a marker's
// UTF-8 (cut on a character boundary, unpaired surrogates replaced, a stable key), per-thread
// scope tags, and the marker path (nothing without a sink; with one, the port's frame in
// progress and a clock that does not go back).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "xrpm/agent/game_api.h"

namespace xrpm::agent {
namespace {

std::string MarkerText16(const std::u16string& s, uint64_t* key = nullptr) {
  char out[kMaxMarkerTextBytes + 1];
  const uint64_t k = Utf16ToMarkerText(s.data(), s.size(), out);
  if (key) *key = k;
  return out;
}

TEST(GameApiText, Utf16BecomesUtf8CutOnACharacterBoundary) {
  EXPECT_EQ(MarkerText16(u"Wave 3"), "Wave 3");
  EXPECT_EQ(MarkerText16(u"caf\u00e9 \u20ac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(MarkerText16(u"\U0001F600"), "\xf0\x9f\x98\x80") << "a surrogate pair: one code point";
  EXPECT_EQ(MarkerText16(std::u16string(u"a") + char16_t(0xD800) + u"b"),
            "a\xef\xbf\xbd"
            "b")
      << "an unpaired surrogate becomes U+FFFD";
  char out[kMaxMarkerTextBytes + 1];
  EXPECT_NE(Utf16ToMarkerText(nullptr, 5, out), 0u);
  EXPECT_STREQ(out, "") << "no text reads as empty";
  // 127 ASCII bytes then a 2-byte character: 129 bytes do not fit, the character goes whole.
  const std::string cut = MarkerText16(std::u16string(127, u'x') + u"\u00e9");
  EXPECT_EQ(cut, std::string(127, 'x'));
  EXPECT_EQ(MarkerText16(std::u16string(1000, u'y')).size(), kMaxMarkerTextBytes);
  uint64_t a = 0, b = 0, c = 0;
  MarkerText16(u"AI", &a);
  MarkerText16(u"AI", &b);
  MarkerText16(u"Path", &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(GameApiScopeTags, EachThreadHasItsOwnInnermostTag) {
  const std::u16string ai = u"AI", path = u"Path";
  EXPECT_EQ(ScopeTags::Current().name(), nullptr);
  ScopeTags::Enter(ai.data(), ai.size());
  ScopeTags::Enter(path.data(), path.size());
  EXPECT_STREQ(ScopeTags::Current().name(), "Path");
  std::string other = "unset";
  std::thread([&] {
    const char* n = ScopeTags::Current().name();
    other = n ? n : "none";
    ScopeTags::Leave();  // nothing open on this thread: ignored
  }).join();
  EXPECT_EQ(other, "none");
  ScopeTags::Leave();
  EXPECT_STREQ(ScopeTags::Current().name(), "AI");
  // Past the kept depth: counted, the innermost kept tag stays.
  for (uint32_t i = 0; i < ScopeTagStack::kMaxDepth + 5; ++i) ScopeTags::Enter(path.data(), 4);
  EXPECT_EQ(ScopeTags::Current().depth(), ScopeTagStack::kMaxDepth + 6);
  EXPECT_STREQ(ScopeTags::Current().name(), "Path");
  for (uint32_t i = 0; i < ScopeTagStack::kMaxDepth + 6; ++i) ScopeTags::Leave();
  EXPECT_EQ(ScopeTags::Current().depth(), 0u);
  EXPECT_EQ(ScopeTags::Current().name(), nullptr);
}

struct SeenMarker {
  MarkerKind kind;
  std::string text;
  uint64_t frame, time_us;
};

class RecordingGameSink final : public GameEventSink {
 public:
  void OnMarker(MarkerKind kind, const char* text, uint64_t frame,
                uint64_t time_us) noexcept override {
    seen.push_back({kind, text ? text : "", frame, time_us});
  }
  std::vector<SeenMarker> seen;
};

TEST(GameApiEvents, PostsWithTheFrameInProgressOnlyToASink) {
  uint64_t frame = 7;
  GameEvents events(
      std::chrono::steady_clock::now(),
      [](const void* f) { return *static_cast<const uint64_t*>(f); }, &frame);
  const std::u16string wave = u"Wave 1";
  events.PostUtf16(MarkerKind::kMarker, wave.data(), wave.size());  // no sink: nothing
  RecordingGameSink sink;
  EXPECT_TRUE(events.SetSink(&sink));
  EXPECT_TRUE(events.on());
  events.PostUtf16(MarkerKind::kMarker, wave.data(), wave.size());
  frame = 9;
  events.Post(MarkerKind::kCaptureRequest, "boss");
  events.SetSink(nullptr);
  events.Post(MarkerKind::kMarker, "after");
  ASSERT_EQ(sink.seen.size(), 2u);
  EXPECT_EQ(sink.seen[0].kind, MarkerKind::kMarker);
  EXPECT_EQ(sink.seen[0].text, "Wave 1");
  EXPECT_EQ(sink.seen[0].frame, 7u);
  EXPECT_EQ(sink.seen[1].kind, MarkerKind::kCaptureRequest);
  EXPECT_EQ(sink.seen[1].text, "boss");
  EXPECT_EQ(sink.seen[1].frame, 9u);
  EXPECT_GE(sink.seen[1].time_us, sink.seen[0].time_us);
}

}  // namespace
}  // namespace xrpm::agent
