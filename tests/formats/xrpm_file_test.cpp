// .xrpm files: lossless round trips (random models with capture metadata and root origins, the
// realistic game heap, extra parts, the optional parts of finalizers and type traits) and
// .gclog -> .xrpm -> .gclog byte identity. Corruption: xrpm_corruption_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "file_bytes.h"
#include "netcf_gen.h"
#include "temp_dir.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm_test_models.h"

namespace xrpm {
namespace {

using testing::AddOrigins;
using testing::FileBytes;
using testing::GameHeap;
using testing::RichModel;
using testing::SampleCapture;
using testing::TempDir;
using testing::WriteAll;

TEST(XrpmFile, RandomModelsRoundTripInEveryField) {
  TempDir t;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Snapshot s = RichModel(seed);
    const std::string path = t.Path("m.xrpm");
    formats::WriteXrpmFile(s, path);
    formats::XrpmContents c = formats::ReadXrpmFile(path);
    ASSERT_TRUE(c.snapshot == s) << "seed " << seed;
    EXPECT_EQ(c.snapshot.capture.has_value(), s.capture.has_value());
    EXPECT_TRUE(c.skipped.empty());
    EXPECT_EQ(c.major, formats::kXrpmMajorVersion);
  }
}

// A snapshot walk's walk after the pause is CAPT field 27, written only after a
// snapshot walk; a file from before it (the fuzz seed random-1.xrpm, written by the 1.3 writer
// without the field) reads as a paused walk with its other figures intact.
TEST(XrpmFile, WalkAfterThePauseRoundTripsAndOlderFilesReadAsAPausedWalk) {
  TempDir t;
  Snapshot s = GameHeap(200);
  s.capture = SampleCapture(0);
  for (const uint64_t after : {uint64_t{0}, uint64_t{1}, uint64_t{1'400'000}, UINT64_MAX}) {
    s.capture->walk_after_pause_us = after;
    formats::WriteXrpmFile(s, t.Path("w.xrpm"));
    const formats::XrpmContents c = formats::ReadXrpmFile(t.Path("w.xrpm"));
    ASSERT_TRUE(c.snapshot.capture.has_value());
    EXPECT_EQ(c.snapshot.capture->walk_after_pause_us, after);
    EXPECT_EQ(c.snapshot.capture->snapshot_walk(), after != 0);
    EXPECT_TRUE(c.snapshot == s) << after;
  }
  const formats::XrpmContents old =
      formats::ReadXrpmFile(std::string(XRPM_TEST_DATA) + "/../fuzz/corpus/xrpm/random-1.xrpm");
  ASSERT_TRUE(old.snapshot.capture.has_value());
  EXPECT_EQ(old.snapshot.capture->walk_after_pause_us, 0u);
  EXPECT_FALSE(old.snapshot.capture->snapshot_walk());
  EXPECT_EQ(old.snapshot.capture->pause_us, 1234u);  // as that seed was written
}

TEST(XrpmFile, AllocationOriginsRoundTripAcrossBlocksAndAreOptionalParts) {
  TempDir t;
  for (const bool sampled : {false, true}) {
    Snapshot s = GameHeap(300000);  // several blocks per column
    std::mt19937_64 rng(sampled);
    AddOrigins(s, rng, sampled);
    const std::string path = t.Path("o.xrpm");
    formats::WriteXrpmFile(s, path, {.threads = 3});
    const formats::XrpmContents c = formats::ReadXrpmFile(path, {.threads = 2});
    ASSERT_TRUE(c.snapshot == s);
    ASSERT_TRUE(c.snapshot.has_origins());
    EXPECT_EQ(c.snapshot.origins->sample_bytes, sampled ? 16384u : 0u);
    EXPECT_EQ(c.snapshot.object_alloc_site, s.object_alloc_site);
    EXPECT_EQ(c.snapshot.object_alloc_frame, s.object_alloc_frame);
    EXPECT_EQ(c.minor, formats::kXrpmMinorVersion);
    int found = 0;
    for (const formats::XrpmPartInfo& p : formats::ListXrpmParts(path)) {
      if (p.tag != "ASIT" && p.tag != "OAFR" && p.tag != "OASI") continue;
      ++found;
      EXPECT_FALSE(p.required) << p.tag;  // older readers skip them
      EXPECT_TRUE(p.known) << p.tag;
      if (p.tag != "ASIT") {
        EXPECT_EQ(p.count, s.object_count());
        EXPECT_GT(p.blocks, 1u);
      }
    }
    EXPECT_EQ(found, 3);
  }
}

TEST(XrpmFile, FilesWithoutOriginsReadWithOriginsAbsent) {
  TempDir t;
  const Snapshot s = GameHeap(1000);
  const std::string path = t.Path("plain.xrpm");
  formats::WriteXrpmFile(s, path);
  const formats::XrpmContents c = formats::ReadXrpmFile(path);
  EXPECT_FALSE(c.snapshot.has_origins());
  EXPECT_TRUE(c.snapshot.object_alloc_frame.empty());
  EXPECT_TRUE(c.snapshot.object_alloc_site.empty());
  for (const formats::XrpmPartInfo& p : formats::ListXrpmParts(path)) EXPECT_NE(p.tag, "OASI");
}

TEST(XrpmFile, OriginColumnsOfTheWrongLengthAreRefusedBeforeWriting) {
  TempDir t;
  Snapshot s = GameHeap(100);
  std::mt19937_64 rng(1);
  AddOrigins(s, rng, false);
  s.object_alloc_site.pop_back();
  const std::string path = t.Path("bad.xrpm");
  EXPECT_THROW(formats::WriteXrpmFile(s, path), std::invalid_argument);
  EXPECT_EQ(access(path.c_str(), F_OK), -1);
}

TEST(XrpmFile, OperatorEqualsSeesCaptureMetadataAndOrigins) {
  Snapshot a = RichModel(1), b = a;
  ASSERT_TRUE(a == b);
  b.capture->pause_us += 1;
  EXPECT_FALSE(a == b);
  b = a;
  b.capture.reset();
  EXPECT_FALSE(a == b);
  b = a;
  b.root_origins.push_back("x");
  EXPECT_FALSE(a == b);
  ASSERT_TRUE(a.has_origins());
  b = a;
  b.object_alloc_frame[0] ^= 1;
  EXPECT_FALSE(a == b);
  b = a;
  b.origins->capture_frame += 1;
  EXPECT_FALSE(a == b);
}

// The references are stored as deltas from their owner's id: blocks of a few references cut
// the owners' ranges anywhere, and runs of objects without references (whose ids the decoder
// skips over) fall at a block's start, middle and end.
TEST(XrpmFile, ReferencesRoundTripInBlocksThatCutTheirOwnersAnywhere) {
  TempDir t;
  size_t runs_without_refs = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const Snapshot s = RichModel(seed);
    for (size_t i = 1; i < s.object_count(); ++i)
      runs_without_refs += s.ref_begin(i) == s.ref_end[i] && s.ref_begin(i - 1) == s.ref_end[i - 1];
    for (const uint32_t block_bytes : {8u, 24u, 56u, 4096u}) {
      const std::string path = t.Path("b.xrpm");
      formats::XrpmWriteOptions w;
      w.block_bytes = block_bytes;
      formats::WriteXrpmFile(s, path, w);
      const formats::XrpmContents c = formats::ReadXrpmFile(path, {.threads = 2});
      ASSERT_TRUE(c.snapshot == s) << "seed " << seed << ", blocks of " << block_bytes << " bytes";
    }
  }
  EXPECT_GT(runs_without_refs, 0u);
}

