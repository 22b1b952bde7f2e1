// The specs' own examples, read as fixtures.
#include <gtest/gtest.h>

#include "xrpm/formats/netcf_reader.h"

namespace xrpm {
namespace {

Snapshot ReadSpec(std::string_view text, Diagnostics& d) {
  return formats::ReadNetcf(text, "t.gclog", d);
}

TEST(NetcfSpec, NotesObjectExampleSizeIsHex) {
  Diagnostics d;
  Snapshot s = ReadSpec("a 2 x.exe\nt 3 T\no 1c15d2 3 1c 1c15db 1c15d8 1c15d5\nc x.exe\n", d);
  ASSERT_EQ(s.object_count(), 1u);
  EXPECT_EQ(s.object_id[0], 0x1c15d2u);
  EXPECT_EQ(s.object_size[0], 28u);
  EXPECT_EQ(s.type_name_of(0), "T");
  ASSERT_EQ(s.object_refs(0).size(), 3u);
  EXPECT_EQ(s.object_refs(0)[0], 0x1c15dbu);
  EXPECT_EQ(s.object_refs(0)[2], 0x1c15d5u);
}

TEST(NetcfSpec, FormatSampleLoadsWithTimestampsAndLateTypes) {
  Diagnostics d;
  Snapshot s = formats::ReadNetcfFile(XRPM_TEST_DATA "/netcf/spec-format-sample.gclog", d);
  ASSERT_EQ(s.sections.size(), 1u);
  const AppDomainSection& sec = s.sections[0];
  EXPECT_EQ(sec.version, 2u);
  EXPECT_EQ(sec.name, "bubblecs.exe");
  EXPECT_EQ(sec.start_ms, 0x763f9d2u);
  EXPECT_EQ(sec.end_ms, 0x763fbefu);
  EXPECT_EQ(sec.end_name, "");
  EXPECT_TRUE(sec.closed);
  EXPECT_EQ(s.object_count(), 6u);
  EXPECT_EQ(s.root_count(), 3u);
  // `t 3` comes after objects; `1d` and `1b` never get a type record.
  EXPECT_EQ(s.type_name_of(2), "System.NullReferenceException");
  EXPECT_EQ(s.type_name_of(3), "<unknown type 1d>");
  EXPECT_TRUE(s.types[s.object_type[3]].placeholder);
  EXPECT_EQ(s.object_size[3], 0x118u);
  EXPECT_EQ(s.object_refs(3).size(), 8u);
  EXPECT_EQ(s.root_kind_of(0), RootKind::kGcSpecific);
  EXPECT_EQ(s.root_object[0], 0x22c81bu);
  EXPECT_EQ(d.counts().at("unknown-type"), 2u);
}

TEST(NetcfSpec, NotesSampleHasNoTimestamps) {
  Diagnostics d;
  Snapshot s = formats::ReadNetcfFile(XRPM_TEST_DATA "/netcf/spec-notes-sample.gclog", d);
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_FALSE(s.sections[0].start_ms.has_value());
  EXPECT_FALSE(s.sections[0].end_ms.has_value());
  EXPECT_EQ(s.sections[0].name, "bubblecs.exe");
  EXPECT_EQ(s.object_count(), 6u);
}

TEST(NetcfSpec, StaticRootCarriesContainer) {
  Diagnostics d;
  Snapshot s = ReadSpec(
      "a 2 HH3.exe 763f9d2\nt 13c C\no b2753 13c 8\nr b2753 4 0 13c\nc HH3.exe 763fbef\n", d);
  EXPECT_TRUE(d.empty()) << d.kept().front().ToString();
  ASSERT_EQ(s.root_count(), 1u);
  EXPECT_EQ(s.root_kind_of(0), RootKind::kStatic);
  EXPECT_EQ(s.root_container[0], 0x13cu);
}

}  // namespace
}  // namespace xrpm
