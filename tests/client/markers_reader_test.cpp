// Bad markers and scope tags from a device: the host's FrameBatchReader refuses text
// over the documented limit, too many markers in a batch, an unknown kind, tags out of order and
// samples naming an undefined tag, each with a message that says what was expected; good ones are
// kept with their frame and time.
#include <gtest/gtest.h>

#include <string>

#include "frame_batch_reader.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::client {
namespace {

wire::FrameBatch Batch() {
  wire::FrameBatch b;
  b.set_seq(1);
  b.set_sample_bytes(1024);
  b.add_tags()->set_id(1);
  b.mutable_tags(0)->set_name("AI");
  wire::MarkerRow* m = b.add_markers();
  m->set_text("Level 7 loaded");
  m->set_frame(3);
  m->set_time_us(5000);
  wire::AllocSampleRow* s = b.add_samples();
  s->set_frame(3);
  s->set_size(48);
  s->set_tag(1);
  return b;
}

std::string Refusal(const wire::FrameBatch& b) {
  FrameBatchReader r;
  FrameRecording d;
  std::string error;
  EXPECT_FALSE(r.Read(b, 100, 1000, &d, &error));
  return error;
}

TEST(MarkersReader, KeepsGoodMarkersAndTags) {
  FrameBatchReader r;
  FrameRecording d;
  std::string error;
  ASSERT_TRUE(r.Read(Batch(), 100, 1000, &d, &error)) << error;
  ASSERT_EQ(d.markers.size(), 1u);
  EXPECT_EQ(d.markers[0].text, "Level 7 loaded");
  EXPECT_EQ(d.markers[0].frame, 3u);
  EXPECT_EQ(d.markers[0].time_us, 5000u);
  ASSERT_EQ(d.samples.size(), 1u);
  EXPECT_EQ(d.TagName(d.samples[0].tag), "AI");
  EXPECT_EQ(d.TagName(0), "<untagged>");
}

TEST(MarkersReader, RefusesBadMarkersAndTagsWithAClearError) {
  wire::FrameBatch b = Batch();
  b.mutable_markers(0)->set_text(std::string(protocol::kMaxMarkerBytes + 1, 'x'));
  EXPECT_NE(Refusal(b).find("marker of 129 bytes, over the limit of 128"), std::string::npos)
      << Refusal(b);

  b = Batch();
  for (uint32_t i = 0; i < protocol::kMaxBatchMarkers; ++i) b.add_markers();
  EXPECT_NE(Refusal(b).find("1025 markers, over the limit of 1024"), std::string::npos);

  b = Batch();
  b.mutable_markers(0)->set_kind(static_cast<wire::MarkerKind>(7));
  EXPECT_NE(Refusal(b).find("marker of unknown kind 7"), std::string::npos) << Refusal(b);

  b = Batch();
  b.mutable_tags(0)->set_id(2);
  EXPECT_NE(Refusal(b).find("tag id 2 out of order"), std::string::npos) << Refusal(b);

  b = Batch();
  b.mutable_tags(0)->set_name(std::string(200, 't'));
  EXPECT_NE(Refusal(b).find("tag of 200 bytes, over the limit of 128"), std::string::npos);

  b = Batch();
  b.mutable_samples(0)->set_tag(2);
  EXPECT_NE(Refusal(b).find("or tag 2"), std::string::npos) << Refusal(b);
}

TEST(MarkersReader, MarkersCountAgainstTheHostsRowLimit) {
  FrameBatchReader r;
  FrameRecording d;
  std::string error;
  ASSERT_TRUE(r.Read(Batch(), 100, 1, &d, &error)) << error;  // room for one row only
  EXPECT_EQ(d.markers.size() + d.samples.size(), 1u);
  EXPECT_EQ(d.host_dropped_rows, 1u);
}

}  // namespace
}  // namespace xrpm::client
