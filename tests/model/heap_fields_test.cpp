// The object-contents model (heap_fields.h, object_fields.h): reading values, strings, array
// lengths, slot names and root labels from a synthetic heap, and the consistency check that
// refuses each kind of bad input.
#include <gtest/gtest.h>

#include "fields_game.h"
#include "xrpm/model/object_fields.h"

namespace xrpm {
namespace {

size_t IndexOf(const Snapshot& s, ObjectId id) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.object_id[i] == id) return i;
  ADD_FAILURE() << "no object " << id;
  return 0;
}

std::string Value(const Snapshot& s, ObjectId id, std::string_view field) {
  const size_t i = IndexOf(s, id);
  const TypeLayout* t = LayoutOf(s, i);
  if (!t) return "<no layout>";
  const uint32_t f = FindField(*t, field);
  if (f == kNoSlot) return "<no field>";
  return FormatValue(ReadField(s, i, f));
}

TEST(HeapFields, EveryPrimitiveKindReadsBackAsWritten) {
  const Snapshot s = testing::MakeFieldsGame();
  ASSERT_EQ(CheckFields(s), "");
  EXPECT_EQ(Value(s, 0x1000, "score"), "1234");
  EXPECT_EQ(Value(s, 0x1000, "paused"), "false");
  EXPECT_EQ(Value(s, 0x1340, "IsAlive"), "false");
  EXPECT_EQ(Value(s, 0x1300, "IsAlive"), "true");
  EXPECT_EQ(Value(s, 0x1340, "initial"), "'\xc3\xa9'");  // é from UTF-16
  EXPECT_EQ(Value(s, 0x1300, "position.X"), "1.5");
  EXPECT_EQ(Value(s, 0x1340, "position.X"), "-1");
  EXPECT_EQ(Value(s, 0x1300, "radius"), "0.125");
  EXPECT_EQ(Value(s, 0x1380, "id"), "-42");
  EXPECT_EQ(Value(s, 0x1300, "tint"), "200");
  EXPECT_EQ(Value(s, 0x1300, "delta"), "-3");
  EXPECT_EQ(Value(s, 0x1300, "layer"), "-300");
  EXPECT_EQ(Value(s, 0x1300, "mask"), "65000");
  EXPECT_EQ(Value(s, 0x1300, "flags"), "4000000000");
  EXPECT_EQ(Value(s, 0x1300, "ticks"), "18000000000000000000");
  EXPECT_EQ(Value(s, 0x1300, "handle"), "32512");
}

TEST(HeapFields, EnumsReadByMemberNameOrNumberWhenUnnamed) {
  const Snapshot s = testing::MakeFieldsGame();
  EXPECT_EQ(Value(s, 0x1300, "state"), "Floating");
  EXPECT_EQ(Value(s, 0x1340, "state"), "Popped");
  EXPECT_EQ(Value(s, 0x1380, "state"), "7");
  const FieldValue v =
      ReadField(s, IndexOf(s, 0x1340), FindField(*LayoutOf(s, IndexOf(s, 0x1340)), "state"));
  EXPECT_EQ(v.kind, FieldValue::Kind::kEnum);
  EXPECT_EQ(v.i, 1);
}

TEST(HeapFields, ReferenceFieldsNameTheirTargetOrNull) {
  const Snapshot s = testing::MakeFieldsGame();
  EXPECT_EQ(Value(s, 0x1000, "bubbles"), "0x1100");
  EXPECT_EQ(Value(s, 0x1600, "_target"), "0x1340");
  Snapshot t = testing::MakeFieldsGame();
  // Without slots a reference field is unknown, never guessed.
  t.fields.ref_slot.clear();
  EXPECT_EQ(Value(t, 0x1000, "bubbles"), "?");
}

TEST(HeapFields, StringsKeepFullLengthAndCutMark) {
  const Snapshot s = testing::MakeFieldsGame();
  const auto a = StringOf(s, IndexOf(s, 0x1500));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->text, "Bubble 0");
  EXPECT_EQ(a->full_length, 8u);
  EXPECT_FALSE(a->cut);
  const auto b = StringOf(s, IndexOf(s, 0x1580));
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->cut);
  EXPECT_EQ(b->full_length, 20u);
  EXPECT_EQ(QuoteString(b->text, 100, b->cut), "\"Blase \xc3\xbc\xe2\x82\xac\xef\xbf\xbd\"…");
  EXPECT_EQ(QuoteString("ab\"c\n", 3, false), "\"ab\\\"\"…");
  EXPECT_FALSE(StringOf(s, IndexOf(s, 0x1000)));  // not a string
}

TEST(HeapFields, ArraySlotsAndFieldSlotsAreNamed) {
  const Snapshot s = testing::MakeFieldsGame();
  EXPECT_EQ(ArrayLengthOf(s, IndexOf(s, 0x1200)), 4u);
  EXPECT_EQ(EdgeName(s, IndexOf(s, 0x1200), 0x1380), "[2]");
  EXPECT_EQ(EdgeName(s, IndexOf(s, 0x1100), 0x1200), "_items");
  EXPECT_EQ(EdgeName(s, IndexOf(s, 0x1000), 0x1100), "bubbles");
  EXPECT_EQ(EdgeName(s, IndexOf(s, 0x1000), 0x9999), "");
  EXPECT_EQ(s.fields.label_of_root(1), "Bubbles.GameEvents.Popped");
}

