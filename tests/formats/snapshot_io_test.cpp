// The format table: detection by content and extension, load/save through it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "xrpm/formats/netcf_writer.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/xrpm_" + std::to_string(getpid()) + "_" + name;
}

void Put(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

TEST(SnapshotIo, FormatTable) {
  ASSERT_FALSE(formats::Formats().empty());
  const formats::FormatInfo* f = formats::FindFormat("NETCF");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "netcf");
  EXPECT_TRUE(f->can_read && f->can_write);
  EXPECT_EQ(f->extensions.front(), ".gclog");
  EXPECT_EQ(formats::FindFormat("nope"), nullptr);
  EXPECT_EQ(formats::FormatForPath("a/b.GCLOG", false), f);
  EXPECT_EQ(formats::FormatForPath("a/b.bin", false), nullptr);
}

TEST(SnapshotIo, DetectsNetcfByContentWhateverTheExtension) {
  const std::string p = TempPath("dump.weird");
  Put(p, "\n  a 2 x\nc x\n");
  ASSERT_NE(formats::FormatForPath(p, true), nullptr);
  EXPECT_EQ(formats::FormatForPath(p, true)->name, "netcf");
  Diagnostics d;
  Snapshot s = formats::LoadSnapshot(p, d);
  EXPECT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.source, p);
  std::remove(p.c_str());
}

TEST(SnapshotIo, UnknownContentNeedsFrom) {
  const std::string p = TempPath("garbage.bin");
  Put(p,
      "\x7f"
      "ELF binary");
  Diagnostics d;
  try {
    formats::LoadSnapshot(p, d);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().code, "unknown-format");
  }
  // Forced: read as netcf, which finds nothing valid.
  EXPECT_THROW(formats::LoadSnapshot(p, d, {}, "netcf"), InputError);
  EXPECT_THROW(formats::LoadSnapshot(p, d, {}, "nosuch"), InputError);
  std::remove(p.c_str());
}

TEST(SnapshotIo, SaveByExtensionDefaultsToNetcf) {
  Snapshot s;
  s.AddSection({.version = 2, .name = "x"});
  s.AddType(1, "T", 0);
  s.AddObject(5, 0, 8, {});
  s.CloseSectionRanges();
  for (const char* name : {"out.gclog", "out.anything"}) {
    const std::string p = TempPath(name);
    formats::SaveSnapshot(s, p);
    Diagnostics d;
    EXPECT_TRUE(formats::LoadSnapshot(p, d) == s);
    std::remove(p.c_str());
  }
  EXPECT_THROW(formats::SaveSnapshot(s, TempPath("x.gclog"), "nosuch"), std::runtime_error);
}

TEST(SnapshotIo, MissingFileReportsTheOpenError) {
  Diagnostics d;
  try {
    formats::LoadSnapshot("/nonexistent.gclog", d);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().code, "open-failed");
  }
}

}  // namespace
}  // namespace xrpm
