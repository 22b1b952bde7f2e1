// ctest-labels: cpu_timing
// Captures of a real .NET program running under CoreCLR with the xrpm agent inside it
// (xrpm-dotnet), taken with the `xrpm capture` CLI over 127.0.0.1: a live set known by
// construction (csharp/Graph) with exact per-type counts for the program's own types, its
// objects reachable from the roots the runtime reported (a static list, a dictionary, an array
// on Main's stack, named by its method, a pinned handle), static fields named Class.Field, nothing
// only weakly reachable, and the program exiting normally afterwards. The program is held at a
// known point by a named pipe it reads (no sleeps): it says "ready" before it reads the pipe, and
// ends when the test writes a line. Before the program's first capture, the agent's Welcome
// forecasts it from the heap's size; after it, gives its sizes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dotnet_process.h"
#include "graph_run.h"
#include "mono_process.h"
#include "process_tree.h"
#include "raw_peer.h"
#include "temp_dir.h"
#include "test_heaps.h"
#include "test_util.h"
#include "tool_process.h"
#include "xrpm/agent/cow_child.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::testing {
namespace {

size_t ObjectIndexOfType(const Snapshot& s, const std::string& type) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.type_name_of(i) == type) return i;
  return kNoIndex;
}

// Objects reachable from the strong roots (weak roots do not retain).
std::vector<bool> StronglyReachable(const Snapshot& s) {
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index.emplace(s.object_id[i], i);
  std::vector<bool> seen(s.object_count(), false);
  std::vector<size_t> stack;
  for (size_t r = 0; r < s.root_count(); ++r) {
    if (s.root_flags[r] & kRootWeak) continue;
    auto it = index.find(s.root_object[r]);
    if (it != index.end() && !seen[it->second]) {
      seen[it->second] = true;
      stack.push_back(it->second);
    }
  }
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    for (ObjectId ref : s.object_refs(i)) {
      auto it = index.find(ref);
      if (it != index.end() && !seen[it->second]) {
        seen[it->second] = true;
        stack.push_back(it->second);
      }
    }
  }
  return seen;
}

