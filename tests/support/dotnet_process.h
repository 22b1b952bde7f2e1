// Helpers for the .NET port's tests: where xrpm-dotnet and the C# programs are, whether the port
// was built at all, and a running `xrpm-dotnet --port 0 ... -- PROGRAM.dll ARGS` whose agent
// endpoint is read from its "xrpm-agent: listening on" line.
//
// Thread-safety: one test thread drives each DotnetRun.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"

// In a test body: skips the test, saying why, when the .NET port cannot run here.
#define SKIP_WITHOUT_DOTNET()                                 \
  do {                                                        \
    const std::string why = ::xrpm::testing::DotnetMissing(); \
    if (!why.empty()) GTEST_SKIP() << why;                    \
  } while (0)

namespace xrpm::testing {

// "" when the .NET port was built and can run here, else why not (for GTEST_SKIP).
std::string DotnetMissing();
std::string DotnetLauncher();
// The path of a C# program the build compiled: bin/dotnet/<name>/<name>.dll.
std::string DotnetProgram(const std::string& name);

// The `dotnet` on the PATH (absolute), for programs run without the agent.
std::string DotnetExecutable();

// xrpm-dotnet ARGS, run to completion (killed after 60 s).
RunResult RunDotnetLauncher(const std::vector<std::string>& args);

struct DotnetRun {
  // xrpm-dotnet --port 0 LAUNCHER_ARGS -- PROGRAM.dll ARGS; waits for the listening line.
  DotnetRun(const std::vector<std::string>& launcher_args, const std::string& program,
            const std::vector<std::string>& args);
  std::unique_ptr<BackgroundProcess> proc;
  std::string endpoint;  // "127.0.0.1:PORT", empty if the agent never listened
};

}  // namespace xrpm::testing
