// .xrpm corruption: every kind the reader documents (docs/FORMAT.md) gets a clear error naming the
// part and byte offset: truncation at each part boundary, a flipped byte in each part and in its
// block table, absurd counts, unknown parts, a newer version, malformed optional parts.
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

// ---- corruption ----

struct Part {
  std::string tag;
  uint64_t toc_at, offset, stored;
  uint32_t blocks;
};

uint64_t U64(const std::string& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
uint32_t U32(const std::string& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
void Put64(std::string& b, size_t at, uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
}
void Put32(std::string& b, size_t at, uint32_t v) {
  std::memcpy(b.data() + at, &v, 4);
}

std::vector<Part> Parts(const std::string& b) {
  std::vector<Part> v;
  const uint32_t n = U32(b, 12);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t at = 64 + 64 * i;
    v.push_back({b.substr(at, 4), at, U64(b, at + 16), U64(b, at + 24), U32(b, at + 32)});
  }
  return v;
}

// Recomputes the TOC and header checksums after an edit of the TOC.
void Reseal(std::string& b) {
  const uint32_t n = U32(b, 12);
  Put64(b, 24, XXH3_64bits(b.data() + 64, 64 * n));
  Put64(b, 56, XXH3_64bits(b.data(), 56));
}

// The InputError a read of `bytes` throws ("" if none).
std::string ErrorOf(const TempDir& t, const std::string& bytes, std::string* code = nullptr) {
  const std::string path = t.Path("bad.xrpm");
  WriteAll(path, bytes);
  try {
    formats::ReadXrpmFile(path);
  } catch (const InputError& e) {
    if (code) *code = e.diagnostic().code;
    return e.what();
  }
  return "";
}

class XrpmCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    Snapshot s = GameHeap(150000);  // two blocks in the 8-byte columns
    s.capture = SampleCapture(2);
    s.root_origins = {"thread 1 / Game1.Draw"};
    for (size_t i = 0; i < s.root_count(); i += 2) s.root_origin[i] = 0;
    std::mt19937_64 rng(4);
    AddOrigins(s, rng, false);
    formats::WriteXrpmFile(s, t_.Path("good.xrpm"));
    good_ = FileBytes(t_.Path("good.xrpm"));
    parts_ = Parts(good_);
    ASSERT_EQ(parts_.size(), 17u);
    ASSERT_EQ(parts_[16].tag, "OASI");
  }
  TempDir t_;
  std::string good_;
  std::vector<Part> parts_;
};

TEST_F(XrpmCorruption, TruncationAtEveryPartBoundaryNamesThePartCutOff) {
  for (size_t i = 0; i < parts_.size(); ++i) {
    const Part& p = parts_[i];
    for (uint64_t cut : {p.offset, p.offset + p.stored / 2, p.offset + p.stored - 1}) {
      if (cut >= good_.size() || (p.stored == 0 && cut != p.offset)) continue;
      std::string code;
      const std::string e = ErrorOf(t_, good_.substr(0, cut), &code);
      EXPECT_EQ(code, "truncated") << e;
      // The first part that does not fit is named: the one starting at the cut, unless it is
      // empty and an earlier one is cut.
      EXPECT_NE(e.find("truncated"), std::string::npos) << e;
      EXPECT_NE(e.find("at byte offset " + std::to_string(cut)), std::string::npos) << e;
      if (p.stored) {
        EXPECT_NE(e.find("part '" + p.tag + "'"), std::string::npos) << e;
      }
    }
  }
  std::string code;
  EXPECT_NE(ErrorOf(t_, good_.substr(0, 100), &code).find("table of contents"), std::string::npos);
  EXPECT_EQ(code, "truncated");
  EXPECT_NE(ErrorOf(t_, good_.substr(0, 20), &code).find("header"), std::string::npos);
  EXPECT_EQ(code, "truncated");
  EXPECT_NE(ErrorOf(t_, good_ + "x", &code).find("1 unexpected bytes after the end"),
            std::string::npos);
  EXPECT_EQ(code, "trailing-bytes");
}

