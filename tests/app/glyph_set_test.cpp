// The characters beyond ASCII that a snapshot's text needs drawn (glyph_set.h).
#include "xrpm/app/glyph_set.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "heap_builder.h"

namespace xrpm::app {
namespace {

using testing::HeapBuilder;

// Two strings (Japanese, and Greek with a malformed byte), a Cyrillic type name, a non-string
// object whose value bytes must not be read as text.
Snapshot TextHeap() {
  HeapBuilder b;
  b.Obj(0x10, "System.String", 32).Obj(0x20, "System.String", 32);
  b.Obj(0x30, "Игра.Враг", 16).Obj(0x40, "Counter", 16);
  Snapshot s = b.Build();
  s.fields.layouts.resize(s.types.size());
  s.fields.layouts[s.object_type[0]].shape = TypeShape::kString;
  s.fields.AddValues(HeapFields::EncodeString("こんにちは", 5, false));
  s.fields.AddValues(HeapFields::EncodeString("\xce\xb1\xff", 2, false));  // α, a stray byte
  s.fields.AddValues({});
  s.fields.AddValues(HeapFields::EncodeString("ü", 1, false));  // not a string: no text
  return s;
}

TEST(GlyphSet, CollectsNamesAndStringTextSortedOnce) {
  const Snapshot s = TextHeap();
  const std::vector<char32_t> got = NonAsciiCodePoints(s);
  const std::vector<char32_t> want = {U'α',  U'В',  U'И',  U'а',  U'г',  U'р',
                                      U'こ', U'ち', U'に', U'は', U'ん', U'\uFFFD'};
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::count(got.begin(), got.end(), U'ü'), 0) << "only string objects carry text";
}

TEST(GlyphSet, KeepsTheSmallestUpToTheLimit) {
  const Snapshot s = TextHeap();
  const std::vector<char32_t> got = NonAsciiCodePoints(s, 2);
  EXPECT_EQ(got, (std::vector<char32_t>{U'α', U'В'}));
  EXPECT_TRUE(NonAsciiCodePoints(HeapBuilder().Obj(1, "Plain", 8).Build()).empty());
}

}  // namespace
}  // namespace xrpm::app