void ExpectKnownGraph(const Snapshot& s) {
  const auto n = CountByType(s);
  auto count = [&](const std::string& t) { return n.count(t) ? n.at(t) : size_t{0}; };
  EXPECT_EQ(count("Graph.Item"), static_cast<size_t>(kItems));
  EXPECT_EQ(count("Graph.Entry"), static_cast<size_t>(kEntries));
  EXPECT_EQ(count("Graph.Node"), static_cast<size_t>(kNodes));
  EXPECT_EQ(count("Graph.Node[]"), 1u);
  EXPECT_EQ(count("Graph.Blit[]"), 1u);
  EXPECT_EQ(count("System.Collections.Generic.List<Graph.Item>"), 1u);
  EXPECT_EQ(count("System.Collections.Generic.Dictionary<System.String, Graph.Entry>"), 1u);
  EXPECT_EQ(count("Graph.WeakOnly"), 0u) << "reachable only through a weak reference";
  EXPECT_EQ(count("Graph.Garbage"), 0u) << "dropped before the capture";
  EXPECT_GE(count("System.String"), static_cast<size_t>(kEntries)) << "the dictionary's keys";

  // Every planted object is reachable from a strong root.
  const std::vector<bool> reachable = StronglyReachable(s);
  size_t planted = 0, unreachable = 0;
  for (size_t i = 0; i < s.object_count(); ++i) {
    const std::string& t = s.type_name_of(i);
    if (t == "Graph.Item" || t == "Graph.Entry" || t == "Graph.Node" || t == "Graph.Blit[]" ||
        t == "Graph.Node[]") {
      ++planted;
      unreachable += !reachable[i];
    }
  }
  EXPECT_EQ(planted, static_cast<size_t>(kItems + kEntries + kNodes + 2));
  EXPECT_EQ(unreachable, 0u);

  // The pinned array is held by a pinned GC handle; the node array by Main's stack frame.
  const size_t blit = ObjectIndexOfType(s, "Graph.Blit[]");
  const size_t nodes = ObjectIndexOfType(s, "Graph.Node[]");
  ASSERT_NE(blit, kNoIndex);
  ASSERT_NE(nodes, kNoIndex);
  bool pinned = false, local = false;
  for (size_t r = 0; r < s.root_count(); ++r) {
    if (s.root_object[r] == s.object_id[blit] && s.root_kind_of(r) == RootKind::kHandle &&
        (s.root_flags[r] & kRootPinned))
      pinned = true;
    if (s.root_object[r] == s.object_id[nodes] && s.root_kind_of(r) == RootKind::kLocal) {
      local = true;
      EXPECT_NE(s.fields.label_of_root(r).find("Graph.Program.Main"), std::string_view::npos)
          << "the stack root names its method: " << s.fields.label_of_root(r);
    }
  }
  EXPECT_TRUE(pinned) << "the pinned array's handle root carries the pinned flag";
  EXPECT_TRUE(local) << "the node array is a stack root of Graph.Program.Main";

  // Every reference and root names a captured object (frozen literals included).
  std::unordered_set<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  // ... and each object once: the walk itself reports some objects of the non-GC heap (boxed
  // statics, empty arrays), which the port must not add again as unreported.
  EXPECT_EQ(ids.size(), s.object_count()) << "an object reported twice";
  size_t dangling = 0;
  for (ObjectId r : s.refs) dangling += !ids.count(r);
  for (ObjectId r : s.root_object) dangling += !ids.count(r);
  EXPECT_EQ(dangling, 0u);
  // Sizes come from the runtime: no object is empty.
  size_t zero = 0;
  for (size_t i = 0; i < s.object_count(); ++i) zero += s.object_size[i] == 0;
  EXPECT_EQ(zero, 0u);
}

TEST(DotnetCapture, KnownGraphExactlyAndTheProgramExitsNormally) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const Snapshot s = CaptureWithCli(g.run.endpoint, g.dir.Path("graph.xrpm"));
  ExpectKnownGraph(s);
  EXPECT_NE(g.run.proc->log().WaitFor("xrpm-agent: capture:", 30000), "")
      << g.run.proc->log().All();

  // A second capture in a row: the same live set (the objects may have moved).
  const Snapshot again = CaptureWithCli(g.run.endpoint, g.dir.Path("again.xrpm"));
  ExpectKnownGraph(again);

  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
  EXPECT_NE(g.run.proc->log().WaitFor("Graph: done", 1000), "") << g.run.proc->log().All();
}

// Static reference fields are static roots named by their class and field: the list only a
// static holds is reached from "static Graph.Holder.Planted" (xrpm paths), and the list Main
// also filled is a static root of Graph.Holder too, whatever its frame still holds.
TEST(DotnetCapture, StaticFieldsAreStaticRootsNamedClassDotField) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const std::string path = g.dir.Path("statics.xrpm");
  const Snapshot s = CaptureWithCli(g.run.endpoint, path);
  EXPECT_EQ(CountByType(s)["Graph.StaticOnly"], 10u);

  std::map<std::string, std::string> static_roots = StaticRootTypes(s);
  EXPECT_EQ(static_roots["Graph.Holder.Planted"],
            "System.Collections.Generic.List<Graph.StaticOnly>");
  EXPECT_EQ(static_roots["Graph.Holder.Items"], "System.Collections.Generic.List<Graph.Item>");
  EXPECT_EQ(static_roots["Graph.Holder.Entries"],
            "System.Collections.Generic.Dictionary<System.String, Graph.Entry>");
  EXPECT_EQ(static_roots["Graph.Holder.Weak"], "System.WeakReference");

  const RunResult paths = RunXrpm("paths " + path + " --type Graph.StaticOnly", true);
  ASSERT_EQ(paths.exit_code, 0) << paths.out;
  EXPECT_NE(paths.out.find("static Graph.Holder.Planted -> "
                           "System.Collections.Generic.List<Graph.StaticOnly>"),
            std::string::npos)
      << paths.out;

  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