TEST(XrpmFile, MultiBlockHeapRoundTripsOnAnyThreadCount) {
  TempDir t;
  Snapshot s = GameHeap(300000);  // > 131072 objects: several blocks per column
  s.capture = SampleCapture(3);
  const std::string path = t.Path("g.xrpm");
  formats::WriteXrpmFile(s, path, {.threads = 3});
  for (unsigned threads : {1u, 2u, 5u}) {
    formats::XrpmContents c = formats::ReadXrpmFile(path, {.threads = threads});
    EXPECT_TRUE(c.snapshot == s) << threads << " threads";
  }
  bool multi = false;
  for (const formats::XrpmPartInfo& p : formats::ListXrpmParts(path))
    multi |= p.tag == "OBID" && p.blocks > 1;
  EXPECT_TRUE(multi);
}

TEST(XrpmFile, GclogToXrpmToGclogIsByteIdentical) {
  TempDir t;
  std::string text;
  testing::WriteGameHeap(50000, 3, [&](std::string_view b) { text.append(b); });
  std::mt19937_64 rng(11);
  for (int k = 0; k < 12; ++k) {
    const std::string gclog = t.Path("in.gclog"), xrpm = t.Path("mid.xrpm"),
                      back = t.Path("back.gclog");
    if (k > 0) {  // random models in canonical form (several sections, placeholders, ...)
      text.clear();
      formats::WriteNetcf(testing::RandomModel(rng), [&](std::string_view b) { text.append(b); });
    }
    WriteAll(gclog, text);
    Diagnostics d1, d2;
    formats::SaveSnapshot(formats::LoadSnapshot(gclog, d1), xrpm);  // format by extension
    EXPECT_EQ(formats::FormatForPath(xrpm, true)->name, "xrpm");
    formats::SaveSnapshot(formats::LoadSnapshot(xrpm, d2), back);
    ASSERT_EQ(FileBytes(back), text) << "case " << k;
  }
}

