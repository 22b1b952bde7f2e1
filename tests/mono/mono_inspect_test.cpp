// `xrpm inspect` on a capture of a real C# program under xrpm-mono: Mistakes.exe
// (tests/mono/programs/Mistakes, the same source tests/dotnet runs under CoreCLR) plants each
// mistake a known number of times next to near-misses (csharp_mistakes.h says what must be
// found); the capture carries Mono's type traits (value type, enum, array rank, finalizer).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "csharp_mistakes.h"
#include "mono_process.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

TEST(MonoInspect, FindsTheMistakesPlantedInACSharpGame) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "Mistakes.Program:Tick", "--frame-window-ms", "30000"}, "Mistakes.exe",
              {});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Mistakes: ready", 30000).empty()) << run.proc->log().All();
  const TempDir dir("xrpm_mono_inspect");
  const std::string file = dir.Path("mistakes.xrpm");
  CaptureAndExpectTheCSharpMistakes(run.endpoint, file, run.proc->log().All());
}

}  // namespace
}  // namespace xrpm::testing
