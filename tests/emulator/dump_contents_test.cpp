// The ground-truth dump's contents (dump_contents.h): a bubbles dump with contents has the game
// types' layouts, a slot on its references, the static event's root label and frame labels, the
// Bubbles' names as text and which types have a finalizer; the contents leave every other column
// exactly as the plain dump's (so the .gclog is unchanged); --no-values keeps layouts, slots
// and labels without values; a string cap cuts text and keeps the length; and which formats get
// contents at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <unordered_map>

#include "test_util.h"
#include "xrpm/emulator/dump_contents.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::emulator {
namespace {

using testing::FirstDifference;
using testing::GclogText;

// A runtime that played `frames` frames of bubbles on this thread: two dumps see one heap.
struct Played {
  Runtime rt{RuntimeConfig{.heap_reserve_bytes = 256u << 20}};
  std::unique_ptr<Scenario> scenario = MakeScenario({"bubbles", 3});
  GameLoop loop{rt, *scenario, LoopConfig{0, 240}};
  Played() {
    loop.Setup();
    loop.RunHere();
  }
};

constexpr DumpContents kAll{true, true, 0};

uint32_t TypeIndexOf(const Snapshot& s, const std::string& name) {
  for (uint32_t t = 0; t < s.type_count(); ++t)
    if (s.types[t].name == name) return t;
  return kNoIndex;
}

TEST(DumpContents, BubblesHasLayoutsSlotsLabelsAndText) {
  Played p;
  const Snapshot s = DumpToSnapshot(p.rt, kAll);
  ASSERT_EQ(CheckFields(s), "");
  EXPECT_TRUE(s.fields.values_captured);
  EXPECT_EQ(s.fields.string_cap, 1024u) << "a capture's default";

  // Layouts for the game's types.
  const uint32_t bubble = TypeIndexOf(s, "Bubbles.Bubble");
  ASSERT_NE(bubble, kNoIndex);
  const TypeLayout* bl = s.fields.layout_of_type(bubble);
  ASSERT_TRUE(bl && bl->shape == TypeShape::kClass);
  std::vector<std::string> names;
  for (const FieldLayout& f : bl->fields) names.push_back(f.name);
  for (const char* want : {"Position.X", "Position.Y", "Label", "Name", "IsAlive"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  const uint32_t events = TypeIndexOf(s, "Bubbles.GameEvents");
  ASSERT_NE(events, kNoIndex);
  ASSERT_FALSE(s.fields.layout_of_type(events)->statics.empty());

  // A slot on (nearly) every reference: fields of instances, indices of array elements.
  ASSERT_EQ(s.fields.ref_slot.size(), s.ref_count());
  size_t known = 0;
  for (uint32_t slot : s.fields.ref_slot) known += slot != kNoSlot;
  EXPECT_EQ(known, s.ref_count()) << "the emulator knows every reference's slot";

  // Root labels: the static event by its field, frames by method and thread.
  bool event = false, frame = false;
  for (size_t r = 0; r < s.root_count(); ++r) {
    const std::string_view l = s.fields.label_of_root(r);
    event |= s.root_kind_of(r) == RootKind::kStatic && l == "Bubbles.GameEvents.BubblePopped";
    frame |= s.root_kind_of(r) == RootKind::kLocal && l.starts_with("in Bubbles.") &&
             l.find(", thread ") != std::string_view::npos;
  }
  EXPECT_TRUE(event);
  EXPECT_TRUE(frame);

  // Each Bubble's Name as text ("Bubble N"), its IsAlive as a value.
  const std::regex bubble_name("Bubble [0-9]+");
  const uint32_t name_field =
      static_cast<uint32_t>(std::find(names.begin(), names.end(), "Name") - names.begin());
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index.emplace(s.object_id[i], i);
  size_t bubbles = 0;
  for (size_t i = 0; i < s.object_count(); ++i) {
    if (s.object_type[i] != bubble) continue;
    ++bubbles;
    const FieldValue name = ReadField(s, i, name_field);
    ASSERT_EQ(name.kind, FieldValue::Kind::kRef);
    ASSERT_TRUE(index.count(name.ref)) << i;
    const auto text = StringOf(s, index.at(name.ref));
    ASSERT_TRUE(text) << i;
    EXPECT_TRUE(std::regex_match(std::string(text->text), bubble_name)) << text->text;
    EXPECT_EQ(text->full_length, text->text.size());
  }
  EXPECT_GT(bubbles, 3u);

  // The finalizer trait of the runtime's types.
  bool finalizer = false;
  for (const TypeInfo& t : s.types) finalizer |= t.has_finalizer;
  EXPECT_TRUE(finalizer);
}

TEST(DumpContents, LeaveEveryOtherColumnAsThePlainDump) {
  Played p;
  const Snapshot plain = DumpToSnapshot(p.rt);
  Snapshot with = DumpToSnapshot(p.rt, kAll);
  EXPECT_FALSE(plain.fields.present());
  ASSERT_TRUE(with.fields.present());
  // The section times are the device clock at each walk.
  ASSERT_EQ(with.sections.size(), plain.sections.size());
  for (size_t i = 0; i < plain.sections.size(); ++i) {
    with.sections[i].start_ms = plain.sections[i].start_ms;
    with.sections[i].end_ms = plain.sections[i].end_ms;
  }
  EXPECT_EQ(FirstDifference(GclogText(with), GclogText(plain)), "") << "the .gclog is unchanged";
  with.fields = {};
  EXPECT_TRUE(with == plain) << "objects, order, roots, origins and root origins too";
}

TEST(DumpContents, NoValuesKeepsLayoutsSlotsAndLabels) {
  Played p;
  const Snapshot s = DumpToSnapshot(p.rt, DumpContents{true, false, 0});
  ASSERT_EQ(CheckFields(s), "");
  EXPECT_FALSE(s.fields.values_captured);
  EXPECT_FALSE(s.fields.has_values());
  EXPECT_TRUE(s.fields.has_layouts());
  EXPECT_TRUE(s.fields.has_slots());
  EXPECT_FALSE(s.fields.root_labels.empty());
}

TEST(DumpContents, AStringCapCutsTextAndKeepsTheLength) {
  Played p;
  const Snapshot s = DumpToSnapshot(p.rt, DumpContents{true, true, 4});
  EXPECT_EQ(s.fields.string_cap, 4u);
  size_t cut = 0;
  for (size_t i = 0; i < s.object_count(); ++i) {
    const auto text = StringOf(s, i);
    if (!text) continue;
    EXPECT_LE(text->text.size(), 4u);
    if (text->cut) {
      ++cut;
      EXPECT_GT(text->full_length, 4u);
    }
  }
  EXPECT_GT(cut, 3u) << "\"Bubble N\" is longer than 4";
}

TEST(DumpContents, ForTheFormatsThatKeepThem) {
  EXPECT_FALSE(ContentsFor("a.gclog", true, 0).fields);
  EXPECT_FALSE(ContentsFor("a.txt", true, 0).fields);
  EXPECT_FALSE(ContentsFor("a.dump", true, 0).fields) << "the .gclog is the default";
  const DumpContents x = ContentsFor("a.xrpm", true, 77);
  EXPECT_TRUE(x.fields && x.values);
  EXPECT_EQ(x.string_cap, 77u);
  EXPECT_FALSE(ContentsFor("a.xrpm", false, 0).values);
  EXPECT_TRUE(ContentsFor("a.heapsnapshot", true, 0).fields);
}

}  // namespace
}  // namespace xrpm::emulator