// .NET heaps keep what only .gcdump says: each type's module and, for sampled dumps, its
// sample multiplier.
TEST(XrpmFile, GcdumpHeapsRoundTripWithModulesAndSampleMultipliers) {
  TempDir t;
  const std::string dir = XRPM_TEST_DATA;
  bool sampled = false;
  for (const std::string& in :
       {dir + "/gcdump/perfview-test1.gcdump", dir + "/gcdump/sample-monovm.gcdump",
        dir + "/../fuzz/corpus/gcdump/sampled.gcdump"}) {
    Diagnostics d;
    const Snapshot s = formats::LoadSnapshot(in, d);
    ASSERT_GT(s.object_count(), 0u) << in;
    sampled |= s.sampled();
    const std::string path = t.Path("n.xrpm");
    formats::SaveSnapshot(s, path);
    Diagnostics d2;
    EXPECT_TRUE(formats::LoadSnapshot(path, d2) == s) << in;
  }
  EXPECT_TRUE(sampled);
}

TEST(XrpmFile, DetectedByContentWhateverTheExtension) {
  TempDir t;
  const std::string path = t.Path("looks-like.gclog");
  formats::WriteXrpmFile(RichModel(5), path);
  EXPECT_EQ(formats::FormatForPath(path, true)->name, "xrpm");
  Diagnostics d;
  EXPECT_TRUE(formats::LoadSnapshot(path, d) == RichModel(5));
}

TEST(XrpmFile, ExtraPartsRoundTripAndUnknownOptionalOnesAreSkippedWithANotice) {
  TempDir t;
  const Snapshot s = GameHeap(2000);
  std::vector<uint64_t> seq(s.object_count());
  std::vector<uint32_t> site(s.object_count());
  for (size_t i = 0; i < seq.size(); ++i) {
    seq[i] = 1000 + i * 3;
    site[i] = static_cast<uint32_t>(i % 17);
  }
  formats::XrpmWriteOptions w;
  w.extra_parts.push_back(
      formats::XrpmPart::Column<uint64_t>("aseq", seq, false, formats::XrpmTransform::kDelta));
  w.extra_parts.push_back(formats::XrpmPart::Column<uint32_t>("asit", site));
  w.extra_parts.push_back(formats::XrpmPart::Blob("rfrm", std::string(100000, 'x') + "end"));
  const std::string path = t.Path("x.xrpm");
  formats::WriteXrpmFile(s, path, w);

  // A reader that knows none of them: the snapshot, and a notice per skipped part.
  formats::XrpmContents plain = formats::ReadXrpmFile(path);
  EXPECT_TRUE(plain.snapshot == s);
  ASSERT_EQ(plain.skipped.size(), 3u);
  EXPECT_NE(plain.skipped[0].find("skipped optional part 'aseq'"), std::string::npos)
      << plain.skipped[0];
  Diagnostics d;
  EXPECT_TRUE(formats::LoadSnapshot(path, d) == s);
  ASSERT_EQ(d.total(), 3u);
  EXPECT_EQ(d.kept()[2].code, "skipped-part");

  // A reader that asks for two of them.
  formats::XrpmContents c = formats::ReadXrpmFile(path, {.wanted = {"asit", "rfrm"}});
  ASSERT_EQ(c.parts.size(), 2u);
  EXPECT_EQ(c.parts[0].tag, "asit");
  ASSERT_EQ(c.parts[0].values<uint32_t>().size(), site.size());
  EXPECT_TRUE(std::equal(site.begin(), site.end(), c.parts[0].values<uint32_t>().begin()));
  EXPECT_EQ(c.parts[1].tag, "rfrm");
  EXPECT_EQ(std::string(c.parts[1].data.begin(), c.parts[1].data.end()),
            std::string(100000, 'x') + "end");
  ASSERT_EQ(c.skipped.size(), 1u);
  formats::XrpmContents all = formats::ReadXrpmFile(path, {.wanted = {"aseq"}});
  ASSERT_EQ(all.parts.size(), 1u);
  EXPECT_TRUE(std::equal(seq.begin(), seq.end(), all.parts[0].values<uint64_t>().begin()));
}

