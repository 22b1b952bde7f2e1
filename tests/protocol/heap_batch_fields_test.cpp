// Fields and values in heap batches (wire.proto HeapBatch 28-34, fields.h, field_checker.h):
// a walk with layouts, enums, root and reference slots and values round-trips through bounded
// batches and passes the capture-wide checks; a walk without them has none of the new columns
// (even when given slots and values); every value kind maps to a word and back, and a word of the
// wrong width is refused; damaged layouts, slots and values are refused with a message that names
// what is wrong; and slots cost under a byte per reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/field_checker.h"
#include "xrpm/protocol/fields.h"
#include "xrpm/protocol/heap_batch.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::protocol {
namespace {

constexpr uint32_t kBubble = 1, kString = 2, kArray = 3, kGame = 4, kNoLayout = 5;

RawField F(const char* name, const char* type, uint32_t offset, FieldKind k, uint32_t e = 0) {
  RawField f;
  f.name = name;
  f.type_name = type;
  f.offset = offset;
  f.kind = k;
  f.is_enum = e != 0;
  f.enum_id = e;
  return f;
}

// Bubble { name: string @8, position.X / position.Y: float @12/16, IsAlive: bool @20,
//          id: int @24, color: enum Color (Int32) @28, next: Bubble @32 }, 40 bytes.
RawLayout BubbleLayout() {
  RawLayout l;
  l.type_id = kBubble;
  l.fields = {F("name", "System.String", 8, FieldKind::kReference),
              F("position.X", "System.Single", 12, FieldKind::kSingle),
              F("position.Y", "System.Single", 16, FieldKind::kSingle),
              F("IsAlive", "System.Boolean", 20, FieldKind::kBoolean),
              F("id", "System.Int32", 24, FieldKind::kInt32),
              F("color", "Bubbles.Color", 28, FieldKind::kInt32, 1),
              F("next", "Bubbles.Bubble", 32, FieldKind::kReference)};
  return l;
}

RawLayout Shape(uint32_t type, TypeShape shape) {
  RawLayout l;
  l.type_id = type;
  l.shape = shape;
  if (shape == TypeShape::kArray) {
    l.element_kind = FieldKind::kReference;
    l.element_type_name = "Bubbles.Bubble";
  }
  return l;
}

RawEnum Color() {
  RawEnum e;
  e.id = 1;
  e.name = "Bubbles.Color";
  e.underlying = FieldKind::kInt32;
  e.member_names = {"Red", "Green", "Minus"};
  e.member_values = {0, 1, ~uint64_t{0}};
  return e;
}

uint64_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

std::vector<uint64_t> Text(const std::u16string& s, size_t cap) {
  std::vector<uint64_t> w{s.size()};
  for (size_t i = 0; i < s.size() && i < cap; ++i) w.push_back(s[i]);
  return w;
}

struct Obj {
  uint64_t id;
  uint32_t type, size;
  std::vector<uint64_t> refs;
  std::vector<uint32_t> slots;
  std::vector<uint64_t> values;
};

struct FieldWalk {
  std::vector<RawLayout> layouts;
  std::vector<Obj> objects;
  std::vector<uint64_t> root_object;
  std::vector<uint32_t> root_slot;
};

// Bubbles, their names, one big array of them (its references span batches) and a Game whose
// statics root them.
FieldWalk MakeFieldWalk(size_t bubbles, size_t cap) {
  FieldWalk w;
  w.layouts = {BubbleLayout(), Shape(kString, TypeShape::kString), Shape(kArray, TypeShape::kArray),
               Shape(kGame, TypeShape::kClass)};
  w.layouts[3].statics = {{"Bubbles", "Bubbles.Bubble[]", FieldKind::kReference},
                          {"Count", "System.Int32", FieldKind::kInt32},
                          {"Popped", "System.EventHandler", FieldKind::kReference}};
  uint64_t addr = 0x10000;
  const uint64_t array = addr;
  const uint32_t array_size = static_cast<uint32_t>(16 + 4 * bubbles);
  addr += array_size;
  std::vector<uint64_t> bubble_ids;
  for (size_t i = 0; i < bubbles; ++i) {
    bubble_ids.push_back(addr);
    addr += 40;
    const std::u16string name = i == 7 ? std::u16string(cap + 50, u'x')  // over the cap
                                : i == 8
                                    ? std::u16string(u"Bl\u00e4schen \xD800!")  // lone surrogate
                                    : u"Bubble " + std::u16string(1, u'0' + i % 10);
    const uint64_t str = addr;
    const uint32_t str_size = static_cast<uint32_t>((20 + 2 * name.size() + 3) & ~3u);
    addr += str_size;
    w.objects.push_back({str, kString, str_size, {}, {}, Text(name, cap)});
    (void)bubble_ids;
  }
  addr = 0x10000 + array_size;
  std::vector<Obj> bubble_objs;
  for (size_t i = 0; i < bubbles; ++i) {
    const Obj& name = w.objects[i];
    Obj b{bubble_ids[i], kBubble, 40, {name.id}, {0}, {}};
    if (i + 1 < bubbles && i % 3 == 0) {
      b.refs.push_back(bubble_ids[i + 1]);
      b.slots.push_back(6);
    }
    const float x = i == 2 ? -0.0f : static_cast<float>(i) * 1.5f;
    b.values = {ValueToWord(FieldKind::kSingle, FloatBits(x)),
                ValueToWord(FieldKind::kSingle, FloatBits(std::nanf(""))),
                ValueToWord(FieldKind::kBoolean, i % 2),
                ValueToWord(FieldKind::kInt32, static_cast<uint64_t>(-int64_t(i))),
                ValueToWord(FieldKind::kInt32, i % 3 == 2 ? ~uint64_t{0} : i % 2)};
    bubble_objs.push_back(b);
  }
  Obj arr{array, kArray, array_size, {}, {}, {bubbles}};
  for (size_t i = 0; i < bubbles; ++i)
    if (i % 4 != 3) {  // nulls skipped
      arr.refs.push_back(bubble_ids[i]);
      arr.slots.push_back(static_cast<uint32_t>(i));
    }
  Obj game{addr + 0x1000, kGame, 16, {array}, {kNoSlot}, {}};
  std::vector<Obj> all{arr};
  all.insert(all.end(), bubble_objs.begin(), bubble_objs.end());
  all.insert(all.end(), w.objects.begin(), w.objects.end());
  all.push_back(game);
  w.objects = all;
  w.root_object = {array, bubble_ids[0], game.id};
  w.root_slot = {0, 2, kNoSlot};
  return w;
}

struct Decoded {
  std::vector<std::string> wire;
  CaptureTotals totals;
  std::vector<RawBatch> batches;
};

Decoded EncodeFieldWalk(const FieldWalk& w, bool values, size_t batch_bytes, bool background) {
  Decoded d;
  HeapBatchWriter writer(
      3,
      [&](wire::Envelope* env) {
        std::string bytes;
        EXPECT_TRUE(SerializeEnvelope(*env, kMaxAgentMessageBytes, &bytes));
        d.wire.push_back(std::move(bytes));
        return true;
      },
      background, batch_bytes);
  writer.EnableFields(values);
  for (uint32_t t : {kBubble, kString, kArray, kGame, kNoLayout})
    EXPECT_TRUE(writer.Type(t, "T", 1));
  EXPECT_TRUE(writer.Enum(Color()));
  for (const RawLayout& l : w.layouts) EXPECT_TRUE(writer.Layout(l));
  RawContainer statics{11, kGame, 0, 4, false, 0, ""};
  RawContainer frame{3, 1, 0x6000001, 1, true, 1, "Bubbles.Game1.Update"};
  EXPECT_TRUE(writer.Container(statics));
  EXPECT_TRUE(writer.Container(frame));
  for (size_t i = 0; i < w.root_object.size(); ++i)
    EXPECT_TRUE(writer.Root(w.root_object[i], 0, i == 2 ? 1 : 0, w.root_slot[i]));
  for (const Obj& o : w.objects) {
    ObjectDetail detail{o.slots.data(), o.values.data(), static_cast<uint32_t>(o.values.size())};
    EXPECT_TRUE(writer.Object(o.id, o.type, o.size, o.refs.data(), o.refs.size(), 0, 0, detail));
  }
  EXPECT_TRUE(writer.Flush());
  d.totals = writer.totals();
  uint64_t checksum = 0;
  for (const std::string& bytes : d.wire) {
    wire::Envelope env;
    EXPECT_TRUE(env.ParseFromString(bytes));
    RawBatch b;
    std::string error;
    EXPECT_TRUE(DecodeHeapBatch(env.heap_batch(), &b, &error)) << error;
    checksum = ChecksumBatch(b, checksum);
    d.batches.push_back(std::move(b));
  }
  EXPECT_EQ(checksum, d.totals.checksum);
  return d;
}

TEST(HeapBatchFields, WalkRoundTripsThroughSmallBatchesAndPassesTheChecks) {
  for (bool background : {false, true}) {
    const FieldWalk w = MakeFieldWalk(3000, kDefaultStringCap);
    const Decoded d = EncodeFieldWalk(w, true, 4096, background);
    ASSERT_GT(d.batches.size(), 10u);  // the array's references span batches
    FieldChecker check(true, true, kDefaultStringCap, 4);
    std::vector<uint64_t> refs, values;
    std::vector<uint32_t> slots, counts;
    std::vector<uint64_t> roots;
    std::vector<uint32_t> root_slots;
    std::vector<RawContainer> containers;
    size_t layouts = 0;
    for (size_t i = 0; i < d.batches.size(); ++i) {
      const RawBatch& b = d.batches[i];
      std::string error;
      ASSERT_TRUE(check.Check(b, static_cast<uint32_t>(i), &error)) << error;
      refs.insert(refs.end(), b.refs.begin(), b.refs.end());
      slots.insert(slots.end(), b.ref_slot.begin(), b.ref_slot.end());
      ASSERT_EQ(b.ref_slot.size(), b.refs.size());
      ASSERT_EQ(b.object_value_count.size(), b.object_id.size());
      counts.insert(counts.end(), b.object_value_count.begin(), b.object_value_count.end());
      values.insert(values.end(), b.values.begin(), b.values.end());
      roots.insert(roots.end(), b.root_object.begin(), b.root_object.end());
      root_slots.insert(root_slots.end(), b.root_slot.begin(), b.root_slot.end());
      containers.insert(containers.end(), b.containers.begin(), b.containers.end());
      layouts += b.layouts.size();
    }
    EXPECT_EQ(layouts, 4u);
    std::vector<uint64_t> want_refs, want_values;
    std::vector<uint32_t> want_slots, want_counts;
    for (const Obj& o : w.objects) {
      want_refs.insert(want_refs.end(), o.refs.begin(), o.refs.end());
      want_slots.insert(want_slots.end(), o.slots.begin(), o.slots.end());
      want_values.insert(want_values.end(), o.values.begin(), o.values.end());
      want_counts.push_back(static_cast<uint32_t>(o.values.size()));
    }
    EXPECT_EQ(refs, want_refs);
    EXPECT_EQ(slots, want_slots);
    EXPECT_EQ(values, want_values);
    EXPECT_EQ(counts, want_counts);
    EXPECT_EQ(roots, w.root_object);
    EXPECT_EQ(root_slots, w.root_slot);
    ASSERT_EQ(containers.size(), 2u);
    EXPECT_EQ(containers[1].label, "Bubbles.Game1.Update");
    const RawLayout* bubble = check.Layout(kBubble);
    ASSERT_NE(bubble, nullptr);
    EXPECT_EQ(bubble->fields[1].name, "position.X");
    EXPECT_EQ(bubble->fields[5].enum_id, 1u);
    EXPECT_EQ(bubble->ValueFieldCount(), 5u);
    ASSERT_NE(check.Enum(1), nullptr);
    EXPECT_EQ(check.Enum(1)->member_names[2], "Minus");
    EXPECT_EQ(check.Enum(1)->member_values[2], ~uint64_t{0});
    EXPECT_EQ(d.totals.layouts, 4u);
    EXPECT_EQ(d.totals.value_words, want_values.size());
  }
}

TEST(HeapBatchFields, EveryKindMapsToAWordAndBack) {
  struct Case {
    FieldKind kind;
    uint64_t bits;
  };
  const Case cases[] = {
      {FieldKind::kBoolean, 1},
      {FieldKind::kChar, 0xD800},
      {FieldKind::kSByte, static_cast<uint64_t>(int64_t{-128})},
      {FieldKind::kByte, 255},
      {FieldKind::kInt16, static_cast<uint64_t>(int64_t{-32768})},
      {FieldKind::kUInt16, 65535},
      {FieldKind::kInt32, static_cast<uint64_t>(int64_t{-2147483647 - 1})},
      {FieldKind::kUInt32, 0xFFFFFFFFu},
      {FieldKind::kInt64, 0x8000000000000000ull},
      {FieldKind::kUInt64, ~uint64_t{0}},
      {FieldKind::kIntPtr, static_cast<uint64_t>(int64_t{-5})},
      {FieldKind::kUIntPtr, 0xFFFFFFFFu},
      {FieldKind::kSingle, FloatBits(-1.25f)},
      {FieldKind::kDouble, 0x400921FB54442D18ull},  // pi
  };
  for (const Case& c : cases) {
    uint64_t back = 0;
    EXPECT_TRUE(WordToValue(c.kind, ValueToWord(c.kind, c.bits), 4, &back))
        << FieldKindName(c.kind);
    EXPECT_EQ(back, c.bits) << FieldKindName(c.kind);
  }
  // Round numbers take few varint bytes; small negative integers too.
  EXPECT_EQ(VarintLength(ValueToWord(FieldKind::kSingle, FloatBits(0.5f))), 1u);
  EXPECT_LE(VarintLength(ValueToWord(FieldKind::kDouble, 0x3FF0000000000000ull)), 3u);  // 1.0
  EXPECT_EQ(VarintLength(ValueToWord(FieldKind::kInt32, ~uint64_t{0})), 1u);
  // Words wider than their kind are refused.
  uint64_t bits;
  EXPECT_FALSE(WordToValue(FieldKind::kBoolean, 2, 4, &bits));
  EXPECT_FALSE(WordToValue(FieldKind::kByte, 256, 4, &bits));
  EXPECT_FALSE(WordToValue(FieldKind::kInt16, ZigZag(32768), 4, &bits));
  EXPECT_FALSE(WordToValue(FieldKind::kSingle, uint64_t{1} << 32, 4, &bits));
  EXPECT_FALSE(WordToValue(FieldKind::kIntPtr, ZigZag(int64_t{1} << 31), 4, &bits));
  EXPECT_TRUE(WordToValue(FieldKind::kIntPtr, ZigZag(int64_t{1} << 31), 8, &bits));
  EXPECT_FALSE(WordToValue(FieldKind::kReference, 0, 4, &bits));
}

// The checker compares each word with MaxWord instead of decoding it: the two must accept the
// same words, at every kind's edge and for both pointer sizes.
TEST(HeapBatchFields, MaxWordIsTheEdgeOfWhatWordToValueAccepts) {
  for (uint32_t pointer_bytes : {4u, 8u}) {
    for (uint32_t k = 0; k <= kMaxFieldKind + 1; ++k) {
      const auto kind = static_cast<FieldKind>(k);
      const uint64_t max = MaxWord(kind, pointer_bytes);
      uint64_t bits;
      if (!IsValueKind(kind)) {
        EXPECT_EQ(max, 0u) << k;
        EXPECT_FALSE(WordToValue(kind, 0, pointer_bytes, &bits)) << k;
        continue;
      }
      for (uint64_t w : {uint64_t{0}, max / 2, max - 1, max}) {
        EXPECT_TRUE(WordToValue(kind, w, pointer_bytes, &bits)) << FieldKindName(kind) << " " << w;
      }
      if (max != UINT64_MAX) {
        EXPECT_FALSE(WordToValue(kind, max + 1, pointer_bytes, &bits)) << FieldKindName(kind);
      }
    }
  }
  EXPECT_EQ(MaxWord(FieldKind::kInt16, 4), 0xFFFFu);
  EXPECT_EQ(MaxWord(FieldKind::kIntPtr, 4), 0xFFFFFFFFu);
  EXPECT_EQ(MaxWord(FieldKind::kIntPtr, 8), UINT64_MAX);
}

TEST(HeapBatchFields, SlotsCostUnderAByteEach) {
  uint32_t prev = kNoSlot, slot = 0;
  // In order: every word is 1.
  for (uint32_t s = 0; s < 5; ++s) EXPECT_EQ(SlotToWord(s, &prev), 1u);
  prev = kNoSlot;
  uint32_t dprev = kNoSlot;
  for (uint32_t s : {3u, 0u, kNoSlot, 4000000000u, 7u}) {
    const uint64_t word = SlotToWord(s, &prev);
    ASSERT_TRUE(WordToSlot(word, &dprev, &slot));
    EXPECT_EQ(slot, s);
  }
  EXPECT_FALSE(WordToSlot(uint64_t{1} << 40, &dprev, &slot));

  // An array of 20000 references with every 4th null, and bubbles whose second reference skips
  // five fields: the slot column stays under the 1 B/reference target.
  const FieldWalk w = MakeFieldWalk(20000, 16);
  const Decoded with = EncodeFieldWalk(w, false, kTargetBatchBytes, false);
  size_t slot_bytes = 0, refs = 0;
  for (const std::string& bytes : with.wire) {
    wire::Envelope env;
    ASSERT_TRUE(env.ParseFromString(bytes));
    slot_bytes += env.heap_batch().ref_slots().size() + env.heap_batch().root_slots().size();
    refs += env.heap_batch().ref_count();
  }
  EXPECT_LT(slot_bytes, refs);
}

TEST(HeapBatchFields, AWalkWithoutFieldsHasNoFieldColumns) {
  HeapBatchWriter writer(1, [](wire::Envelope* env) {
    EXPECT_TRUE(env->heap_batch().root_slots().empty());
    EXPECT_TRUE(env->heap_batch().ref_slots().empty());
    EXPECT_TRUE(env->heap_batch().object_value_counts().empty());
    EXPECT_EQ(env->heap_batch().layouts_size(), 0);
    return true;
  });
  const uint64_t ref = 0x20;
  const uint32_t slot = 3;
  const uint64_t value = 9;
  EXPECT_TRUE(writer.Type(1, "T", 1));
  EXPECT_TRUE(writer.Root(0x10, 0, 0, 0));
  EXPECT_TRUE(writer.Object(0x10, 1, 16, &ref, 1, 0, 0, ObjectDetail{&slot, &value, 1}));
  EXPECT_TRUE(writer.Flush());
}

// One encoded batch of a tiny fields + values capture, to damage.
wire::HeapBatch OneBatch() {
  wire::HeapBatch out;
  HeapBatchWriter writer(1, [&](wire::Envelope* env) {
    out = env->heap_batch();
    return true;
  });
  writer.EnableFields(true);
  EXPECT_TRUE(writer.Type(kBubble, "Bubbles.Bubble", 14));
  EXPECT_TRUE(writer.Type(kString, "System.String", 13));
  EXPECT_TRUE(writer.Enum(Color()));
  EXPECT_TRUE(writer.Layout(BubbleLayout()));
  EXPECT_TRUE(writer.Layout(Shape(kString, TypeShape::kString)));
  const uint64_t refs[] = {0x100};
  const uint32_t slots[] = {0};
  const uint64_t bubble[] = {0, 0, 1, 2, 0};
  const std::vector<uint64_t> text = Text(u"Bubble 42", kDefaultStringCap);
  EXPECT_TRUE(writer.Object(0x40, kBubble, 40, refs, 1, 0, 0, ObjectDetail{slots, bubble, 5}));
  EXPECT_TRUE(
      writer.Object(0x100, kString, 40, nullptr, 0, 0, 0,
                    ObjectDetail{nullptr, text.data(), static_cast<uint32_t>(text.size())}));
  EXPECT_TRUE(writer.Flush());
  return out;
}

std::string DecodeError(const wire::HeapBatch& in) {
  RawBatch b;
  std::string error;
  if (!DecodeHeapBatch(in, &b, &error)) return "decode: " + error;
  FieldChecker check(true, true, kDefaultStringCap, 4);
  if (!check.Check(b, 0, &error)) return "check: " + error;
  return "";
}

std::vector<uint64_t> Column64(const std::string& bytes, size_t n) {
  std::vector<uint64_t> v(n);
  EXPECT_TRUE(DecodeColumn(bytes, n, v.data()));
  return v;
}

TEST(HeapBatchFields, DamagedFieldsAreRefusedWithAClearMessage) {
  const wire::HeapBatch good = OneBatch();
  ASSERT_EQ(DecodeError(good), "");
  const auto expect = [&](const char* what, auto damage, const char* message) {
    wire::HeapBatch b = good;
    damage(b);
    const std::string e = DecodeError(b);
    EXPECT_NE(e.find(message), std::string::npos) << what << ": " << e;
  };
  expect(
      "field id out of range",
      [](wire::HeapBatch& b) {
        const uint64_t w[] = {1 + ZigZag(7)};
        b.clear_ref_slots();
        EncodeColumn(w, 1, b.mutable_ref_slots());
      },
      "field id 7 out of range for its type (7 fields)");
  expect(
      "slot on a value field",
      [](wire::HeapBatch& b) {
        const uint64_t w[] = {1 + ZigZag(3)};
        b.clear_ref_slots();
        EncodeColumn(w, 1, b.mutable_ref_slots());
      },
      "is a Boolean, not a reference");
  expect(
      "string length beyond its object",
      [](wire::HeapBatch& b) {
        std::vector<uint64_t> v = Column64(b.values(), b.value_count());
        v[5] = 400;  // the string's length word (after the bubble's 5)
        b.clear_values();
        EncodeColumn(v.data(), v.size(), b.mutable_values());
      },
      "string length 400 code units is beyond its object (40 bytes)");
  expect(
      "value of the wrong width",
      [](wire::HeapBatch& b) {
        std::vector<uint64_t> v = Column64(b.values(), b.value_count());
        v[2] = 2;  // IsAlive
        b.clear_values();
        EncodeColumn(v.data(), v.size(), b.mutable_values());
      },
      "field 'IsAlive' (Boolean): value word 2 has the wrong width");
  expect(
      "code unit over 16 bits",
      [](wire::HeapBatch& b) {
        std::vector<uint64_t> v = Column64(b.values(), b.value_count());
        v[6] = 0x10000;
        b.clear_values();
        EncodeColumn(v.data(), v.size(), b.mutable_values());
      },
      "code unit 0 is 65536, wider than 16 bits");
  expect(
      "value counts that do not add up",
      [](wire::HeapBatch& b) { b.set_value_count(b.value_count() + 1); },
      "object value counts add up to");
  expect(
      "field outside the object",
      [](wire::HeapBatch& b) { b.mutable_layouts(0)->mutable_fields(4)->set_offset(60); },
      "its layout has a field up to byte 64, outside the object's 40 bytes");
  expect(
      "layout of a type the capture does not hold",
      [](wire::HeapBatch& b) { b.mutable_layouts(1)->set_type_id(77); },
      "for type 77, which the capture does not hold");
  expect(
      "undefined enum",
      [](wire::HeapBatch& b) { b.mutable_layouts(0)->mutable_fields(5)->set_enum_id(9); },
      "names enum 9, which is not defined");
  expect(
      "field kind out of range",
      [](wire::HeapBatch& b) {
        b.mutable_layouts(0)->mutable_fields(1)->set_kind(static_cast<wire::FieldKind>(99));
      },
      "kind 99 out of range");
  expect(
      "an enum of Single",
      [](wire::HeapBatch& b) { b.mutable_layouts(0)->mutable_fields(1)->set_is_enum(true); },
      "an enum of kind Single");
  expect(
      "too many fields",
      [](wire::HeapBatch& b) {
        for (uint32_t i = 0; i <= kMaxLayoutFields; ++i) b.mutable_layouts(0)->add_fields();
      },
      "over the limit of 1024");
  expect(
      "slot column of the wrong length",
      [](wire::HeapBatch& b) {
        const uint64_t w[] = {1, 1};
        b.clear_ref_slots();
        EncodeColumn(w, 2, b.mutable_ref_slots());
      },
      "reference slots: not a valid column of 1 values");
  expect(
      "values without counts", [](wire::HeapBatch& b) { b.clear_object_value_counts(); },
      "values without object");
  expect(
      "a fields batch without slots", [](wire::HeapBatch& b) { b.clear_ref_slots(); },
      "without its slot columns");
  expect(
      "a too-long label",
      [](wire::HeapBatch& b) {
        b.add_containers()->set_kind(3);
        b.mutable_containers(0)->set_label(std::string(kMaxMethodNameBytes + 1, 'm'));
      },
      "container label of 1025 bytes");
}

TEST(HeapBatchFields, CheckerRefusesFieldsTheCaptureDidNotAnnounce) {
  RawBatch b;
  std::string error;
  ASSERT_TRUE(DecodeHeapBatch(OneBatch(), &b, &error)) << error;
  FieldChecker no_fields(false, false, 0, 4);
  EXPECT_FALSE(no_fields.Check(b, 0, &error));
  EXPECT_NE(error.find("in a capture without fields"), std::string::npos) << error;
  FieldChecker no_values(true, false, 0, 4);
  EXPECT_FALSE(no_values.Check(b, 0, &error));
  EXPECT_NE(error.find("values in a capture without values"), std::string::npos) << error;
  FieldChecker small_cap(true, true, 4, 4);
  EXPECT_FALSE(small_cap.Check(b, 0, &error));
  EXPECT_NE(error.find("9 code units sent, expected 4 (length 9, cap 4)"), std::string::npos)
      << error;
}

TEST(HeapBatchFields, RootSlotsNameAStaticOfTheirContainersType) {
  const auto check = [](uint32_t container_kind, uint32_t slot, std::string* error) {
    HeapBatchWriter writer(1, [&](wire::Envelope* env) {
      RawBatch b;
      EXPECT_TRUE(DecodeHeapBatch(env->heap_batch(), &b, error)) << *error;
      FieldChecker c(true, false, 0, 4);
      error->clear();
      c.Check(b, 0, error);
      return true;
    });
    writer.EnableFields(false);
    EXPECT_TRUE(writer.Type(kGame, "Bubbles.Game", 12));
    RawLayout l = Shape(kGame, TypeShape::kClass);
    l.statics = {{"Popped", "System.EventHandler", FieldKind::kReference}};
    EXPECT_TRUE(writer.Layout(l));
    EXPECT_TRUE(writer.Container(RawContainer{container_kind, kGame, 0, 4, false, 0, ""}));
    EXPECT_TRUE(writer.Root(0x40, 0, 0, slot));
    EXPECT_TRUE(writer.Flush());
  };
  std::string error;
  check(11, 0, &error);
  EXPECT_EQ(error, "");
  check(11, 1, &error);
  EXPECT_NE(error.find("static field 1 out of range for its type (1 static fields)"),
            std::string::npos)
      << error;
  check(13, 0, &error);
  EXPECT_NE(error.find("not a type's statics"), std::string::npos) << error;
}

}  // namespace
}  // namespace xrpm::protocol
