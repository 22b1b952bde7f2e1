// Saved recordings (formats/recording_file.h): a recording with every kind of row
// reads back equal from an .xrpm file; readers that do not know the parts still open the file;
// a heap snapshot is "not a recording"; truncated, corrupt and inconsistent parts are refused
// with the file, the part, its byte offset, what was expected and what was found.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "temp_dir.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::formats {
namespace {

SavedRecording SampleRecording() {
  SavedRecording s;
  s.endpoint = "127.0.0.1:4510";
  FrameRecording& r = s.rec;
  r.app = "bubbles.exe";
  r.sample_bytes = 1024;
  r.methods = {"Bubbles.Game1.Update", "Bubbles.BubbleField.Spawn", "Bubbles.Particles.Emit"};
  r.types = {"Bubbles.Bubble", "System.Single[]"};
  r.tags = {"Spawn", "Particles \xc3\xa9"};
  r.stacks = {{2, 1}, {3, 1}, {}};
  // Frames 10..13 with 12 missing (the device's ring dropped it), a collection, no GC budget.
  r.frames = {{10, 166'000, 16'600, 2'100, 4'096, 40, 0, 0, 900'000},
              {11, 182'600, 16'700, 2'300, 70'000, 612, 1, 3'100, 1'000'000,
               protocol::AppendGcKind(0, 0, protocol::GcReason::kAllocation)},
              {13, 215'900, 16'650, 1'900, 1'024, 9, 0, 0, -1}};
  r.samples = {{10, 1, 1, 48, 1}, {11, 2, 2, 4'096, 2}, {11, 3, 0, 24, 0}, {13, 0, 1, 48, 0}};
  r.markers = {{MarkerKind::kMarker, "Wave 1", 10, 160'000},
               {MarkerKind::kCaptureRequest, "wave 1 over", 13, 210'000}};
  r.dropped_markers = 3;
  r.dropped_records = 7;
  r.batches = 5;
  r.wire_bytes = 12'345;
  r.host_dropped_rows = 2;
  r.subscription = 4;
  return s;
}

std::string WriteRecording(const std::vector<formats::XrpmPart>& parts, Snapshot snap = {}) {
  formats::XrpmWriteOptions w;
  w.threads = 1;
  w.extra_parts = parts;
  return formats::WriteXrpm(snap, w);
}

formats::XrpmPart& PartOf(std::vector<formats::XrpmPart>& parts, std::string_view tag) {
  for (auto& p : parts)
    if (p.tag == tag) return p;
  throw std::logic_error("no part " + std::string(tag));
}

// The refusal of `bytes`, and the byte offset of part `tag` in them (0 if absent).
struct Refusal {
  Diagnostic d;
  uint64_t part_offset = 0;
};
Refusal Refuse(const std::string& bytes, std::string_view tag = {}) {
  Refusal out;
  formats::XrpmReadOptions o;
  o.wanted = RecordingPartTags();
  try {
    for (const auto& p : formats::ReadXrpm(bytes, "rec.xrpm", o).parts)
      if (p.tag == tag) out.part_offset = p.offset;
  } catch (const InputError&) {
  }
  try {
    ParseRecording(bytes, "rec.xrpm");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    out.d = e.diagnostic();
  }
  return out;
}

// Refuses `parts`; checks the message names part `tag` at its offset and contains `says`.
void ExpectRefusedParts(const std::vector<formats::XrpmPart>& parts, std::string_view tag,
                        const std::string& code, const std::string& says) {
  SCOPED_TRACE(std::string(tag) + ": " + says);
  const Refusal r = Refuse(WriteRecording(parts), tag);
  EXPECT_EQ(r.d.file, "rec.xrpm");
  EXPECT_EQ(r.d.code, code) << r.d.message;
  ASSERT_NE(r.part_offset, 0u);
  EXPECT_NE(r.d.message.find("at byte offset " + std::to_string(r.part_offset) + ": part '" +
                             std::string(tag) + "': "),
            std::string::npos)
      << r.d.message;
  EXPECT_NE(r.d.message.find(says), std::string::npos) << r.d.message;
}
// The same with part `tag` of Sample()'s parts changed by `mutate`.
void ExpectRefused(std::string_view tag, const std::function<void(formats::XrpmPart&)>& mutate,
                   const std::string& code, const std::string& says) {
  auto parts = EncodeRecordingParts(SampleRecording());
  mutate(PartOf(parts, tag));
  ExpectRefusedParts(parts, tag, code, says);
}
// The same for a recording the encoder writes as it is but no device could have sent.
void ExpectRefused(const std::function<void(FrameRecording&)>& spoil, std::string_view tag,
                   const std::string& says) {
  SavedRecording s = SampleRecording();
  spoil(s.rec);
  ExpectRefusedParts(EncodeRecordingParts(s), tag, "bad-part", says);
}

void SetU32(formats::XrpmPart& p, size_t index, uint32_t v) {
  std::memcpy(p.data.data() + index * 4, &v, 4);
}

TEST(RecordingFile, ReadsBackEqual) {
  const testing::TempDir dir("xrpm_recording_file");
  const SavedRecording s = SampleRecording();
  SaveRecordingFile(s, dir.Path("rec.xrpm"));
  EXPECT_EQ(LoadRecordingFile(dir.Path("rec.xrpm")), s);
  // An empty recording too (a run that got no samples and no markers).
  SavedRecording empty;
  empty.rec.app = "x";
  SaveRecordingFile(empty, dir.Path("empty.xrpm"));
  EXPECT_EQ(LoadRecordingFile(dir.Path("empty.xrpm")), empty);
}

// A recording written before frame rows kept their collections' kinds (no part 'rfgk') reads
// with every kind unknown.
TEST(RecordingFile, ReadsRecordingsWithoutCollectionKinds) {
  const testing::TempDir dir("xrpm_recording_file");
  auto parts = EncodeRecordingParts(SampleRecording());
  std::erase_if(parts, [](const auto& p) { return p.tag == "rfgk"; });
  const SavedRecording got = ParseRecording(WriteRecording(parts), "old.xrpm");
  SavedRecording want = SampleRecording();
  for (FrameRow& f : want.rec.frames) f.gc_kinds = 0;
  EXPECT_EQ(got, want);
}

// The frame totals (exact counts or estimated from samples) read back as written; a recording
// written before header version 2 (no frame totals byte) reads as exact; a value other than 0 or
// 1 is refused naming it.
TEST(RecordingFile, KeepsWhetherFrameTotalsAreEstimatedAndOlderFilesReadAsExact) {
  const testing::TempDir dir("xrpm_recording_file");
  SavedRecording estimated = SampleRecording();
  estimated.rec.frame_totals = FrameTotals::kEstimated;
  SaveRecordingFile(estimated, dir.Path("estimated.xrpm"));
  const SavedRecording got = LoadRecordingFile(dir.Path("estimated.xrpm"));
  EXPECT_EQ(got.rec.frame_totals, FrameTotals::kEstimated);
  EXPECT_EQ(got, estimated);
  SaveRecordingFile(SampleRecording(), dir.Path("exact.xrpm"));
  EXPECT_EQ(LoadRecordingFile(dir.Path("exact.xrpm")).rec.frame_totals, FrameTotals::kExact);

  // Version 1: the same header without its last byte.
  auto parts = EncodeRecordingParts(estimated);
  formats::XrpmPart& h = PartOf(parts, "rhdr");
  ASSERT_EQ(h.data[0], 2) << "header version";
  h.data[0] = 1;
  h.data.resize(h.data.size() - 1);
  const SavedRecording old = ParseRecording(WriteRecording(parts), "old.xrpm");
  EXPECT_EQ(old.rec.frame_totals, FrameTotals::kExact);
  EXPECT_EQ(old, SampleRecording()) << "all else read as before";

  ExpectRefused(
      "rhdr", [](auto& p) { p.data[p.data.size() - 1] = 2; }, "bad-part",
      "frame totals 2, expected 0 (exact) or 1 (estimated from samples)");
}

TEST(RecordingFile, OlderReadersSkipThePartsAndSnapshotsAreNotRecordings) {
  const std::string bytes = WriteRecording(EncodeRecordingParts(SampleRecording()));
  const formats::XrpmContents c = formats::ReadXrpm(bytes, "rec.xrpm");  // wants no parts
  EXPECT_EQ(c.snapshot.object_count(), 0u);
  EXPECT_EQ(c.skipped.size(), RecordingPartTags().size());
  ASSERT_FALSE(c.skipped.empty());
  EXPECT_NE(c.skipped[0].find("skipped optional part 'rhdr'"), std::string::npos) << c.skipped[0];

  const Refusal r = Refuse(WriteRecording({}));
  EXPECT_EQ(r.d.code, "no-recording");
  EXPECT_NE(r.d.message.find("xrpm frames -o"), std::string::npos) << r.d.message;
}

TEST(RecordingFile, RefusesTruncatedAndCorruptFiles) {
  const std::string bytes = WriteRecording(EncodeRecordingParts(SampleRecording()));
  EXPECT_EQ(Refuse(bytes.substr(0, bytes.size() - 10)).d.code, "truncated");
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  EXPECT_EQ(Refuse(flipped).d.code, "checksum");
  EXPECT_EQ(Refuse("not an xrpm file at all").d.code, "bad-magic");
}

TEST(RecordingFile, RefusesPartsOutOfRangeNamingPartOffsetExpectedAndFound) {
  ExpectRefused(
      "rsst", [](auto& p) { SetU32(p, 1, 9); }, "bad-part",
      "sample 1 names stack 9, expected 0..3");
  ExpectRefused(
      "rsty", [](auto& p) { SetU32(p, 0, 3); }, "bad-part", "sample 0 names type 3, expected 0..2");
  ExpectRefused(
      "rstg", [](auto& p) { SetU32(p, 3, 5); }, "bad-part",
      "sample 3 names scope tag 5, expected 0..2");
  ExpectRefused(
      "rsty", [](auto& p) { p.data.resize(p.data.size() - 4); }, "bad-count",
      "3 values, expected 4 (the count of part 'rsfr')");
  ExpectRefused(
      "rfdu", [](auto& p) { p.width = 2; }, "bad-part", "width 2, expected 4");
  ExpectRefused(
      "rfnr", [](auto& p) { std::memset(p.data.data() + 8, 0, 8); }, "bad-part",
      "frame row 1 is frame 0, expected a frame after 10");
  // Blobs: the offset inside the blob, what was expected and what was found.
  ExpectRefused(
      "rhdr", [](auto& p) { p.data.resize(20); }, "bad-part", "at blob offset");
  ExpectRefused(
      "rhdr", [](auto& p) { p.data[0] = 0; }, "bad-part", "header version 0, expected 1 or later");
  ExpectRefused(
      "rmrk", [](auto& p) { p.data[5] = 7; }, "bad-part",
      "marker 0 of kind 7, expected 0 (marker) or 1 (capture request)");
}

TEST(RecordingFile, RefusesBadTablesAndMissingParts) {
  ExpectRefused(
      [](auto& r) {
        r.stacks[1] = {3, 4};
      },
      "rdef", "stack 2 names method 4, expected 1..3");
  ExpectRefused([](auto& r) { r.stacks[0].assign(33, 1); }, "rdef",
                "stack 1 of depth 33, expected at most 32");
  ExpectRefused([](auto& r) { r.tags[0].assign(129, 'x'); }, "rdef",
                "scope tag of 129 bytes, expected at most 128");
  ExpectRefused([](auto& r) { r.markers[1].text.assign(129, 'x'); }, "rmrk",
                "marker text of 129 bytes, expected at most 128");
  ExpectRefused([](auto& r) { r.sample_bytes = 10; }, "rhdr",
                "sample interval 10, expected 0 or 64..67108864");

  // Collection kinds that do not match the frame's collections (two kinds, one collection).
  ExpectRefused(
      [](auto& r) {
        r.frames[1].gc_kinds =
            protocol::AppendGcKind(r.frames[1].gc_kinds, 2, protocol::GcReason::kInduced);
      },
      "rfgk", "frame row 1: collection kinds");

  auto parts = EncodeRecordingParts(SampleRecording());
  std::erase_if(parts, [](const auto& p) { return p.tag == "rsfr"; });
  const Refusal r = Refuse(WriteRecording(parts));
  EXPECT_EQ(r.d.code, "missing-part");
  EXPECT_NE(r.d.message.find("but not its part 'rsfr'"), std::string::npos) << r.d.message;
}

}  // namespace
}  // namespace xrpm::formats
