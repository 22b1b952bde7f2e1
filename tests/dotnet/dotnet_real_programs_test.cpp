// ctest-labels: cpu_timing
// Real .NET programs nobody here wrote, captured live and proven exact against dotnet-gcdump:
// the SDK's C# compiler compiling a large generated source, and MSBuild (`dotnet build`)
// building a generated multi-project solution (real_programs.h). Each runs under xrpm-dotnet
// and is captured three times while it works; each capture joins the collection
// `dotnet-gcdump collect` induces (`xrpm capture --join-induced-gc`, dotnet_port.h), so both
// files read the same collection and their per-type totals (objects and bytes of every type,
// keyed as gcdump_compare.h says) must be equal. The program must end as it does without the
// agent: the same exit code and the same output assemblies, byte for byte (deterministic
// compilation), and MSBuild's own .NET children (the compiler) run without the agent
// (profiler_env.h: only one agent listens). They skip without the SDK's compiler and reference
// pack or without dotnet-gcdump, saying why. Sanitizer builds do not build the .NET port, so
// these skip there too (DotnetMissing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "dotnet_process.h"
#include "file_bytes.h"
#include "gcdump_compare.h"
#include "real_programs.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

constexpr int kRealCaptures = 3;
// Sizes that keep each program busy for well over three capture-and-gcdump rounds (each about
// 5-10 s on two shared cores; the compile of 5000 classes takes 35-60 s there).
constexpr int kRealCscClasses = 5000;
constexpr int kRealProjects = 4;
constexpr int kRealProjectClasses = 300;
constexpr uint32_t kRealRunMs = 240000;

// Skips unless the SDK and dotnet-gcdump are here; fills both.
#define SKIP_WITHOUT_REAL_PROGRAMS(sdk, gcdump)          \
  SKIP_WITHOUT_DOTNET();                                 \
  const DotnetSdk sdk = FindDotnetSdk();                 \
  if (!sdk.missing.empty()) GTEST_SKIP() << sdk.missing; \
  const std::string gcdump = FindDotnetGcdump();         \
  if (gcdump.empty()) GTEST_SKIP() << GcdumpMissingReason()

// Capture `n` of the program in `run` (process `pid`): `xrpm capture --join-induced-gc` waits,
// then `dotnet-gcdump collect` induces the collection both read; their totals per type key must
// be equal. False (with the failure added) when a step did not complete.
bool CaptureAlongsideGcdump(DotnetRun& run, int pid, const std::string& gcdump, const TempDir& dir,
                            int n, size_t* objects) {
  if (run.proc->Exited()) {
    ADD_FAILURE() << "the program ended before capture " << n
                  << ": grow the generated input so it runs longer\n"
                  << run.proc->log().All();
    return false;
  }
  const std::string x = dir.Path("x" + std::to_string(n) + ".xrpm");
  const std::string g = dir.Path("g" + std::to_string(n) + ".gcdump");
  BackgroundProcess cap(
      {kXrpm, "capture", "--connect", run.endpoint, "--join-induced-gc=120s", "-o", x});
  // The agent logs this once the recording is armed: a collection induced from now on is it.
  if (run.proc->log().WaitCount("for a full collection another tool induces", n, 60000) <
      static_cast<size_t>(n)) {
    ADD_FAILURE() << "capture " << n << " never waited for the collection\n"
                  << cap.log().All() << run.proc->log().All();
    return false;
  }
  const RunResult gd = RunProcess({gcdump, "collect", "-p", std::to_string(pid), "-o", g}, 120000);
  const int cap_exit = cap.Wait(130000);
  if (gd.exit_code != 0 || cap_exit != 0) {
    ADD_FAILURE() << "capture " << n << ": dotnet-gcdump exit " << gd.exit_code << " (" << gd.out
                  << gd.err << "), xrpm capture exit " << cap_exit << " (" << cap.log().All()
                  << ")\n"
                  << run.proc->log().All();
    return false;
  }
  Diagnostics dx, dg;
  const Snapshot xs = formats::LoadSnapshot(x, dx);
  const Snapshot gs = formats::LoadSnapshot(g, dg);
  EXPECT_GT(xs.object_count(), 0u) << "capture " << n;
  EXPECT_EQ(xs.object_count(), gs.object_count()) << "capture " << n;
  *objects = std::max(*objects, xs.object_count());
  const auto xt = TotalsByGcdumpKey(xs), gt = TotalsByGcdumpKey(gs);
  EXPECT_EQ(xt.size(), gt.size()) << "capture " << n << ": types";
  size_t differing = 0;
  std::string shown;
  for (const auto& [key, totals] : xt) {
    auto other = gt.find(key);
    const GcdumpKeyTotals theirs = other == gt.end() ? GcdumpKeyTotals{} : other->second;
    if (totals == theirs) continue;
    if (++differing <= 20)
      shown += "  " + key + ": xrpm " + std::to_string(totals.count) + " objects, " +
               std::to_string(totals.bytes) + " B; dotnet-gcdump " + std::to_string(theirs.count) +
               " objects, " + std::to_string(theirs.bytes) + " B\n" +
               GcdumpObjectDifferences(xs, gs, key);
  }
  for (const auto& [key, totals] : gt)
    if (!xt.count(key) && ++differing <= 20)
      shown += "  " + key + ": only dotnet-gcdump, " + std::to_string(totals.count) + " objects\n";
  EXPECT_EQ(differing, 0u) << "capture " << n << " (" << xt.size()
                           << " types): types whose totals differ\n"
                           << shown;
  // Recorded in the pause: a snapshot child would have ended the walk the other tool reads.
  EXPECT_EQ(run.proc->log().All().find("recorded in a snapshot process, received"),
            std::string::npos)
      << "capture " << n;
  return true;
}

