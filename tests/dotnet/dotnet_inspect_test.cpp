// `xrpm inspect` on a capture of a real C# program under xrpm-dotnet: Mistakes.dll
// (device-agent/ports/dotnet/csharp/Mistakes, built from the source tests/mono runs under Mono)
// plants each mistake a known number of times next to near-misses (csharp_mistakes.h says what
// must be found: the same as under Mono); the capture carries CoreCLR's type traits (value type,
// enum, array rank, finalizer).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "csharp_mistakes.h"
#include "dotnet_process.h"
#include "temp_dir.h"
#include "test_util.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

TEST(DotnetInspect, FindsTheMistakesPlantedInACSharpGame) {
  SKIP_WITHOUT_DOTNET();
  DotnetRun run({}, DotnetProgram("Mistakes"), {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Mistakes: ready", 60000).empty()) << run.proc->log().All();
  const TempDir dir("xrpm_dotnet_inspect");
  const std::string file = dir.Path("mistakes.xrpm");
  CaptureAndExpectTheCSharpMistakes(run.endpoint, file, run.proc->log().All());
}

}  // namespace
}  // namespace xrpm::testing
