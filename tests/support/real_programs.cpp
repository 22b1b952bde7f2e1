// Real .NET programs and their generated inputs (real_programs.h).
#include "real_programs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "subprocess.h"

namespace xrpm::testing {
namespace fs = std::filesystem;

DotnetSdk FindDotnetSdk() {
  DotnetSdk sdk;
  const RunResult list = RunShell("dotnet --list-sdks 2>/dev/null", 60000);
  std::stringstream lines(list.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  // "10.0.401 [/usr/share/dotnet/sdk]"
  const size_t open = last.find(" [");
  if (list.exit_code != 0 || open == std::string::npos || last.back() != ']') {
    sdk.missing = "no .NET SDK (`dotnet --list-sdks` named none)";
    return sdk;
  }
  const std::string version = last.substr(0, open);
  const fs::path base = last.substr(open + 2, last.size() - open - 3);
  sdk.dotnet = (base.parent_path() / "dotnet").string();
  sdk.sdk_dir = (base / version).string();
  if (!fs::exists(sdk.dotnet)) {
    sdk.missing = "no dotnet muxer at " + sdk.dotnet;
    return sdk;
  }
  sdk.csc = (base / version / "Roslyn" / "bincore" / "csc.dll").string();
  if (!fs::exists(sdk.csc)) {
    sdk.missing = "the SDK has no C# compiler at " + sdk.csc;
    return sdk;
  }
  // The newest reference pack with a ref/netX.Y folder.
  const fs::path packs = base.parent_path() / "packs" / "Microsoft.NETCore.App.Ref";
  std::error_code ec;
  std::string best_version;
  for (const auto& v : fs::directory_iterator(packs, ec)) {
    const fs::path ref = v.path() / "ref";
    if (!fs::is_directory(ref)) continue;
    for (const auto& f : fs::directory_iterator(ref, ec))
      if (f.path().filename().string().rfind("net", 0) == 0 &&
          v.path().filename().string() > best_version) {
        best_version = v.path().filename().string();
        sdk.ref_dir = f.path().string();
        sdk.framework = f.path().filename().string();
      }
  }
  if (sdk.ref_dir.empty())
    sdk.missing = "no Microsoft.NETCore.App.Ref pack under " + packs.string();
  return sdk;
}

void WriteGeneratedCSharp(const std::string& path, const std::string& name_space, int classes) {
  std::ofstream f(path);
  f << "using System; using System.Collections.Generic; using System.Linq;\nnamespace "
    << name_space << " {\n";
  for (int i = 0; i < classes; ++i) {
    const int next = (i + 1) % classes;
    f << "public class C" << i << " {\n"
      << "  public int F" << i << "; public string S = \"c" << i
      << "\"; public List<int> L = new List<int>();\n"
      << "  public int M(int x) { var q = Enumerable.Range(0, x).Where(v => v % " << (i % 7 + 2)
      << " == 0).Select(v => v * " << i << ").ToList(); return q.Count + F" << i
      << " + (x > 3 ? new C" << next << "().M(x - 1) : 0); }\n"
      << "  public override string ToString() => $\"{S}:{F" << i << "}:{L.Count}\";\n}\n";
  }
  f << "}\n";
}

void WriteCscResponseFile(const DotnetSdk& sdk, const std::string& rsp, const std::string& source,
                          const std::string& out_dll) {
  std::ofstream f(rsp);
  f << "-nologo\n-deterministic\n-nostdlib\n-target:library\n-out:\"" << out_dll << "\"\n";
  std::vector<std::string> refs;
  for (const auto& e : fs::directory_iterator(sdk.ref_dir))
    if (e.path().extension() == ".dll") refs.push_back(e.path().string());
  std::sort(refs.begin(), refs.end());
  for (const std::string& r : refs) f << "-r:\"" << r << "\"\n";
  f << "\"" << source << "\"\n";
}

std::vector<std::string> WriteGeneratedSolution(const DotnetSdk& sdk, const std::string& dir,
                                                int projects, int classes) {
  std::vector<std::string> outputs;
  std::ofstream sln(dir + "/Gen.slnx");
  sln << "<Solution>\n";
  for (int p = 0; p < projects; ++p) {
    const std::string name = "P" + std::to_string(p);
    fs::create_directories(dir + "/" + name);
    std::ofstream proj(dir + "/" + name + "/" + name + ".csproj");
    proj << "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>"
         << sdk.framework << "</TargetFramework>\n    <RootNamespace>" << name
         << "</RootNamespace>\n  </PropertyGroup>\n";
    if (p > 0)
      proj << "  <ItemGroup><ProjectReference Include=\"../P" << p - 1 << "/P" << p - 1
           << ".csproj\" /></ItemGroup>\n";
    proj << "</Project>\n";
    // Each project's classes in its own namespace: the references do not collide.
    WriteGeneratedCSharp(dir + "/" + name + "/Gen.cs", name, classes);
    sln << "  <Project Path=\"" << name << "/" << name << ".csproj\" />\n";
    outputs.push_back(dir + "/" + name + "/bin/Debug/" + sdk.framework + "/" + name + ".dll");
  }
  sln << "</Solution>\n";
  std::ofstream(dir + "/nuget.config")
      << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <packageSources>\n"
         "    <clear />\n  </packageSources>\n</configuration>\n";
  return outputs;
}

std::vector<std::string> SolutionBuildArgs(const std::string& dir) {
  return {"build",
          dir + "/Gen.slnx",
          "-nodeReuse:false",
          "-m:1",
          "-p:UseSharedCompilation=false",
          "--disable-build-servers",
          "-v:q",
          "-nologo"};
}

}  // namespace xrpm::testing