// The agent loaded in the program only: one agent line saying it listens.
void ExpectOneAgent(DotnetRun& run) {
  EXPECT_EQ(run.proc->log().WaitCount("listening on", 2, 0), 1u) << run.proc->log().All();
}

TEST(DotnetRealPrograms, CscCompileCapturedThriceEqualsDotnetGcdumpOfTheSameCollection) {
  SKIP_WITHOUT_REAL_PROGRAMS(sdk, gcdump);
  TempDir dir("xrpm-real-csc");
  WriteGeneratedCSharp(dir.Path("Gen.cs"), "Gen", kRealCscClasses);
  WriteCscResponseFile(sdk, dir.Path("csc.rsp"), dir.Path("Gen.cs"), dir.Path("Gen.dll"));
  const std::vector<std::string> compile = {"exec", sdk.csc, "@" + dir.Path("csc.rsp")};

  // Without the agent: the reference.
  std::vector<std::string> plain = {sdk.dotnet};
  plain.insert(plain.end(), compile.begin(), compile.end());
  const RunResult ref = RunProcess(plain, kRealRunMs);
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  const std::string ref_dll = FileBytes(dir.Path("Gen.dll"));
  ASSERT_GT(ref_dll.size(), 100000u);
  std::filesystem::remove(dir.Path("Gen.dll"));

  // With it (GC events per capture: the launcher turns background collections off).
  DotnetRun run({"--no-frame"}, sdk.dotnet, compile);
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  const int pid = FirstChildOf(run.proc->pid());
  ASSERT_GT(pid, 0);
  size_t most = 0;  // objects in the largest capture: the program was at work
  for (int n = 1; n <= kRealCaptures; ++n)
    if (!CaptureAlongsideGcdump(run, pid, gcdump, dir, n, &most)) break;
  EXPECT_GT(most, 100000u);
  EXPECT_EQ(run.proc->Wait(kRealRunMs), ref.exit_code) << run.proc->log().All();
  EXPECT_TRUE(FileBytes(dir.Path("Gen.dll")) == ref_dll)
      << "the compiled assembly differs from the one compiled without the agent";
  ExpectOneAgent(run);
}

TEST(DotnetRealPrograms, MsbuildSolutionCapturedThriceEqualsDotnetGcdumpOfTheSameCollection) {
  SKIP_WITHOUT_REAL_PROGRAMS(sdk, gcdump);
  TempDir dir("xrpm-real-msbuild");
  const std::vector<std::string> outputs =
      WriteGeneratedSolution(sdk, dir.path(), kRealProjects, kRealProjectClasses);
  const std::vector<std::string> build = SolutionBuildArgs(dir.path());
  // Quiet, and offline: the nuget.config clears the package sources.
  setenv("DOTNET_CLI_TELEMETRY_OPTOUT", "1", 1);
  setenv("DOTNET_NOLOGO", "1", 1);
  setenv("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1", 1);

  std::vector<std::string> plain = {sdk.dotnet};
  plain.insert(plain.end(), build.begin(), build.end());
  const RunResult ref = RunProcess(plain, kRealRunMs);
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  std::vector<std::string> ref_dlls;
  for (const std::string& out : outputs) {
    ref_dlls.push_back(FileBytes(out));
    ASSERT_GT(ref_dlls.back().size(), 10000u) << out;
  }
  for (int p = 0; p < kRealProjects; ++p) {  // a clean build again, restore included
    std::filesystem::remove_all(dir.Path("P" + std::to_string(p) + "/bin"));
    std::filesystem::remove_all(dir.Path("P" + std::to_string(p) + "/obj"));
  }

  // With the agent, background collections asked for (GC events always on): the compiler
  // processes MSBuild starts inherit the environment, and with it their usual collections.
  ASSERT_EQ(setenv("DOTNET_gcConcurrent", "1", 1), 0);
  DotnetRun run({"--no-frame"}, sdk.dotnet, build);
  unsetenv("DOTNET_gcConcurrent");
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  EXPECT_NE(run.proc->log().WaitFor("GC events always on", 30000), "");
  const int pid = FirstChildOf(run.proc->pid());
  ASSERT_GT(pid, 0);
  size_t most = 0;  // objects in the largest capture: the program was at work
  for (int n = 1; n <= kRealCaptures; ++n)
    if (!CaptureAlongsideGcdump(run, pid, gcdump, dir, n, &most)) break;
  EXPECT_GT(most, 100000u);
  EXPECT_EQ(run.proc->Wait(kRealRunMs), ref.exit_code) << run.proc->log().All();
  for (size_t i = 0; i < outputs.size(); ++i)
    EXPECT_TRUE(FileBytes(outputs[i]) == ref_dlls[i])
        << outputs[i] << " differs from the one built without the agent";
  ExpectOneAgent(run);
}

}  // namespace
}  // namespace xrpm::testing
