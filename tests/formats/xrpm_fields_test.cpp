// .xrpm object-content parts (formats 1.2 and 1.3): layouts, reference slots, root
// labels and values round-trip; files without them still open, and so do 1.2 files with u64
// value ends; each kind of bad content is refused naming the part and what was expected and
// found.
#include <gtest/gtest.h>

#include <string>

#include "fields_game.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/object_fields.h"

namespace xrpm {
namespace {

using namespace formats;

// Small blocks so that every part has several.
std::string Write(const Snapshot& s, std::vector<XrpmPart> extra = {}) {
  XrpmWriteOptions w;
  w.block_bytes = 16;
  w.extra_parts = std::move(extra);
  return WriteXrpm(s, w);
}

std::string ReadError(const std::string& bytes) {
  try {
    ReadXrpm(bytes, "t.xrpm");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(XrpmFields, ContentsRoundTripInEveryField) {
  const Snapshot s = testing::MakeFieldsGame();
  const std::string bytes = Write(s);
  const XrpmContents c = ReadXrpm(bytes, "t.xrpm");
  EXPECT_TRUE(c.skipped.empty());
  EXPECT_EQ(c.minor, formats::kXrpmMinorVersion);
  EXPECT_TRUE(c.snapshot == s);
  EXPECT_EQ(c.snapshot.fields.layouts[3].fields[5].value_offset,
            s.fields.layouts[3].fields[5].value_offset);
  const auto str = StringOf(c.snapshot, 8);
  ASSERT_TRUE(str);
  EXPECT_TRUE(str->cut);
  EXPECT_EQ(str->full_length, 20u);
  EXPECT_EQ(c.snapshot.fields.label_of_root(1), "Bubbles.GameEvents.Popped");
  EXPECT_EQ(c.snapshot.fields.string_cap, 8u);
  EXPECT_TRUE(c.snapshot.fields.values_captured);
}

TEST(XrpmFields, EachGroupIsOptionalAndFilesWithoutThemOpen) {
  Snapshot s = testing::MakeFieldsGame();
  s.fields.values.clear();  // a --no-values capture: layouts, slots and labels only
  s.fields.values_captured = false;
  const XrpmContents a = ReadXrpm(Write(s), "t.xrpm");
  EXPECT_TRUE(a.snapshot == s);
  EXPECT_FALSE(a.snapshot.fields.has_values());
  EXPECT_TRUE(a.snapshot.fields.has_slots());
  s.fields.Clear();  // as a 1.1 writer wrote it
  const XrpmContents b = ReadXrpm(Write(s), "t.xrpm");
  EXPECT_FALSE(b.snapshot.fields.present());
  EXPECT_TRUE(b.snapshot == s);
}

TEST(XrpmFields, TheContentPartsAreOptionalSoOlderReadersSkipThem) {
  const std::string bytes = Write(testing::MakeFieldsGame());
  for (const char* tag : {"FLAY", "RSLT", "RLBL", "RTLB", "VLEN", "VBYT"}) {
    const size_t at = bytes.find(tag);
    ASSERT_NE(at, std::string::npos) << tag;
    EXPECT_EQ(bytes[at + 4] & 1, 0) << tag << " must not be required";
  }
}

TEST(XrpmFields, BadContentIsRefusedNamingThePartAndObject) {
  auto refused = [](void (*mutate)(Snapshot&), const std::string& part, const std::string& what) {
    Snapshot s = testing::MakeFieldsGame();
    mutate(s);
    const std::string e = ReadError(Write(s));
    EXPECT_NE(e.find("part '" + part + "'"), std::string::npos) << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
    EXPECT_NE(e.find("[bad-part]"), std::string::npos) << e;
  };
  refused([](Snapshot& s) { s.fields.ref_slot[0] = 9; }, "RSLT",
          "object 0x1000 (type 0): reference 0 names field 9, expected a reference field");
  refused([](Snapshot& s) { s.fields.layouts[0].fields[2].offset = 40; }, "FLAY",
          "field 'paused' at offset 40 lies outside the object's 24 bytes");
  refused([](Snapshot& s) { s.fields.root_label[1] = 7; }, "RTLB", "names label 7 of 2");
  refused(
      [](Snapshot& s) {
        testing::ReplaceValues(s, 7, HeapFields::EncodeString("Bubble 1", 300, false));
      },
      "VLEN", "object 0x1540 (type 4): string length 300 beyond the object's 32 bytes");
  refused([](Snapshot& s) { s.fields.layouts[3].fields[5].underlying = FieldKind::kDouble; },
          "FLAY", "field 'state': an enum of kind Double, expected an integer kind");
}

TEST(XrpmFields, APartWithoutTheOneItNeedsIsRefused) {
  Snapshot s = testing::MakeFieldsGame();
  const PodVector<uint32_t> slots = s.fields.ref_slot;
  s.fields.Clear();
  const std::string bytes =
      Write(s, {XrpmPart::Column<uint32_t>("RSLT", slots.span(), false, XrpmTransform::kNone)});
  const std::string e = ReadError(bytes);
  EXPECT_NE(e.find("has part 'RSLT' but not 'FLAY'"), std::string::npos) << e;
  EXPECT_NE(e.find("[missing-part]"), std::string::npos) << e;
}

Snapshot WithoutValues(Snapshot s) {
  s.fields.values.clear();
  return s;
}

std::string_view BytesOf(const PodVector<uint8_t>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};
}

// Format 1.2's values, u64 ends (OVAL) and bytes (VDAT), laid out through the extension API as
// 1.2's writer wrote them; `zero_end` sets object 3's end to 0.
std::vector<XrpmPart> Format12Values(const Snapshot& s, bool zero_end = false) {
  PodVector<uint64_t> ends;
  uint64_t at = 0;
  for (size_t i = 0; i < s.object_count(); ++i) ends.push_back(at += s.fields.values_of(i).size());
  if (zero_end) ends[3] = 0;
  return {XrpmPart::Column<uint64_t>("OVAL", ends.span(), false, XrpmTransform::kDelta),
          XrpmPart::Blob("VDAT", BytesOf(s.fields.values.data))};
}

// Format 1.3's values with object 3's length moved by `bump`.
std::vector<XrpmPart> Format13Values(const Snapshot& s, int32_t bump = 0) {
  PodVector<uint32_t> lengths;
  for (size_t i = 0; i < s.object_count(); ++i)
    lengths.push_back(static_cast<uint32_t>(s.fields.values_of(i).size()));
  lengths[3] += bump;
  return {XrpmPart::Column<uint32_t>("VLEN", lengths.span()),
          XrpmPart::Blob("VBYT", BytesOf(s.fields.values.data))};
}

TEST(XrpmFields, Format12FilesWithValueEndsStillOpen) {
  const Snapshot s = testing::MakeFieldsGame();
  const XrpmContents c = ReadXrpm(Write(WithoutValues(s), Format12Values(s)), "t.xrpm");
  EXPECT_TRUE(c.snapshot == s);
  EXPECT_TRUE(c.skipped.empty());
  // The fuzz seed that 1.2's own writer wrote.
  const XrpmContents seed =
      ReadXrpmFile(std::string(XRPM_TEST_DATA) + "/../fuzz/corpus/xrpm/fields-game.xrpm");
  EXPECT_EQ(seed.minor, 2);
  EXPECT_TRUE(seed.snapshot.fields.has_values());
  EXPECT_EQ(CheckFields(seed.snapshot), "");
  const auto str = StringOf(seed.snapshot, 8);
  ASSERT_TRUE(str);
  EXPECT_TRUE(str->cut);
  // Written again, it is a 1.3 file with the same contents.
  const XrpmContents again = ReadXrpm(Write(seed.snapshot), "t.xrpm");
  EXPECT_EQ(again.minor, formats::kXrpmMinorVersion);
  EXPECT_TRUE(again.snapshot == seed.snapshot);
}

TEST(XrpmFields, ValueLengthsOrEndsThatDoNotMatchTheBytesAreRefused) {
  const Snapshot s = testing::MakeFieldsGame();
  const std::string total = std::to_string(s.fields.values.data.size());
  auto refused = [&](const std::vector<XrpmPart>& values, const std::string& code,
                     const std::string& what) {
    const std::string e = ReadError(Write(WithoutValues(s), values));
    EXPECT_NE(e.find(what), std::string::npos) << e;
    EXPECT_NE(e.find("[" + code + "]"), std::string::npos) << e;
  };
  refused(Format13Values(s, 1), "bad-part",
          "part 'VLEN': the value lengths add up to " +
              std::to_string(s.fields.values.data.size() + 1) + " bytes, but there are " + total +
              " value bytes");
  const size_t end2 =
      s.fields.values_of(0).size() + s.fields.values_of(1).size() + s.fields.values_of(2).size();
  ASSERT_GT(end2, 0u);
  refused(Format12Values(s, true), "bad-part",
          "part 'OVAL': object 3: value end 0 is below the previous object's (" +
              std::to_string(end2) + ")");
  std::vector<XrpmPart> both = Format12Values(s);
  for (XrpmPart& p : Format13Values(s)) both.push_back(std::move(p));
  refused(both, "bad-toc", "part 'VLEN': the file also has part 'OVAL'");
  refused({Format13Values(s)[0]}, "missing-part", "has part 'VLEN' but not 'VBYT'");
}

TEST(XrpmFields, ValuesOfManyObjectsRoundTripAcrossBlocksAndChunks) {
  testing::FieldsHeapBuilder h;
  h.s.fields.values_captured = true;
  const uint32_t str = h.Type(0x20, "System.String", TypeShape::kString);
  for (size_t i = 0; i < 700; ++i) {
    const std::string text(i % 13, static_cast<char>('a' + i % 26));
    h.Object(0x10000 + i * 64, str, 64, {},
             i % 5 ? testing::StringBytes(text, static_cast<uint32_t>(text.size()))
                   : std::vector<uint8_t>{});
  }
  const Snapshot s = h.Take();
  XrpmWriteOptions w;
  w.block_bytes = 64;
  w.threads = 2;
  const XrpmContents c = ReadXrpm(WriteXrpm(s, w), "t.xrpm", {.threads = 2});
  EXPECT_TRUE(c.snapshot == s);
  EXPECT_EQ(StringOf(c.snapshot, 699)->text, std::string(699 % 13, 'a' + 699 % 26));
}

TEST(XrpmFields, TheWriterRefusesColumnsThatDoNotMatchTheSnapshot) {
  Snapshot s = testing::MakeFieldsGame();
  s.fields.ref_slot.push_back(0);
  EXPECT_THROW(WriteXrpm(s), std::invalid_argument);
  s = testing::MakeFieldsGame();
  s.fields.layouts.clear();
  EXPECT_THROW(WriteXrpm(s), std::invalid_argument);
}

}  // namespace
}  // namespace xrpm