// [ThreadStatic] reference fields are static roots too, one per thread that set one, named by
// the field and the thread (its system id, its name when it has one, "main" for Main's): what
// only a thread static holds is reached from it, on the right thread.
TEST(DotnetCapture, ThreadStaticsAreStaticRootsOfTheirThread) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g({}, {"--thread-statics"});
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const std::string path = g.dir.Path("thread-statics.xrpm");
  const Snapshot s = CaptureWithCli(g.run.endpoint, path);
  EXPECT_EQ(CountByType(s)["Graph.PerThread"], 8u) << "3 on Main's thread, 5 on the worker's";

  std::vector<std::string> mine;  // the labels of Graph.Holder.Mine's roots
  for (const auto& [label, type] : StaticRootTypes(s))
    if (label.rfind("Graph.Holder.Mine (", 0) == 0) {
      mine.push_back(label);
      EXPECT_EQ(type, "System.Collections.Generic.List<Graph.PerThread>") << label;
    }
  ASSERT_EQ(mine.size(), 2u) << ::testing::PrintToString(mine);
  const size_t named = std::count_if(mine.begin(), mine.end(), [](const std::string& label) {
    return label.find("\"graph-worker\")") != std::string::npos;
  });
  EXPECT_EQ(named, 1u) << ::testing::PrintToString(mine);
  const size_t main_thread = std::count_if(mine.begin(), mine.end(), [](const std::string& label) {
    return label.rfind("Graph.Holder.Mine (main thread ", 0) == 0;
  });
  EXPECT_EQ(main_thread, 1u) << ::testing::PrintToString(mine);

  const RunResult paths = RunXrpm("paths " + path + " --type Graph.PerThread", true);
  ASSERT_EQ(paths.exit_code, 0) << paths.out;
  EXPECT_NE(paths.out.find("static Graph.Holder.Mine (main thread "), std::string::npos)
      << paths.out;
  EXPECT_NE(paths.out.find("\"graph-worker\") -> "), std::string::npos) << paths.out;

  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

// The snapshot walk (the default: dotnet_port.h, record_child.h): the runtime's report of the
// heap recorded in a copy-on-write child while the program runs on gives the known graph, as
// the report recorded in the pause (--walk paused) does, and so under the server GC (its GC
// threads each report a heap: the parent ends each one's report); the agent says which it did.
TEST(DotnetCapture, TheSnapshotWalkCapturesTheKnownGraphAsThePausedOneDoes) {
  SKIP_WITHOUT_DOTNET();
  struct Way {
    const char* walk;
    bool server_gc;
  };
  for (const Way way : {Way{"snapshot", false}, Way{"paused", false}, Way{"snapshot", true}}) {
    SCOPED_TRACE(std::string(way.walk) + (way.server_gc ? ", server GC" : ""));
    if (way.server_gc) setenv("DOTNET_gcServer", "1", 1);
    GraphRun g({"--walk", way.walk});
    unsetenv("DOTNET_gcServer");
    ASSERT_GE(g.gate_fd, 0);
    ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
    ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty())
        << g.run.proc->log().All();
    auto client = ConnectTo(g.run.endpoint);
    ASSERT_TRUE(client);
    const client::CaptureResult r = CaptureOnce(*client, 120000);
    ASSERT_TRUE(r.ok) << r.error << "\n" << g.run.proc->log().All();
    ExpectKnownGraph(*r.snapshot);
    const bool snapshot = std::string(way.walk) == "snapshot";
    // Logged before the walk, so there by the capture's end.
    const std::string log = g.run.proc->log().All();
    EXPECT_EQ(log.find("recorded in a snapshot process, received") != std::string::npos, snapshot)
        << log;
    EXPECT_NE(
        log.find(snapshot ? "captures: the heap report recorded in a snapshot process"
                          : "captures: the heap report recorded in the pause (--walk paused)"),
        std::string::npos)
        << log;
    // After a snapshot process the port makes the program's pages writable again (logged once
    // the walk has ended, where this kernel can: cow_child.h); never without one.
    if (!snapshot) {
      EXPECT_EQ(log.find("pages made writable again"), std::string::npos) << log;
    } else if (agent::CowChild::MakeWritableAgain().supported) {
      EXPECT_FALSE(g.run.proc->log().WaitFor("pages made writable again", 30000).empty())
          << g.run.proc->log().All();
    }
    client.reset();
    g.Release();
    EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
  }
}

