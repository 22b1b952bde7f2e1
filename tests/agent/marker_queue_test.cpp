// The agent's marker queue and scope tags: markers keep their order, text past the
// documented limit is cut at a UTF-8 boundary (never refused), a flood is dropped and counted
// without growing memory, and the frame tracker interns scope tags and sends each before the
// samples that use it.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "frame_tracker.h"
#include "marker_queue.h"
#include "xrpm/agent/game_events.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::agent {
namespace {

TEST(MarkerQueue, KeepsOrderAndCutsLongTextAtAUtf8Boundary) {
  MarkerQueue q(8);
  q.OnMarker(MarkerKind::kMarker, "Level 7 loaded", 3, 1000);
  q.OnMarker(MarkerKind::kCaptureRequest, nullptr, 4, 2000);
  // 127 ASCII bytes then a 2-byte sequence straddling the 128-byte limit: cut before it.
  std::string lng(127, 'a');
  lng += "\xC3\xA9tail";
  q.OnMarker(MarkerKind::kMarker, lng.c_str(), 5, 3000);
  QueuedMarker m;
  ASSERT_TRUE(q.Pop(&m));
  EXPECT_EQ(std::string(m.text, m.length), "Level 7 loaded");
  EXPECT_EQ(m.kind, MarkerKind::kMarker);
  EXPECT_EQ(m.frame, 3u);
  EXPECT_EQ(m.time_us, 1000u);
  ASSERT_TRUE(q.Pop(&m));
  EXPECT_EQ(m.kind, MarkerKind::kCaptureRequest);
  EXPECT_EQ(m.length, 0u);
  ASSERT_TRUE(q.Pop(&m));
  EXPECT_EQ(m.length, 127u);
  EXPECT_EQ(std::string(m.text, m.length), std::string(127, 'a'));
  EXPECT_FALSE(q.Pop(&m));
  EXPECT_EQ(q.dropped(), 0u);
  EXPECT_EQ(kMaxMarkerTextBytes, size_t{protocol::kMaxMarkerBytes});
}

TEST(MarkerQueue, AFloodIsDroppedAndCountedNeverQueuedBeyondTheCapacity) {
  MarkerQueue q(16);
  for (int i = 0; i < 10000; ++i) q.OnMarker(MarkerKind::kMarker, "spam", i, i);
  EXPECT_EQ(q.posted(), 10000u);
  EXPECT_EQ(q.dropped(), 10000u - q.capacity());
  QueuedMarker m;
  uint64_t n = 0, last = 0;
  while (q.Pop(&m)) {
    if (n) {
      EXPECT_GT(m.frame, last);
    }
    last = m.frame;
    ++n;
  }
  EXPECT_EQ(n, q.capacity());
  // Room again once read.
  q.OnMarker(MarkerKind::kMarker, "after", 1, 1);
  ASSERT_TRUE(q.Pop(&m));
  EXPECT_EQ(std::string(m.text, m.length), "after");
}

TEST(MarkerQueue, SeveralThreadsPostingLoseNothingWhileThereIsRoom) {
  MarkerQueue q(4096);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&q, t] {
      for (int i = 0; i < 500; ++i) q.OnMarker(MarkerKind::kMarker, "x", t, i);
    });
  std::vector<int> next(4, 0);
  uint64_t got = 0;
  QueuedMarker m;
  while (got < 2000) {
    if (!q.Pop(&m)) {
      std::this_thread::yield();
      continue;
    }
    // Each thread's markers stay in its posting order.
    ASSERT_EQ(static_cast<int>(m.time_us), next[m.frame]++);
    ++got;
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(q.dropped(), 0u);
  EXPECT_FALSE(q.Pop(&m));
}

TEST(ScopeTagStack, InnermostTagAndBoundedDepth) {
  ScopeTagStack s;
  EXPECT_EQ(s.key(), 0u);
  EXPECT_EQ(s.name(), nullptr);
  s.Enter(7, "AI");
  s.Enter(9, "Path");
  EXPECT_STREQ(s.name(), "Path");
  s.Leave();
  EXPECT_STREQ(s.name(), "AI");
  for (uint32_t i = 0; i < 100; ++i) s.Enter(100 + i, "deep");
  EXPECT_EQ(s.depth(), 101u);
  EXPECT_EQ(s.key(), 100u + ScopeTagStack::kMaxDepth - 2);  // the deepest kept level
  for (uint32_t i = 0; i < 100; ++i) s.Leave();
  EXPECT_STREQ(s.name(), "AI");
  s.Leave();
  s.Leave();  // unbalanced: ignored
  EXPECT_EQ(s.depth(), 0u);
}

TEST(FrameTracker, InternsScopeTagsAndSendsThemBeforeTheirSamples) {
  FrameTracker t(64);
  const uint64_t key = 1;
  const char* name = "Bubbles.Bubble";
  const uint64_t mk = 11;
  const char* mn = "Bubbles.BubbleField.Spawn";
  AllocationSample s{0, 32, key, name, 1, &mk, &mn};
  std::string long_tag(300, 'T');
  s.tag_key = 5;
  s.tag_name = "AI";
  t.OnAllocationSample(s);
  t.OnAllocationSample(s);
  s.tag_key = 6;
  s.tag_name = long_tag.c_str();
  t.OnAllocationSample(s);
  s.tag_key = 0;
  s.tag_name = nullptr;
  t.OnAllocationSample(s);
  wire::FrameBatch b;
  ASSERT_TRUE(t.Fill(&b));
  if (b.samples_size() == 0) {
    ASSERT_TRUE(t.Fill(&b));  // definitions first, rows next
  }
  ASSERT_EQ(b.tags_size(), 2);
  EXPECT_EQ(b.tags(0).name(), "AI");
  EXPECT_EQ(b.tags(1).name().size(), size_t{protocol::kMaxMarkerBytes});
  ASSERT_EQ(b.samples_size(), 4);
  EXPECT_EQ(b.samples(0).tag(), 1u);
  EXPECT_EQ(b.samples(1).tag(), 1u);
  EXPECT_EQ(b.samples(2).tag(), 2u);
  EXPECT_EQ(b.samples(3).tag(), 0u);
}

}  // namespace
}  // namespace xrpm::agent
