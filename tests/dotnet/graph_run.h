// GraphRun: the Graph program (device-agent/ports/dotnet/csharp/Graph) under xrpm-dotnet for the
// tests in tests/dotnet, held after "ready" by its gate, and CaptureWithCli: an `xrpm capture` of
// it, loaded.
//
// Thread-safety: one test thread.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "dotnet_process.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {

constexpr int kItems = 300;   // in the static List<Graph.Item>
constexpr int kEntries = 50;  // values of the static Dictionary<string, Graph.Entry>
constexpr int kNodes = 20;    // in the Graph.Node[] held by a local of Main

// The Graph program under xrpm-dotnet, held after "ready" by its gate: a named pipe the test
// keeps open for reading and writing (so the program's open never waits, whenever it comes) and
// writes the line the program waits for into.
struct GraphRun {
  // program_options: after Graph's own arguments (--thread-statics).
  explicit GraphRun(const std::vector<std::string>& launcher_args = {},
                    const std::vector<std::string>& program_options = {})
      : gate(dir.Path("gate")),
        gate_fd(mkfifo(gate.c_str(), 0600) == 0 ? open(gate.c_str(), O_RDWR | O_CLOEXEC) : -1),
        run(launcher_args, DotnetProgram("Graph"), ProgramArgs(gate, program_options)) {}
  ~GraphRun() {
    if (gate_fd >= 0) close(gate_fd);
  }
  // Lets the program go on past its gate: it reads the line and exits.
  void Release() {
    if (gate_fd >= 0) {
      EXPECT_EQ(write(gate_fd, "go\n", 3), 3);
    }
  }
  static std::vector<std::string> ProgramArgs(const std::string& gate,
                                              const std::vector<std::string>& options) {
    std::vector<std::string> args{std::to_string(kItems), std::to_string(kEntries),
                                  std::to_string(kNodes), "--gate", gate};
    args.insert(args.end(), options.begin(), options.end());
    return args;
  }
  TempDir dir{"xrpm-dotnet"};
  std::string gate;
  int gate_fd;
  DotnetRun run;
};

// `xrpm capture` of the agent at `endpoint` into `path` (extra: more options), loaded.
inline Snapshot CaptureWithCli(const std::string& endpoint, const std::string& path,
                               const std::string& extra = "") {
  const RunResult r = RunXrpm("capture --connect " + endpoint + " -o " + path + extra, true);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  Diagnostics diags;
  return formats::LoadSnapshot(path, diags);
}

}  // namespace xrpm::testing
