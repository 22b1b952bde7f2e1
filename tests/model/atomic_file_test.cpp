// AtomicFile: a regular target is replaced whole on Commit and untouched on Abort; a target that is
// a device (/dev/null) is written in place and stays the device (renaming a temporary file over
// it, as for a regular file, would replace the system's /dev/null with a file).
#include "xrpm/model/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.h"

namespace xrpm {
namespace {

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, CommitReplacesTheFileAndAbortLeavesIt) {
  const testing::TempDir dir("xrpm_atomic_file");
  const std::string path = dir.Path("out.bin");
  { std::ofstream(path) << "old"; }
  {
    AtomicFile f(path);
    f.Write("new contents");
    f.Overwrite(0, "NEW");
    EXPECT_EQ(Contents(path), "old") << "readers see the old file until Commit";
    f.Commit();
  }
  EXPECT_EQ(Contents(path), "NEW contents");
  {
    AtomicFile f(path);
    f.Write("half");
  }  // destroyed uncommitted
  EXPECT_EQ(Contents(path), "NEW contents");
  EXPECT_EQ(FilesIn(dir.path()), 1u) << "no temporary file left behind";
}

TEST(AtomicFile, ADeviceIsWrittenInPlaceAndStaysADevice) {
  struct stat before;
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  {
    AtomicFile f("/dev/null");
    f.Write(std::string(3 << 20, 'x'));  // past the buffer: written through
    f.Commit();
  }
  {
    AtomicFile f("/dev/null");
    f.Write("dropped");
    f.Abort();
  }
  struct stat after;
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/null is still a character device";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

}  // namespace
}  // namespace xrpm