TEST_F(XrpmCorruption, AFlippedByteInEachPartIsAChecksumErrorNamingThePart) {
  for (const Part& p : parts_) {
    if (p.stored == 0) continue;
    // In the first block's data, and in the block table at the end of the part.
    for (uint64_t at : {p.offset, p.offset + p.stored - 1}) {
      std::string b = good_;
      b[at] = static_cast<char>(b[at] ^ 0x20);
      std::string code;
      const std::string e = ErrorOf(t_, b, &code);
      EXPECT_EQ(code, "checksum") << e;
      EXPECT_NE(e.find("part '" + p.tag + "'"), std::string::npos) << e;
      EXPECT_NE(e.find("checksum mismatch"), std::string::npos) << e;
    }
  }
  for (uint64_t at : {uint64_t{20}, uint64_t{64 + 3}, uint64_t{64 + 64 * 5 + 10}}) {
    std::string b = good_;
    b[at] = static_cast<char>(b[at] ^ 1);
    std::string code;
    const std::string e = ErrorOf(t_, b, &code);
    EXPECT_EQ(code, "checksum") << e;
    EXPECT_NE(e.find(at < 64 ? "header checksum" : "table of contents checksum"), std::string::npos)
        << e;
  }
}

TEST_F(XrpmCorruption, AbsurdCountsAreRefusedBeforeAllocating) {
  for (const Part& p : parts_) {
    std::string b = good_;
    Put64(b, p.toc_at + 8, uint64_t{1} << 40);  // 2^40 values in the same blocks
    Reseal(b);
    std::string code;
    const std::string e = ErrorOf(t_, b, &code);
    EXPECT_EQ(code, "bad-count") << e;
    EXPECT_NE(e.find("part '" + p.tag + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("absurd count"), std::string::npos) << e;
  }
  // Blocks claiming a huge block table.
  std::string b = good_;
  const Part& refs = parts_[8];
  ASSERT_EQ(refs.tag, "REFS");
  Put32(b, refs.toc_at + 32, 0x7fffffff);
  Put32(b, refs.toc_at + 36, 1);
  Reseal(b);
  std::string code;
  EXPECT_NE(ErrorOf(t_, b, &code).find("absurd count"), std::string::npos);
  EXPECT_EQ(code, "bad-count");
  // Object columns that disagree.
  b = good_;
  const Part& types = parts_[5];
  ASSERT_EQ(types.tag, "OTYP");
  Put64(b, types.toc_at + 8, U64(b, types.toc_at + 8) - 1);
  Reseal(b);
  const std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "bad-count") << e;
}

TEST_F(XrpmCorruption, AbsurdCountInsideAMetadataPartNamesIt) {
  // A snapshot without origins: RORG is the 4-byte count 0, stored raw. Claim 2^32-1 origins
  // and re-seal every checksum, so only the count check can catch it.
  formats::WriteXrpmFile(GameHeap(100), t_.Path("small.xrpm"));
  std::string b = FileBytes(t_.Path("small.xrpm"));
  const std::vector<Part> ps = Parts(b);
  const Part& rorg = ps[2];
  ASSERT_EQ(rorg.tag, "RORG");
  ASSERT_EQ(rorg.stored, 4u + 16u);
  Put32(b, rorg.offset, 0xffffffffu);
  Put64(b, rorg.offset + 4 + 8, XXH3_64bits(b.data() + rorg.offset, 4));    // block checksum
  Put64(b, rorg.toc_at + 40, XXH3_64bits(b.data() + rorg.offset + 4, 16));  // table checksum
  Reseal(b);
  std::string code;
  const std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "bad-part") << e;
  EXPECT_NE(e.find("part 'RORG'"), std::string::npos) << e;
  EXPECT_NE(e.find("a count of 4294967295 records"), std::string::npos) << e;
}

