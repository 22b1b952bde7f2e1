// xrpm-dotnet finds `dotnet` on the PATH passing over directories of that name: build/release/bin
// holds the C# programs in bin/dotnet/, and DOTNET.md puts that directory on the PATH.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "dotnet_process.h"
#include "temp_dir.h"

namespace xrpm::testing {
namespace {

TEST(DotnetLauncherPath, ADirectoryNamedDotnetOnThePathIsPassedOver) {
  SKIP_WITHOUT_DOTNET();
  TempDir dir("xrpm-dotnet-path");
  ASSERT_EQ(mkdir(dir.Path("dotnet").c_str(), 0755), 0);
  const RunResult r = RunShell("PATH='" + dir.Path("") + "':\"$PATH\" '" + DotnetLauncher() +
                               "' --port 0 --quiet --no-frame -- '" + DotnetProgram("XnaBubbles") +
                               "' --frames 3 --fps 0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("XnaBubbles: 3 frames in"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace xrpm::testing