// A snapshot child that dies before it sends (killed here, held stopped by the port's test
// hook XRPM_DOTNET_SNAPSHOT_STOP=1) fails that capture with a message saying so; the program
// goes on, no child is left, and the next capture records in the pause and is whole.
TEST(DotnetCapture, AKilledSnapshotProcessFailsItsCaptureAndTheNextIsRecordedInThePause) {
  SKIP_WITHOUT_DOTNET();
  setenv("XRPM_DOTNET_SNAPSHOT_STOP", "1", 1);
  GraphRun g;
  unsetenv("XRPM_DOTNET_SNAPSHOT_STOP");
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  auto client = ConnectTo(g.run.endpoint);
  ASSERT_TRUE(client);
  std::string error;
  ASSERT_TRUE(client->StartCapture(&error)) << error;
  const pid_t child = WaitForStoppedGrandchild(g.run.proc->pid(), 60000);
  ASSERT_GT(child, 0) << "no stopped snapshot process\n" << g.run.proc->log().All();
  ASSERT_EQ(kill(child, SIGKILL), 0);
  client::CaptureResult failed;
  ASSERT_TRUE(client->WaitCapture(60000, &failed));
  EXPECT_FALSE(failed.ok);
  EXPECT_NE(failed.error.find("the heap report's snapshot process failed: the record at byte 0: "
                              "expected the objects, found the end of the stream (the snapshot "
                              "process was killed by signal 9"),
            std::string::npos)
      << failed.error;
  EXPECT_TRUE(Gone(child)) << "reaped before the capture ended";
  ASSERT_FALSE(g.run.proc->log()
                   .WaitFor("captures record the heap report in the pause from now on", 30000)
                   .empty())
      << g.run.proc->log().All();
  const client::CaptureResult again = CaptureOnce(*client, 120000);
  ASSERT_TRUE(again.ok) << again.error << "\n" << g.run.proc->log().All();
  ExpectKnownGraph(*again.snapshot);
  client.reset();
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

// With DOTNET_gcConcurrent=1 in the environment the launcher leaves it, and the port asks for
// the GC events from start-up (dotnet_port.h, EventMode::kAlways): captures are the same.
TEST(DotnetCapture, WithBackgroundCollectionsAskedForTheEventsAreOnFromStartUp) {
  SKIP_WITHOUT_DOTNET();
  ASSERT_EQ(setenv("DOTNET_gcConcurrent", "1", 1), 0);
  GraphRun g;
  unsetenv("DOTNET_gcConcurrent");
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  EXPECT_NE(g.run.proc->log().WaitFor("GC events always on", 30000), "") << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty());
  ExpectKnownGraph(CaptureWithCli(g.run.endpoint, g.dir.Path("graph.xrpm")));
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

TEST(DotnetCapture, CountersReportCollectionsAndTheHeapInUse) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty());
  // A capture induces a collection, so both counters have a value afterwards.
  CaptureWithCli(g.run.endpoint, g.dir.Path("graph.xrpm"));
  const RunResult r =
      RunXrpm("counters --connect " + g.run.endpoint + " --duration 1 --json", true);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Managed Bytes In Use After GC"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Garbage Collections (GC)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Managed Objects Allocated"), std::string::npos)
      << "not reported by this port: not sent";
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