TEST_F(XrpmCorruption, TypeFinalizersNamingNoTypeAreRefused) {
  // TFIN lists types 1 and 3, stored raw (version, count, two indices); make the second name a
  // type the file does not have and re-seal every checksum, so only the check can catch it.
  Snapshot s = GameHeap(100);
  s.types[1].has_finalizer = s.types[3].has_finalizer = true;
  formats::WriteXrpmFile(s, t_.Path("fin.xrpm"));
  std::string b = FileBytes(t_.Path("fin.xrpm"));
  const std::vector<Part> ps = Parts(b);
  const Part& fin = ps[2];
  ASSERT_EQ(fin.tag, "TFIN");
  const uint64_t bytes = 1 + 4 + 2 * 4;
  ASSERT_EQ(fin.stored, bytes + 16u);
  Put32(b, fin.offset + 9, 0xfffffff0u);
  Put64(b, fin.offset + bytes + 8, XXH3_64bits(b.data() + fin.offset, bytes));  // block
  Put64(b, fin.toc_at + 40, XXH3_64bits(b.data() + fin.offset + bytes, 16));    // table
  Reseal(b);
  std::string code;
  const std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "bad-part") << e;
  EXPECT_NE(e.find("part 'TFIN'"), std::string::npos) << e;
  EXPECT_NE(e.find("names type 4294967280"), std::string::npos) << e;
}

TEST_F(XrpmCorruption, TypeTraitsOfAnUnknownKindAreRefused) {
  // TTRT holds one entry (type 0, a class), stored raw: version, count, index, kind, rank, two
  // empty strings. Make the kind 9 and re-seal every checksum, so only the check can catch it.
  Snapshot s = GameHeap(100);
  s.types[0].traits.kind = TypeKind::kClass;
  formats::WriteXrpmFile(s, t_.Path("traits.xrpm"));
  std::string b = FileBytes(t_.Path("traits.xrpm"));
  const std::vector<Part> ps = Parts(b);
  const Part& tr = ps[2];
  ASSERT_EQ(tr.tag, "TTRT");
  const uint64_t bytes = 1 + 4 + 4 + 1 + 4 + 4 + 4;
  ASSERT_EQ(tr.stored, bytes + 16u);
  b[tr.offset + 9] = 9;
  Put64(b, tr.offset + bytes + 8, XXH3_64bits(b.data() + tr.offset, bytes));  // block
  Put64(b, tr.toc_at + 40, XXH3_64bits(b.data() + tr.offset + bytes, 16));    // table
  Reseal(b);
  std::string code;
  const std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "bad-part") << e;
  EXPECT_NE(e.find("part 'TTRT'"), std::string::npos) << e;
  EXPECT_NE(e.find("has kind 9, expected 1..4"), std::string::npos) << e;
}

TEST_F(XrpmCorruption, NewerMajorVersionNamesBothVersions) {
  std::string b = good_;
  b[8] = 2;  // major 2
  b[10] = 7;
  std::string code;
  std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "newer-version");
  EXPECT_NE(e.find("format version 2.7, newer than this reader's 1." +
                   std::to_string(formats::kXrpmMinorVersion)),
            std::string::npos)
      << e;
  // A newer minor version of the same major reads.
  b = good_;
  b[10] = 9;
  Reseal(b);
  EXPECT_EQ(ErrorOf(t_, b), "");
}

TEST_F(XrpmCorruption, UnknownRequiredPartIsRefusedUnknownOptionalSkipped) {
  formats::XrpmWriteOptions w;
  w.extra_parts.push_back(formats::XrpmPart::Blob("futr", "from a newer xrpm", true));
  formats::WriteXrpmFile(GameHeap(10), t_.Path("req.xrpm"), w);
  std::string code;
  const std::string e = ErrorOf(t_, FileBytes(t_.Path("req.xrpm")), &code);
  EXPECT_EQ(code, "unknown-part");
  EXPECT_NE(e.find("part 'futr'"), std::string::npos) << e;
  EXPECT_NE(e.find("needs a newer xrpm"), std::string::npos) << e;
  // The same part marked optional (flag byte cleared, re-sealed) is skipped with a notice.
  std::string b = FileBytes(t_.Path("req.xrpm"));
  const std::vector<Part> ps = Parts(b);
  b[ps.back().toc_at + 4] = 0;
  Reseal(b);
  WriteAll(t_.Path("opt.xrpm"), b);
  formats::XrpmContents c = formats::ReadXrpmFile(t_.Path("opt.xrpm"));
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_NE(c.skipped[0].find("'futr'"), std::string::npos);
  EXPECT_TRUE(c.snapshot == GameHeap(10));
}