TEST(XrpmFile, MalformedExtraPartsAreRefusedBeforeWriting) {
  TempDir t;
  const std::string path = t.Path("bad.xrpm");
  auto write_with = [&](formats::XrpmPart p) {
    formats::XrpmWriteOptions w;
    w.extra_parts.push_back(std::move(p));
    formats::WriteXrpmFile(RichModel(1), path, w);
  };
  EXPECT_THROW(write_with(formats::XrpmPart::Blob("toolong", "x")), std::invalid_argument);
  EXPECT_THROW(write_with(formats::XrpmPart::Blob("OBID", "x")),
               std::invalid_argument);  // duplicate
  formats::XrpmPart odd = formats::XrpmPart::Blob("odd1", "abc");
  odd.width = 2;
  EXPECT_THROW(write_with(std::move(odd)), std::invalid_argument);
  EXPECT_EQ(access(path.c_str(), F_OK), -1) << "no file, not even a half-written one";
}

// Type finalizers (TFIN, format 1.3): written only when some type has one, read back into
// TypeInfo::has_finalizer; a file without the part (older writers) reads with none.
TEST(XrpmFile, TypeFinalizersAreAnOptionalPart) {
  TempDir t;
  Snapshot s = GameHeap(100);
  ASSERT_GT(s.types.size(), 3u);
  formats::WriteXrpmFile(s, t.Path("none.xrpm"));
  for (const Part& p : Parts(FileBytes(t.Path("none.xrpm")))) EXPECT_NE(p.tag, "TFIN");
  s.types[1].has_finalizer = s.types[3].has_finalizer = true;
  formats::WriteXrpmFile(s, t.Path("fin.xrpm"));
  const formats::XrpmContents c = formats::ReadXrpmFile(t.Path("fin.xrpm"));
  EXPECT_TRUE(c.snapshot == s);
  EXPECT_TRUE(c.snapshot.types[1].has_finalizer);
  EXPECT_FALSE(c.snapshot.types[2].has_finalizer);
  const formats::XrpmContents old = formats::ReadXrpmFile(t.Path("none.xrpm"));
  for (const TypeInfo& ti : old.snapshot.types) EXPECT_FALSE(ti.has_finalizer) << ti.name;
}

// Type traits (TTRT, format 1.4): each kind round-trips; written only when some type's kind is
// known, so a snapshot of a source without traits (or an older file) reads with none.
TEST(XrpmFile, TypeTraitsAreAnOptionalPart) {
  TempDir t;
  Snapshot s = GameHeap(100);
  ASSERT_GT(s.types.size(), 4u);
  formats::WriteXrpmFile(s, t.Path("none.xrpm"));
  for (const Part& p : Parts(FileBytes(t.Path("none.xrpm")))) EXPECT_NE(p.tag, "TTRT");
  EXPECT_FALSE(formats::ReadXrpmFile(t.Path("none.xrpm")).snapshot.has_type_traits());
  s.types[0].traits.kind = TypeKind::kClass;
  s.types[1].traits.kind = TypeKind::kValueType;
  s.types[2].traits = {TypeKind::kEnum, 0, "System.Byte", ""};
  s.types[3].traits = {TypeKind::kArray, 2, "", "System.Int32"};
  s.types[4].traits = {TypeKind::kArray, 1, "", ""};  // element not said
  formats::WriteXrpmFile(s, t.Path("traits.xrpm"));
  const formats::XrpmContents c = formats::ReadXrpmFile(t.Path("traits.xrpm"));
  EXPECT_TRUE(c.snapshot == s);
  EXPECT_TRUE(c.snapshot.has_type_traits());
  EXPECT_EQ(c.snapshot.types[3].traits.array_rank, 2u);
  EXPECT_EQ(DescribeTypeTraits(c.snapshot.types[3].traits, false), "array rank 2 of System.Int32");
  EXPECT_EQ(DescribeTypeTraits(c.snapshot.types[2].traits, true),
            "enum of System.Byte, has finalizer");
  EXPECT_FALSE(c.snapshot.types[5].traits.known());
}

}  // namespace
}  // namespace xrpm