TEST(HeapFields, Utf16WithUnpairedSurrogatesBecomesReplacementCharacters) {
  EXPECT_EQ(Utf16ToUtf8(u"A\xd83d\xde00"
                        u"B"),
            "A\xf0\x9f\x98\x80"
            "B");
  const char16_t lone[] = {u'x', 0xD800, u'y', 0xDC00};
  EXPECT_EQ(Utf16ToUtf8(std::u16string_view(lone, 4)), "x\xef\xbf\xbdy\xef\xbf\xbd");
  EXPECT_TRUE(IsWellFormedUtf8(std::string("a\0b", 3)));
  EXPECT_FALSE(IsWellFormedUtf8("\xed\xa0\x80"));  // an encoded surrogate
  EXPECT_FALSE(IsWellFormedUtf8("\xc0\x80"));      // overlong
  EXPECT_FALSE(IsWellFormedUtf8("\xe2\x82"));      // cut
  // Past the 8-byte ASCII steps: a bad byte after long ASCII runs, and at the very end.
  EXPECT_TRUE(IsWellFormedUtf8("0123456789abcdef\xc3\xa9ghijklmnopqrstuv"));
  EXPECT_FALSE(IsWellFormedUtf8("0123456789abcdef\xc0\x80ghijklmnopqrstuv"));
  EXPECT_FALSE(IsWellFormedUtf8("0123456789abcdefghijklmnopqrstu\xe2"));
}

TEST(HeapFields, SnapshotsWithoutContentsHaveNoneAndSayMissing) {
  Snapshot s = testing::MakeFieldsGame();
  s.fields.Clear();
  EXPECT_FALSE(s.fields.present());
  EXPECT_EQ(CheckFields(s), "");
  EXPECT_EQ(Value(s, 0x1000, "score"), "<no layout>");
  EXPECT_FALSE(StringOf(s, 7));
  EXPECT_EQ(EdgeName(s, 0, 0x1100), "");
}

TEST(HeapFields, ModelCostIsColumnsNotObjects) {
  const Snapshot s = testing::MakeFieldsGame();
  // 4 B per reference for the slots; values once per object in one byte column + 4 B ends.
  EXPECT_EQ(s.fields.ref_slot.size(), s.ref_count());
  EXPECT_EQ(s.fields.values.size(), s.object_count());
  EXPECT_GE(s.MemoryBytes(), s.fields.MemoryBytes());
}

// Each kind of bad input is refused with what was expected and found.
TEST(HeapFields, CheckRefusesEachInconsistency) {
  auto refused = [](void (*mutate)(Snapshot&), std::string_view expect, FieldsPart part) {
    Snapshot s = testing::MakeFieldsGame();
    mutate(s);
    FieldsPart where = FieldsPart::kLayouts;
    const std::string msg = CheckFields(s, &where);
    EXPECT_NE(msg.find(expect), std::string::npos) << msg;
    EXPECT_EQ(where, part) << msg;
  };
  // A layout whose field lies outside the object.
  refused([](Snapshot& s) { s.fields.layouts[0].fields[2].offset = 40; }, "lies outside the object",
          FieldsPart::kLayouts);
  // A field id out of range for its type.
  refused([](Snapshot& s) { s.fields.ref_slot[0] = 9; }, "names field 9", FieldsPart::kSlots);
  // A slot naming a primitive field.
  refused([](Snapshot& s) { s.fields.ref_slot[0] = 1; }, "expected a reference field",
          FieldsPart::kSlots);
  // An element beyond the array.
  refused([](Snapshot& s) { s.fields.ref_slot[2] = 4; }, "beyond the array's length 4",
          FieldsPart::kSlots);
  // A string length beyond its object.
  refused(
      [](Snapshot& s) {
        testing::ReplaceValues(s, 6, HeapFields::EncodeString("Bubble 0", 100, true));
      },
      "string length 100 beyond the object's 32 bytes", FieldsPart::kValues);
  // A value of the wrong width.
  refused(
      [](Snapshot& s) {
        auto v = s.fields.values_of(0);
        std::vector<uint8_t> b(v.begin(), v.end());
        b.push_back(0);
        testing::ReplaceValues(s, 0, b);
      },
      "6 value bytes, expected 5", FieldsPart::kValues);
  // Text that is not UTF-8 (what invalid UTF-16 must never become).
  refused(
      [](Snapshot& s) {
        testing::ReplaceValues(s, 6, HeapFields::EncodeString("\xed\xa0\x80", 1, false));
      },
      "not UTF-8", FieldsPart::kValues);
  refused([](Snapshot& s) { s.fields.layouts.pop_back(); }, "expected 7", FieldsPart::kLayouts);
  refused([](Snapshot& s) { s.fields.root_label[0] = 5; }, "names label 5", FieldsPart::kLabels);
  refused([](Snapshot& s) { s.fields.layouts[3].fields[5].enum_type = 3; }, "enum type 3 of 1",
          FieldsPart::kLayouts);
}

}  // namespace
}  // namespace xrpm