// Owner deltas (transform 2) decode against the object ids and reference ends, which only part
// 'REFS' has: any other 8-byte part claiming it is refused at the table of contents. A column
// the reader keeps as an extra part was decoded with no reference ends and read a null pointer
// (found by fuzz_recording; its input is in tests/data/fuzz/recording).
TEST_F(XrpmCorruption, OwnerDeltaOnAnyPartButReferencesIsRefused) {
  for (const char* tag : {"OBID", "OREF", "RTOB"}) {
    std::string b = good_;
    const auto p =
        std::find_if(parts_.begin(), parts_.end(), [&](const Part& q) { return q.tag == tag; });
    ASSERT_NE(p, parts_.end()) << tag;
    b[p->toc_at + 6] = 2;
    Reseal(b);
    std::string code;
    const std::string e = ErrorOf(t_, b, &code);
    EXPECT_EQ(code, "bad-toc") << e;
    EXPECT_NE(e.find(std::string("part '") + tag + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("owner delta) is for part 'REFS' only"), std::string::npos) << e;
  }
  // An optional part the reader does not know, kept as an extra part.
  formats::XrpmWriteOptions w;
  std::vector<uint64_t> v(300, 7);
  w.extra_parts.push_back(
      formats::XrpmPart::Column<uint64_t>("futr", v, false, formats::XrpmTransform::kDelta));
  formats::WriteXrpmFile(GameHeap(10), t_.Path("x.xrpm"), w);
  std::string b = FileBytes(t_.Path("x.xrpm"));
  b[Parts(b).back().toc_at + 6] = 2;
  Reseal(b);
  std::string code;
  const std::string e = ErrorOf(t_, b, &code);
  EXPECT_EQ(code, "bad-toc") << e;
  EXPECT_NE(e.find("part 'futr'"), std::string::npos) << e;
}

TEST_F(XrpmCorruption, NotAnXrpmFile) {
  std::string code;
  EXPECT_NE(ErrorOf(t_, "a 2 bubbles.exe\n" + std::string(100, ' '), &code).find("not an .xrpm"),
            std::string::npos);
  EXPECT_EQ(code, "bad-magic");
  EXPECT_NE(ErrorOf(t_, "", &code).find("not an .xrpm"), std::string::npos);
}

// A reader of format 1.0 does not know ASIT, OAFR and OASI: renamed to tags this reader does not
// know either, they are skipped as optional parts and the snapshot reads without origins.
TEST_F(XrpmCorruption, AReaderThatDoesNotKnowTheOriginPartsSkipsThem) {
  std::string b = good_;
  for (size_t i = 14; i < 17; ++i) b[parts_[i].toc_at] = 'x';
  Reseal(b);
  WriteAll(t_.Path("old.xrpm"), b);
  const formats::XrpmContents c = formats::ReadXrpmFile(t_.Path("old.xrpm"));
  ASSERT_EQ(c.skipped.size(), 3u);
  EXPECT_NE(c.skipped[0].find("skipped optional part 'xSIT'"), std::string::npos) << c.skipped[0];
  EXPECT_FALSE(c.snapshot.has_origins());
  EXPECT_TRUE(c.snapshot.object_alloc_site.empty());
  const formats::XrpmContents full = formats::ReadXrpmFile(t_.Path("good.xrpm"));
  Snapshot without = full.snapshot;
  without.origins.reset();
  without.object_alloc_frame.clear();
  without.object_alloc_site.clear();
  EXPECT_TRUE(c.snapshot == without);
}

// An ASIT blob (docs/FORMAT.md): version 1, capture frame 77, complete, no methods, no sites.
std::string EmptySites() {
  std::string b(1 + 8 + 4 + 4 + 4, '\0');
  b[0] = 1;
  Put64(b, 1, 77);
  return b;
}

TEST_F(XrpmCorruption, OriginPartsAreValidated) {
  std::string code;
  auto error_of = [&](const Snapshot& s, const formats::XrpmWriteOptions& w = {}) {
    formats::WriteXrpmFile(s, t_.Path("o.xrpm"), w);
    return ErrorOf(t_, FileBytes(t_.Path("o.xrpm")), &code);
  };
  Snapshot s = GameHeap(500);
  std::mt19937_64 rng(9);
  AddOrigins(s, rng, false);
  s.object_alloc_site[321] = 4;  // of 4 sites
  std::string e = error_of(s);
  EXPECT_EQ(code, "bad-part") << e;
  EXPECT_NE(e.find("part 'OASI'"), std::string::npos) << e;
  EXPECT_NE(e.find("object 321 names allocation site 4 of 4"), std::string::npos) << e;

  s.object_alloc_site[321] = kUnknownSite;
  s.origins->sites[3].methods[1] = 5;  // of 5 methods
  e = error_of(s);
  EXPECT_EQ(code, "bad-part") << e;
  EXPECT_NE(e.find("part 'ASIT'"), std::string::npos) << e;
  EXPECT_NE(e.find("site 3"), std::string::npos) << e;
  EXPECT_NE(e.find("names method 5 of 5"), std::string::npos) << e;

  // Some of the three parts without the others, or columns of another length.
  const Snapshot plain = GameHeap(500);
  formats::XrpmWriteOptions w;
  w.extra_parts.push_back(formats::XrpmPart::Blob("ASIT", EmptySites()));
  e = error_of(plain, w);
  EXPECT_EQ(code, "missing-part") << e;
  EXPECT_NE(e.find("'ASIT', 'OAFR', 'OASI' but not all three"), std::string::npos) << e;
  std::vector<uint32_t> frames(plain.object_count() - 1), sites(plain.object_count(), kUnknownSite);
  w.extra_parts.push_back(
      formats::XrpmPart::Column<uint32_t>("OAFR", frames, false, formats::XrpmTransform::kDelta));
  w.extra_parts.push_back(formats::XrpmPart::Column<uint32_t>("OASI", sites));
  e = error_of(plain, w);
  EXPECT_EQ(code, "bad-count") << e;
  EXPECT_NE(e.find("part 'OAFR'"), std::string::npos) << e;
  // The same parts with the right length read as origins that are all unknown.
  frames.push_back(0);
  w.extra_parts[1] =
      formats::XrpmPart::Column<uint32_t>("OAFR", frames, false, formats::XrpmTransform::kDelta);
  EXPECT_EQ(error_of(plain, w), "");
  const Snapshot back = formats::ReadXrpmFile(t_.Path("o.xrpm")).snapshot;
  ASSERT_TRUE(back.has_origins());
  EXPECT_EQ(back.origins->capture_frame, 77u);
  EXPECT_FALSE(back.origin_known(0));
}

// A type's sample multiplier must be a finite number >= 0 (as .gcdump's): a NaN one read from a
// file made the snapshot unequal to itself (found by fuzz_xrpm; its input is in
// tests/data/fuzz/xrpm).
TEST_F(XrpmCorruption, ASampleMultiplierThatIsNotAFiniteNumberIsRefused) {
  std::string code;
  Snapshot s = GameHeap(500);
  for (const float bad : {std::nanf(""), -1.0f, std::numeric_limits<float>::infinity()}) {
    s.types[3].sample_multiplier = bad;
    formats::WriteXrpmFile(s, t_.Path("m.xrpm"));
    const std::string e = ErrorOf(t_, FileBytes(t_.Path("m.xrpm")), &code);
    EXPECT_EQ(code, "bad-part") << e;
    EXPECT_NE(e.find("part 'TYPE'"), std::string::npos) << e;
    EXPECT_NE(e.find("type 3 has sample multiplier"), std::string::npos) << e;
    EXPECT_NE(e.find("expected a finite number >= 0"), std::string::npos) << e;
  }
  s.types[3].sample_multiplier = 0.5f;
  formats::WriteXrpmFile(s, t_.Path("m.xrpm"));
  EXPECT_EQ(ErrorOf(t_, FileBytes(t_.Path("m.xrpm")), &code), "");
}

}  // namespace
}  // namespace xrpm
