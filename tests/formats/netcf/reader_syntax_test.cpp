// What the format allows, read without complaint: CRLF, odd spacing, names with spaces, late
// types, roots first, several sections, missing timestamps, no final newline, any extension.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "xrpm/formats/netcf_reader.h"

namespace xrpm {
namespace {

Snapshot ReadClean(std::string_view text, unsigned threads = 1) {
  Diagnostics d;
  formats::ReadOptions ro;
  ro.threads = threads;
  Snapshot s = formats::ReadNetcf(text, "ok.gclog", d, ro);
  EXPECT_TRUE(d.empty()) << d.kept().front().ToString();
  return s;
}

const char* kSample =
    "a 2 Game.exe 1a\n"
    "r 20 4 1 7\n"
    "o 10 7 1c 20 30\n"
    "t 7 System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[Foo, Bar]]\n"
    "o 20 7 8\n"
    "o 30 8 c\n"
    "t 8 System.String\n"
    "c Game.exe 2b\n";

TEST(NetcfSyntax, CrLfEqualsLf) {
  std::string crlf;
  for (const char* p = kSample; *p; ++p) {
    if (*p == '\n') crlf += '\r';
    crlf += *p;
  }
  EXPECT_TRUE(ReadClean(crlf) == ReadClean(kSample));
}

TEST(NetcfSyntax, TypeNamesKeepTheirSpaces) {
  Snapshot s = ReadClean(kSample);
  EXPECT_EQ(s.types[s.object_type[0]].written_name(),
            "System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[Foo, Bar]]");
  EXPECT_EQ(s.type_name_of(0), "System.Collections.Generic.Dictionary<System.String, Foo>");
  EXPECT_EQ(s.type_name_of(2), "System.String");
  EXPECT_EQ(s.root_container[0], 7u);
  EXPECT_EQ(s.root_flags[0], kRootPinned);
}

TEST(NetcfSyntax, SpacingTabsAndTrailingBlanksAreTolerated) {
  Snapshot a = ReadClean(kSample);
  Snapshot b = ReadClean(
      "  a\t2   Game.exe  1a  \n"
      "r 20 4 1 7\t\n"
      "\to  10 7 1c\t20 30   \n"
      "\n"
      "t 7   System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[Foo, Bar]]   \n"
      "o 20 7 8\n\n\n"
      "o 30 8 C\n"
      "t 8 System.String\r\n"
      "c Game.exe 2B");  // no final newline
  EXPECT_TRUE(a == b);
}

TEST(NetcfSyntax, AppDomainNamesWithSpacesAndOptionalTimestamps) {
  Snapshot s = ReadClean(
      "a 2 My Game.exe 1f\nc My Game.exe\na 3 Other Game\nc Other Game 99\na 2 abc\nc abc\n");
  ASSERT_EQ(s.sections.size(), 3u);
  EXPECT_EQ(s.sections[0].name, "My Game.exe");
  EXPECT_EQ(s.sections[0].start_ms, 0x1fu);
  EXPECT_FALSE(s.sections[0].end_ms);
  EXPECT_EQ(s.sections[1].name, "Other Game");
  EXPECT_EQ(s.sections[1].version, 3u);
  EXPECT_FALSE(s.sections[1].start_ms);
  EXPECT_EQ(s.sections[1].end_ms, 0x99u);
  EXPECT_EQ(s.sections[2].name, "abc");  // a lone hex-looking word is the name
  EXPECT_FALSE(s.sections[2].start_ms);
}

TEST(NetcfSyntax, SectionRangesPartitionTheColumns) {
  Snapshot s = ReadClean(
      "a 2 x\nt 1 A\no 1 1 4\nr 1 0 0\nc x\na 2 y\nt 1 B\nt 2 C\no 2 2 4 1\no 3 1 4\nr 3 1 0\nr 2 "
      "2 0\nc y\n");
  ASSERT_EQ(s.sections.size(), 2u);
  const auto& y = s.sections[1];
  EXPECT_EQ(y.types_begin, 1u);
  EXPECT_EQ(y.types_end, 3u);
  EXPECT_EQ(y.objects_begin, 1u);
  EXPECT_EQ(y.objects_end, 3u);
  EXPECT_EQ(y.roots_begin, 1u);
  EXPECT_EQ(y.roots_end, 3u);
  EXPECT_EQ(s.type_name_of(1), "C");
  EXPECT_EQ(s.type_name_of(2), "B");
  EXPECT_EQ(s.root_origin[0], kNoIndex);
}

TEST(NetcfSyntax, MaximumValuesLoad) {
  Snapshot s = ReadClean(
      "a ffffffff x ffffffffffffffff\nt ffffffff T\no ffffffffffffffff ffffffff ffffffff "
      "ffffffffffffffff\nr ffffffffffffffff 4 7 ffffffff\nc x\n");
  EXPECT_EQ(s.sections[0].version, 0xffffffffu);
  EXPECT_EQ(s.sections[0].start_ms, ~uint64_t{0});
  EXPECT_EQ(s.object_size[0], 0xffffffffu);
  EXPECT_EQ(s.object_id[0], ~uint64_t{0});
  EXPECT_EQ(s.root_container[0], 0xffffffffu);
}

TEST(NetcfSyntax, ObjectIdZeroIsAnOrdinaryId) {
  Snapshot s = ReadClean("a 2 x\nt 1 A\no 0 1 4 0\nr 0 1 0\nc x\n");
  EXPECT_EQ(s.object_count(), 1u);
}

TEST(NetcfSyntax, AnyFileExtension) {
  const std::string path =
      ::testing::TempDir() + "/xrpm_heap dump_" + std::to_string(getpid()) + ".TXT";
  {
    std::ofstream f(path, std::ios::binary);
    f << kSample;
  }
  Diagnostics d;
  Snapshot s = formats::ReadNetcfFile(path, d);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(s.object_count(), 3u);
  EXPECT_EQ(s.source, path);
  std::remove(path.c_str());
}

TEST(NetcfSyntax, MissingFileIsAnInputError) {
  Diagnostics d;
  try {
    formats::ReadNetcfFile("/nonexistent/dir/x.gclog", d);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().code, "open-failed");
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.gclog"), std::string::npos);
  }
  EXPECT_THROW(formats::ReadNetcfFile("/", d), InputError);  // a directory
}

}  // namespace
}  // namespace xrpm
