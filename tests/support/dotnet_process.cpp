#include "dotnet_process.h"

#include <unistd.h>

#include <cstdlib>

namespace xrpm::testing {

std::string DotnetMissing() {
#ifndef XRPM_DOTNET_LAUNCHER
  return "the .NET port is not built in this configuration (sanitizer and fuzz builds leave it "
         "out; otherwise the .NET SDK was not found: install it so that `dotnet` is on the "
         "PATH, then reconfigure)";
#else
  if (access(DotnetProgram("Graph").c_str(), R_OK) != 0)
    return "the .NET test programs are not built (" + DotnetProgram("Graph") + ")";
  return "";
#endif
}

std::string DotnetLauncher() {
#ifdef XRPM_DOTNET_LAUNCHER
  return XRPM_DOTNET_LAUNCHER;
#else
  return "";
#endif
}

std::string DotnetProgram(const std::string& name) {
#ifdef XRPM_DOTNET_PROGRAMS_DIR
  return std::string(XRPM_DOTNET_PROGRAMS_DIR) + "/" + name + "/" + name + ".dll";
#else
  return name + ".dll";
#endif
}

std::string DotnetExecutable() {
  const char* path = std::getenv("PATH");
  const std::string all = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= all.size();) {
    size_t end = all.find(':', at);
    if (end == std::string::npos) end = all.size();
    const std::string candidate = all.substr(at, end - at) + "/dotnet";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "dotnet";
}

RunResult RunDotnetLauncher(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {DotnetLauncher()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 60000);
}

DotnetRun::DotnetRun(const std::vector<std::string>& launcher_args, const std::string& program,
                     const std::vector<std::string>& args) {
  std::vector<std::string> argv = {DotnetLauncher(), "--port", "0"};
  argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
  argv.push_back("--");
  argv.push_back(program);
  argv.insert(argv.end(), args.begin(), args.end());
  proc = std::make_unique<BackgroundProcess>(argv);
  endpoint = WaitForAgentEndpoint(*proc, 60000);
}

}  // namespace xrpm::testing
