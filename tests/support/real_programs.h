// Real .NET programs for tests/dotnet and bench/dotnet, which nobody here wrote: the SDK's own C#
// compiler (csc.dll under the SDK's Roslyn/bincore, run with `dotnet exec` against the reference
// assemblies of the SDK's Microsoft.NETCore.App.Ref pack) and MSBuild (`dotnet build`), with the
// inputs they work on generated here: a large C# source and a multi-project solution that
// restores offline (a nuget.config that clears every package source: the projects need only
// the targeting pack the SDK carries).
//
// Thread-safety: functions of their arguments (they run `dotnet` and write files).
#pragma once

#include <string>
#include <vector>

namespace xrpm::testing {

struct DotnetSdk {
  std::string missing;    // why the SDK cannot be used here ("" when it can)
  std::string dotnet;     // DOTNET_ROOT/dotnet, the muxer that lists the SDK
  std::string sdk_dir;    // DOTNET_ROOT/sdk/10.0.401
  std::string csc;        // SDK_DIR/Roslyn/bincore/csc.dll
  std::string ref_dir;    // DOTNET_ROOT/packs/Microsoft.NETCore.App.Ref/V/ref/net10.0
  std::string framework;  // "net10.0": the reference pack's, the generated projects'
};
// The newest SDK `dotnet --list-sdks` names.
DotnetSdk FindDotnetSdk();

// A C# library of `classes` classes (each with fields, a LINQ query in a lambda, string
// interpolation and a call into the next class) to compile; and the csc response file that
// compiles it deterministically into `out_dll` against the reference pack.
void WriteGeneratedCSharp(const std::string& path, const std::string& name_space, int classes);
void WriteCscResponseFile(const DotnetSdk& sdk, const std::string& rsp, const std::string& source,
                          const std::string& out_dll);

// `projects` library projects P0..Pn-1 in DIR (each referencing the one before, `classes`
// classes each), DIR/Gen.slnx naming them all and DIR/nuget.config clearing the package
// sources. Returns each project's output assembly (Debug), in project order.
std::vector<std::string> WriteGeneratedSolution(const DotnetSdk& sdk, const std::string& dir,
                                                int projects, int classes);
// `dotnet build DIR/Gen.slnx` with one MSBuild process (no node reuse, no compiler server, no
// build servers, -m:1), quiet: the argv after "dotnet".
std::vector<std::string> SolutionBuildArgs(const std::string& dir);

}  // namespace xrpm::testing