// Before its first capture the agent forecasts one from the heap's bytes in use (a host with
// nothing else to go by faults its columns in while the game is stopped); after it, the
// Welcome gives that capture's own sizes instead.
TEST(DotnetCapture, TheWelcomeForecastsTheFirstCapture) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g({}, {"--collect"});  // a program that has collected once: the runtime knows its heap
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty());
  const uint16_t port =
      static_cast<uint16_t>(std::stoi(g.run.endpoint.substr(g.run.endpoint.rfind(':') + 1)));
  auto welcome_of_a_new_host = [&] {
    wire::Envelope welcome;
    auto p = RawPeer::Connect(port);
    EXPECT_TRUE(p && Handshake(*p, &welcome));
    if (p) p->DisconnectNow();
    return welcome.welcome();
  };
  const wire::Welcome before = welcome_of_a_new_host();
  EXPECT_EQ(before.last_capture_objects(), 0u);
  EXPECT_GT(before.forecast_objects(), 0u) << "the runtime gave its generations' bounds";
  EXPECT_EQ(before.forecast_refs(), 3 * before.forecast_objects());
  auto hosts_gone = [&](size_t n) {
    return g.run.proc->log().WaitHostsDisconnected(n, 20000, "xrpm-agent: ");
  };
  ASSERT_EQ(hosts_gone(1), 1u) << g.run.proc->log().All();
  const Snapshot s = CaptureWithCli(g.run.endpoint, g.dir.Path("graph.xrpm"));
  ASSERT_GT(s.object_count(), 0u);
  ASSERT_FALSE(g.run.proc->log().WaitFor("capture 1 done", 20000).empty());
  ASSERT_EQ(hosts_gone(2), 2u) << g.run.proc->log().All();
  const wire::Welcome after = welcome_of_a_new_host();
  EXPECT_EQ(after.last_capture_objects(), s.object_count());
  EXPECT_EQ(after.forecast_objects(), 0u);
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

TEST(DotnetLauncher, RefusesWhatItCannotDo) {
  SKIP_WITHOUT_DOTNET();
  const RunResult nothing = RunDotnetLauncher({});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("no program"), std::string::npos) << nothing.err;
  // A .dll the runtime cannot start: the launcher says so in one line of its own, exit code 1.
  TempDir dir;
  const std::string bad = dir.Path("Bad.dll");
  {
    std::ofstream out(bad);
    out << "not an assembly";
  }
  const RunResult unstartable = RunDotnetLauncher({"--", bad});
  EXPECT_EQ(unstartable.exit_code, 1) << unstartable.err;
  EXPECT_NE(unstartable.err.find("xrpm-dotnet: the program ended (exit code "), std::string::npos)
      << unstartable.err;
  EXPECT_NE(unstartable.err.find("before the xrpm profiler started in it"), std::string::npos)
      << unstartable.err;
  const RunResult missing = RunDotnetLauncher({"--", "/nonexistent/Program.dll"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such program"), std::string::npos) << missing.err;
}

TEST(DotnetLauncher, PortInUseEndsTheProgramBeforeItRuns) {
  SKIP_WITHOUT_DOTNET();
  GraphRun first;
  ASSERT_GE(first.gate_fd, 0);
  ASSERT_FALSE(first.run.endpoint.empty()) << first.run.proc->log().All();
  const std::string port = first.run.endpoint.substr(first.run.endpoint.find(':') + 1);
  TempDir dir;
  const RunResult second = RunDotnetLauncher(
      {"--port", port, "--", DotnetProgram("Graph"), "1", "1", "1", "--gate", dir.Path("none")});
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("xrpm-agent:"), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find("Graph: ready"), std::string::npos) << "the program never ran";
  ASSERT_FALSE(first.run.proc->log().WaitFor("Graph: ready", 60000).empty());
  first.Release();
  EXPECT_EQ(first.run.proc->Wait(60000), 0);
}

}  // namespace
}  // namespace xrpm::testing
