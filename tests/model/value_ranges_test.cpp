// ValueRanges (value_ranges.h): per-object byte ranges with u32 ends per 256-object chunk read
// back what was appended across chunk boundaries; building from lengths (the readers' way) on
// several threads gives the same ranges; lengths that do not add up or overflow a chunk are
// refused with a message; CheckFields reports the same first problem whatever its thread count.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fields_game.h"
#include "xrpm/model/object_fields.h"
#include "xrpm/model/value_ranges.h"

namespace xrpm {
namespace {

// Object i's bytes: i % 41 bytes of value i (some empty).
std::vector<uint8_t> BytesOf(size_t i) {
  return std::vector<uint8_t>(i % 41, static_cast<uint8_t>(i));
}

TEST(ValueRanges, AppendedRangesReadBackAcrossChunks) {
  ValueRanges v;
  const size_t n = 3 * ValueRanges::kChunk + 17;
  for (size_t i = 0; i < n; ++i) v.Append(BytesOf(i));
  ASSERT_EQ(v.size(), n);
  EXPECT_EQ(v.base.size(), 4u);
  for (size_t i = 0; i < n; ++i) {
    const std::span<const uint8_t> r = v[i];
    ASSERT_EQ(std::vector<uint8_t>(r.begin(), r.end()), BytesOf(i)) << "object " << i;
  }
  // 4 B per object (+ a base per chunk), not 8.
  EXPECT_LT(v.end.bytes_reserved() + v.base.bytes_reserved(), n * 8);
}

TEST(ValueRanges, LengthsFinishIntoTheSameRangesOnAnyThreadCount) {
  ValueRanges appended;
  const size_t n = 5 * ValueRanges::kChunk + 3;
  for (size_t i = 0; i < n; ++i) appended.Append(BytesOf(i));
  for (unsigned threads : {1u, 2u, 3u}) {
    ValueRanges v;
    v.ResizeForLengths(n, appended.data.size());
    for (size_t i = 0; i < n; ++i) v.end[i] = static_cast<uint32_t>(BytesOf(i).size());
    std::copy(appended.data.begin(), appended.data.end(), v.data.data());
    ASSERT_EQ(v.FinishLengths(threads), "") << threads;
    EXPECT_TRUE(v == appended) << threads;
  }
}

TEST(ValueRanges, LengthsThatDoNotAddUpOrOverflowAChunkAreRefused) {
  ValueRanges v;
  v.ResizeForLengths(3, 10);
  v.end[0] = 4, v.end[1] = 4, v.end[2] = 4;
  EXPECT_EQ(v.FinishLengths(1),
            "the value lengths add up to 12 bytes, but there are 10 value bytes");
  // Two chunks; the second holds 6 GiB (lengths only: nothing that large is allocated).
  v.ResizeForLengths(ValueRanges::kChunk + 3, 0);
  for (size_t i = 0; i < v.size(); ++i) v.end[i] = 0;
  v.end[ValueRanges::kChunk] = 3u << 30, v.end[ValueRanges::kChunk + 2] = 3u << 30;
  EXPECT_EQ(v.FinishLengths(2),
            "objects 256..511 hold 6442450944 value bytes, more than the 4 GiB 256 objects may "
            "hold");
}

// Enough objects for several check chunks (CheckFields splits at ~256 K objects + references).
Snapshot ManyStrings(size_t n, size_t bad) {
  testing::FieldsHeapBuilder h;
  h.s.fields.values_captured = true;
  const uint32_t str = h.Type(0x20, "System.String", TypeShape::kString);
  for (size_t i = 0; i < n; ++i) {
    const std::string text(i % 7, 'a');
    const uint32_t length = i == bad ? 100 : static_cast<uint32_t>(text.size());
    h.Object(0x10000 + i * 32, str, 32, {}, testing::StringBytes(text, length));
  }
  return h.Take();
}

TEST(ValueRanges, TheCheckReportsTheFirstProblemWhateverItsThreadCount) {
  const size_t n = 600'000;
  const Snapshot good = ManyStrings(n, n);
  EXPECT_EQ(CheckFields(good, nullptr, 2), "");
  // Problems in the second and first halves: the first object's is reported.
  Snapshot s = ManyStrings(n, n - 10);
  testing::ReplaceValues(s, 12, testing::StringBytes("", 99));
  for (unsigned threads : {1u, 2u, 3u}) {
    FieldsPart where = FieldsPart::kLayouts;
    EXPECT_EQ(CheckFields(s, &where, threads),
              "object 0x10180 (type 0): string length 99 beyond the object's 32 bytes")
        << threads;
    EXPECT_EQ(where, FieldsPart::kValues);
  }
}

TEST(ValueRanges, TheCheckRefusesRangesThatDoNotFollowEachOther) {
  Snapshot s = ManyStrings(300, 300);
  s.fields.values.base[1] += 1;  // a gap before object 256; the last range still ends last
  s.fields.values.data.push_back(0);
  FieldsPart where = FieldsPart::kLayouts;
  const std::string msg = CheckFields(s, &where);
  EXPECT_NE(msg.find("object 0x12000 (type 0): values at bytes "), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected a range right after the previous object's"), std::string::npos)
      << msg;
  EXPECT_EQ(where, FieldsPart::kValues);
}

}  // namespace
}  // namespace xrpm
