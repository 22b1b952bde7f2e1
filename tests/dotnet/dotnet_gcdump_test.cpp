// ctest-labels: cpu_timing
// The .NET port's capture against an independent reading of the same heap: `dotnet-gcdump
// collect` of the same idle process right after `xrpm capture` (the runtime's heap walk read
// through EventPipe instead of the profiling API). The program's own types' counts and bytes
// must be equal; the runtime's own types may differ by a few objects it allocated between the
// two collections (docs/DOTNET.md; `--join-induced-gc` reads one collection twice instead).
// dotnet-gcdump is a NuGet tool, not part of the SDK: scripts/build.sh installs it into build/tools
// (scripts/dotnet_tools.sh). The test runs when it is found (XRPM_DOTNET_GCDUMP, build/tools, or
// dotnet-gcdump on the PATH) and skips otherwise, saying why (the install's own reason when it
// failed). The program runs with background collections asked for (DOTNET_gcConcurrent=1), so the
// port has the GC events on from start-up and cuts the heap walk of collections it does not record:
// the test also shows that another tool's forced collection is walked whole.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "dotnet_process.h"
#include "gcdump_compare.h"
#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

struct TypeTotals {
  size_t count = 0;
  uint64_t bytes = 0;
};
std::map<std::string, TypeTotals> ByType(const Snapshot& s) {
  std::map<std::string, TypeTotals> t;
  for (size_t i = 0; i < s.object_count(); ++i) {
    TypeTotals& e = t[s.type_name_of(i)];
    ++e.count;
    e.bytes += s.object_size[i];
  }
  return t;
}

TEST(DotnetGcdump, SameCountsAsDotnetGcdumpOfTheSameProcess) {
  SKIP_WITHOUT_DOTNET();
  const std::string gcdump = FindDotnetGcdump();
  if (gcdump.empty()) GTEST_SKIP() << GcdumpMissingReason();
  TempDir dir("xrpm-gcdump");
  const std::string gate = dir.Path("gate");
  ASSERT_EQ(mkfifo(gate.c_str(), 0600), 0);
  const int gate_fd = open(gate.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(gate_fd, 0);
  ASSERT_EQ(setenv("DOTNET_gcConcurrent", "1", 1), 0);
  DotnetRun run({}, DotnetProgram("Graph"), {"300", "50", "20", "--gate", gate});
  unsetenv("DOTNET_gcConcurrent");
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Graph: ready", 60000).empty());
  EXPECT_NE(run.proc->log().WaitFor("GC events always on", 30000), "");
  const int pid = FirstChildOf(run.proc->pid());
  ASSERT_GT(pid, 0);

  const RunResult cap =
      RunXrpm("capture --connect " + run.endpoint + " -o " + dir.Path("x.xrpm"), true);
  ASSERT_EQ(cap.exit_code, 0) << cap.out;
  const RunResult gd = RunProcess(
      {gcdump, "collect", "-p", std::to_string(pid), "-o", dir.Path("g.gcdump")}, 120000);
  ASSERT_EQ(gd.exit_code, 0) << gd.out << gd.err;

  Diagnostics dx, dg;
  const Snapshot x = formats::LoadSnapshot(dir.Path("x.xrpm"), dx);
  const Snapshot g = formats::LoadSnapshot(dir.Path("g.gcdump"), dg);
  const auto xt = ByType(x), gt = ByType(g);
  // Two collections a moment apart: the program is idle, but the runtime may allocate a few
  // objects of its own in between (a timer, the diagnostics server's session): those may
  // differ, by a few, in the runtime's types only (type names put in one form first,
  // gcdump_compare.h); every type of the program must be equal.
  const auto xk = TotalsByGcdumpKey(x), gk = TotalsByGcdumpKey(g);
  size_t differing = 0;
  std::string diff;
  for (const auto* side : {&xk, &gk})
    for (const auto& [key, t] : *side) {
      if (side == &gk && xk.count(key)) continue;  // met from the xrpm side already
      const size_t a = xk.count(key) ? xk.at(key).count : 0;
      const size_t b = gk.count(key) ? gk.at(key).count : 0;
      if (a == b) continue;
      differing += a > b ? a - b : b - a;
      diff += " " + key + " " + std::to_string(a) + "/" + std::to_string(b);
      EXPECT_NE(key.rfind("Graph.", 0), 0u) << "the program's own type differs:" << diff;
    }
  EXPECT_LE(differing, 16u) << "xrpm " << x.object_count() << " objects, gcdump "
                            << g.object_count() << "; types xrpm/gcdump:" << diff;
  for (const char* type : {"Graph.Item", "Graph.Entry", "Graph.Node", "Graph.Node[]",
                           "Graph.Blit[]", "System.Collections.Generic.List<Graph.Item>"}) {
    const TypeTotals a = xt.count(type) ? xt.at(type) : TypeTotals{};
    const TypeTotals b = gt.count(type) ? gt.at(type) : TypeTotals{};
    EXPECT_EQ(a.count, b.count) << type;
    EXPECT_EQ(a.bytes, b.bytes) << type;
    EXPECT_GT(a.count, 0u) << type;
  }

  EXPECT_EQ(write(gate_fd, "go\n", 3), 3);
  EXPECT_EQ(run.proc->Wait(60000), 0) << run.proc->log().All();
  close(gate_fd);
}

}  // namespace
}  // namespace xrpm::testing
