#include "xrpm/model/type_histogram.h"

#include <gtest/gtest.h>

namespace xrpm {
namespace {

Snapshot TwoSections() {
  Snapshot s;
  s.AddSection({.name = "a"});
  uint32_t str = s.AddType(1, "System.String", 0);
  uint32_t arr = s.AddType(2, "System.Object[]", 0);
  s.AddType(3, "Unused", 0);
  s.AddObject(1, str, 20, {});
  s.AddObject(2, str, 30, {});
  s.AddObject(3, arr, 100, {});
  s.CloseSectionRanges();
  s.AddSection({.name = "b"});
  uint32_t str2 = s.AddType(9, "System.String", 1);
  uint32_t ph = s.AddType(7, "<unknown type 7>", 1, true);
  s.AddObject(4, str2, 10, {});
  s.AddObject(5, ph, 1000, {});
  s.CloseSectionRanges();
  return s;
}

TEST(TypeHistogram, MergesEqualNamesAcrossSections) {
  auto rows = ComputeTypeHistogram(TwoSections());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "System.String");
  EXPECT_EQ(rows[0].count, 3u);
  EXPECT_EQ(rows[0].bytes, 60u);
  EXPECT_EQ(rows[0].type_count, 2u);
  EXPECT_TRUE(rows[2].placeholder);
}

TEST(TypeHistogram, PerSectionAndEmptyTypes) {
  TypeHistogramOptions o;
  o.merge_by_name = false;
  EXPECT_EQ(ComputeTypeHistogram(TwoSections(), o).size(), 4u);
  o.include_empty = true;
  EXPECT_EQ(ComputeTypeHistogram(TwoSections(), o).size(), 5u);
  o.section = 1;
  o.include_empty = false;
  auto rows = ComputeTypeHistogram(TwoSections(), o);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].count, 1u);
  o.section = 9;
  EXPECT_TRUE(ComputeTypeHistogram(TwoSections(), o).empty());
}

TEST(TypeHistogram, Sorting) {
  auto rows = ComputeTypeHistogram(TwoSections());
  SortTypeHistogram(rows, TypeSort::kBytes);
  EXPECT_EQ(rows[0].name, "<unknown type 7>");
  SortTypeHistogram(rows, TypeSort::kCount);
  EXPECT_EQ(rows[0].name, "System.String");
  EXPECT_EQ(rows[1].name, "<unknown type 7>");  // ties on count broken by bytes
  SortTypeHistogram(rows, TypeSort::kName);
  EXPECT_EQ(rows[0].name, "<unknown type 7>");
  EXPECT_EQ(ParseTypeSort("bytes"), TypeSort::kBytes);
  EXPECT_FALSE(ParseTypeSort("size"));
}

}  // namespace
}  // namespace xrpm
