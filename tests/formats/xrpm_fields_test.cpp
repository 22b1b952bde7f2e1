// .xrpm object-content parts (format 1.2, issue 22): layouts, reference slots, root labels and
// values round-trip; files without them still open; each kind of bad content is refused naming
// the part and what was expected and found.
#include <gtest/gtest.h>

#include <string>

#include "fields_game.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/formats/xrpm_file.h"
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
  const Snapshot s = test::MakeFieldsGame();
  const std::string bytes = Write(s);
  const XrpmContents c = ReadXrpm(bytes, "t.xrpm");
  EXPECT_TRUE(c.skipped.empty());
  EXPECT_EQ(c.minor, 3);
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
  Snapshot s = test::MakeFieldsGame();
  s.fields.value_end.clear();  // a --no-values capture: layouts, slots and labels only
  s.fields.value_data.clear();
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
  const std::string bytes = Write(test::MakeFieldsGame());
  for (const char* tag : {"FLAY", "RSLT", "RLBL", "RTLB", "OVAL", "VDAT"}) {
    const size_t at = bytes.find(tag);
    ASSERT_NE(at, std::string::npos) << tag;
    EXPECT_EQ(bytes[at + 4] & 1, 0) << tag << " must not be required";
  }
}

TEST(XrpmFields, BadContentIsRefusedNamingThePartAndObject) {
  auto refused = [](void (*mutate)(Snapshot&), const std::string& part, const std::string& what) {
    Snapshot s = test::MakeFieldsGame();
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
        test::ReplaceValues(s, 7, HeapFields::EncodeString("Bubble 1", 300, false));
      },
      "OVAL", "object 0x1540 (type 4): string length 300 beyond the object's 32 bytes");
  refused([](Snapshot& s) { s.fields.layouts[3].fields[5].underlying = FieldKind::kDouble; },
          "FLAY", "field 'state': an enum of kind Double, expected an integer kind");
}

TEST(XrpmFields, APartWithoutTheOneItNeedsIsRefused) {
  Snapshot s = test::MakeFieldsGame();
  const PodVector<uint32_t> slots = s.fields.ref_slot;
  s.fields.Clear();
  const std::string bytes =
      Write(s, {XrpmPart::Column<uint32_t>("RSLT", slots.span(), false, XrpmTransform::kNone)});
  const std::string e = ReadError(bytes);
  EXPECT_NE(e.find("has part 'RSLT' but not 'FLAY'"), std::string::npos) << e;
  EXPECT_NE(e.find("[missing-part]"), std::string::npos) << e;
}

TEST(XrpmFields, TheWriterRefusesColumnsThatDoNotMatchTheSnapshot) {
  Snapshot s = test::MakeFieldsGame();
  s.fields.ref_slot.push_back(0);
  EXPECT_THROW(WriteXrpm(s), std::invalid_argument);
  s = test::MakeFieldsGame();
  s.fields.layouts.clear();
  EXPECT_THROW(WriteXrpm(s), std::invalid_argument);
}

}  // namespace
}  // namespace xrpm
