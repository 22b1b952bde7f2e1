// The agent's FieldMapper (device-agent/src/field_mapper.h) on its own: what it keeps per
// described type (a program with many loaded classes and few layouts must not pay a table entry
// per class), described types in any order, and a type met before its layout.
#include <gtest/gtest.h>

#include <cstdint>

#include "field_mapper.h"

namespace xrpm::testing {
namespace {

using agent::FieldInfo;
using agent::FieldMapper;
using agent::kNoSlot;
using agent::TypeLayoutInfo;
using agent::WalkDetail;
using protocol::FieldKind;
using protocol::TypeShape;

WalkDetail Fields() {
  WalkDetail d;
  d.fields = true;
  return d;
}

// A class with one reference field, "next".
struct OneRef {
  FieldInfo field{"next", 4, "Node", 4, 16, FieldKind::kReference, false, 0};
  TypeLayoutInfo layout{TypeShape::kClass, &field, 1, nullptr, 0, FieldKind::kUnknown, nullptr, 0};
};

TEST(FieldMapper, DescribedTypesWithoutALayoutCostFourBytesEach) {
  FieldMapper m(Fields(), 8);
  const size_t empty = m.FootprintBytes();
  constexpr uint32_t kTypes = 20000;  // the csharp shell loads 15-18 k classes
  for (uint32_t id = 1; id <= kTypes; ++id) m.NoteType(id);
  EXPECT_EQ(m.described_types(), kTypes);
  EXPECT_EQ(m.types_with_layout(), 0u);
  // A sorted id list (capacity at most twice the ids), not a table entry per type.
  EXPECT_LE(m.FootprintBytes() - empty, size_t{2} * kTypes * sizeof(uint32_t));
  OneRef r;
  protocol::RawLayout out;
  ASSERT_TRUE(m.MapLayout(kTypes / 2, r.layout, &out));
  EXPECT_EQ(m.types_with_layout(), 1u);
}

TEST(FieldMapper, TypesDescribedOutOfOrderAndTwiceAreKnownOnce) {
  FieldMapper m(Fields(), 8);
  for (uint32_t id : {10u, 5u, 7u, 5u, 12u, 1u, 10u}) m.NoteType(id);
  EXPECT_EQ(m.described_types(), 5u);
  OneRef r;
  protocol::RawLayout out;
  for (uint32_t id : {1u, 5u, 7u, 10u, 12u}) EXPECT_TRUE(m.MapLayout(id, r.layout, &out)) << id;
  EXPECT_EQ(out.type_id, 12u);
  EXPECT_FALSE(m.MapLayout(6, r.layout, &out)) << "a layout for an undescribed type";
  EXPECT_FALSE(m.MapLayout(7, r.layout, &out)) << "a second layout";
  EXPECT_EQ(m.types_with_layout(), 5u);
}

TEST(FieldMapper, AnObjectMetBeforeItsTypesLayoutDoesNotHideTheLayoutLater) {
  FieldMapper m(Fields(), 8);
  m.NoteType(3);
  const uint32_t slot = 0;
  // No layout yet: the slot has nothing to be checked against (counted, not sent).
  protocol::ObjectDetail d = m.Take(0x1000, 3, 24, &slot, 1);
  EXPECT_EQ(d.slots, nullptr);
  EXPECT_EQ(m.dropped(), 1u);
  OneRef r;
  protocol::RawLayout out;
  ASSERT_TRUE(m.MapLayout(3, r.layout, &out));
  // The same type again, now with its layout: the slot travels.
  d = m.Take(0x1100, 3, 24, &slot, 1);
  ASSERT_NE(d.slots, nullptr);
  EXPECT_EQ(d.slots[0], 0u);
  EXPECT_EQ(m.dropped(), 1u);
  const uint32_t unknown = kNoSlot;
  d = m.Take(0x1200, 4, 24, &unknown, 1);  // an undescribed type, unknown slot: nothing to drop
  EXPECT_EQ(m.dropped(), 1u);
}

// An array reported in parts (heap_walker.h ObjectReferencesPart): each part's element indices
// are checked against the length its values gave; from a part with one past the end, the
// array's slots travel as unknown, the array counted once.
TEST(FieldMapper, AnArrayInPartsHasEachPartsSlotsChecked) {
  WalkDetail detail = Fields();
  detail.values = true;
  FieldMapper m(detail, 8);
  m.NoteType(5);
  const TypeLayoutInfo array{TypeShape::kArray,     nullptr, 0, nullptr, 0,
                             FieldKind::kReference, "Node",  4};
  protocol::RawLayout out;
  ASSERT_TRUE(m.MapLayout(5, array, &out));
  const uint64_t length = 6;
  const uint32_t first[] = {0, 1}, second[] = {2, 3}, past[] = {4, 6}, last[] = {5};
  m.SetValues(0x2000, &length, 1);
  protocol::ObjectDetail d = m.Take(0x2000, 5, 24 + 6 * 8, first, 2);
  ASSERT_EQ(d.slots, first);
  ASSERT_EQ(d.value_count, 1u);
  EXPECT_EQ(m.TakePart(second, 2), second);
  EXPECT_EQ(m.dropped(), 0u);
  EXPECT_EQ(m.TakePart(past, 2), nullptr);  // element 6 of 6
  EXPECT_EQ(m.dropped(), 1u);
  EXPECT_EQ(m.TakePart(last, 1), nullptr);  // the rest unknown too, not counted again
  EXPECT_EQ(m.dropped(), 1u);
  // The next array starts afresh.
  m.SetValues(0x3000, &length, 1);
  d = m.Take(0x3000, 5, 24 + 6 * 8, first, 2);
  EXPECT_EQ(d.slots, first);
  EXPECT_EQ(m.TakePart(last, 1), last);
  EXPECT_EQ(m.dropped(), 1u);
  // Values that do not fit the layout (two words for an array) cost the values only: every
  // part's slots travel, as a whole object's would.
  const uint64_t two[] = {6, 7};
  m.SetValues(0x4000, two, 2);
  d = m.Take(0x4000, 5, 24 + 6 * 8, first, 2);
  EXPECT_EQ(d.value_count, 0u);
  EXPECT_EQ(d.slots, first);
  EXPECT_EQ(m.dropped(), 2u);
  EXPECT_EQ(m.TakePart(second, 2), second);
  EXPECT_EQ(m.dropped(), 2u);
  // A class with wrong values and then a wrong slot in a later part counts once.
  OneRef r;
  m.NoteType(6);
  ASSERT_TRUE(m.MapLayout(6, r.layout, &out));
  const uint64_t stray = 1;  // the class has no value field
  const uint32_t next[] = {0}, unknown_field[] = {5};
  m.SetValues(0x5000, &stray, 1);
  d = m.Take(0x5000, 6, 24, next, 1);
  EXPECT_EQ(d.slots, next);
  EXPECT_EQ(m.dropped(), 3u);
  EXPECT_EQ(m.TakePart(unknown_field, 1), nullptr);
  EXPECT_EQ(m.TakePart(next, 1), nullptr);
  EXPECT_EQ(m.dropped(), 3u);
}

}  // namespace
}  // namespace xrpm::testing
