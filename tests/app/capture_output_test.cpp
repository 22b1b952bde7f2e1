// Where unattended captures go: the -o template's fields and its errors, the
// file-name-safe field text, and the --keep ring removing the oldest files it wrote.
#include "xrpm/app/capture_output.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"

namespace xrpm::app {
namespace {

TEST(OutputTemplate, ExpandsNumberMarkerAndTrigger) {
  OutputTemplate t;
  std::string err;
  ASSERT_TRUE(t.Parse("out/run-{n}-{marker}.{trigger}.xrpm", &err)) << err;
  EXPECT_TRUE(t.numbered());
  EXPECT_EQ(t.Expand(12, "Level 7 loaded", "marker"), "out/run-12-Level_7_loaded.marker.xrpm");
  EXPECT_EQ(t.Expand(1, "", "every"), "out/run-1-none.every.xrpm");
  ASSERT_TRUE(t.Parse("{{x}}-{n}", &err)) << err;
  EXPECT_EQ(t.Expand(3, "", ""), "{x}-3");
  ASSERT_TRUE(t.Parse("latest.xrpm", &err));
  EXPECT_FALSE(t.numbered());
}

TEST(OutputTemplate, BadFieldsNameTheirOffset) {
  OutputTemplate t;
  std::string err;
  EXPECT_FALSE(t.Parse("run-{x}.xrpm", &err));
  EXPECT_EQ(err, "offset 4: expected {n}, {marker} or {trigger}, found '{x}'");
  EXPECT_FALSE(t.Parse("run-{n.xrpm", &err));
  EXPECT_EQ(err, "offset 4: expected {n}, {marker} or {trigger}, found '{n.xrpm'");
  EXPECT_FALSE(t.Parse("run}.xrpm", &err));
  EXPECT_EQ(err, "offset 3: expected '}}' for a literal brace, found '}'");
  EXPECT_FALSE(t.Parse("", &err));
}

TEST(OutputTemplate, FieldsAreSafeFileNames) {
  EXPECT_EQ(FileNameField("../../etc/passwd"), "_._.._etc_passwd");
  EXPECT_EQ(FileNameField(".hidden"), "_hidden");
  EXPECT_EQ(FileNameField(std::string(200, 'a')), std::string(64, 'a'));
  EXPECT_EQ(FileNameField("W\xc3\xa9ve 1"), "W__ve_1");
}

TEST(CaptureFileRing, KeepsTheNewestFilesItWrote) {
  const testing::TempDir dir("xrpm_ring");
  const std::string other = dir.Path("mine.txt");
  std::ofstream(other) << "not the ring's";
  CaptureFileRing ring(2);
  std::vector<std::string> removed;
  for (int i = 1; i <= 4; ++i) {
    const std::string f = dir.Path("c" + std::to_string(i));
    std::ofstream(f) << i;
    auto r = ring.Add(f);
    removed.insert(removed.end(), r.begin(), r.end());
  }
  EXPECT_EQ(removed, (std::vector<std::string>{dir.Path("c1"), dir.Path("c2")}));
  EXPECT_FALSE(std::filesystem::exists(dir.Path("c1")));
  EXPECT_FALSE(std::filesystem::exists(dir.Path("c2")));
  EXPECT_TRUE(std::filesystem::exists(dir.Path("c3")));
  EXPECT_TRUE(std::filesystem::exists(dir.Path("c4")));
  EXPECT_TRUE(std::filesystem::exists(other));
  // The same name again (a template without {n}) is one file, not two.
  EXPECT_TRUE(ring.Add(dir.Path("c4")).empty());
  EXPECT_EQ(ring.files().size(), 2u);
}

}  // namespace
}  // namespace xrpm::app
