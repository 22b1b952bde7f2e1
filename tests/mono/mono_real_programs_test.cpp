// ctest-labels: cpu_timing
// Real C# programs nobody here wrote, from Debian packages, under xrpm-mono: the C# compiler
// (mcs) compiling a large generated source, gendarme analysing an assembly, the `csharp`
// shell holding a table of known size and an ASP.NET host of ours (tests/mono/programs/
// AspNetHost) serving Debian's asp.net-examples pages through System.Web in five applications,
// each an AppDomain of its own. Each is captured three times while it runs, at a known point of
// its run however fast the machine is: the shell and the host wait for the test, and mcs and
// gendarme write an output file (the XML documentation, the report) into a PipeGate, which
// holds them there with their heap full. Each capture completes and is consistent (every
// reference and root names a captured object, as at the end of a full collection), and the
// program goes on and exits as it does without the agent (same exit code, same output).
//
// Mono's own log profiler runs beside xrpm's module in the same process
// (`--mono-option=--profile=log:heapshot,...`: a heapshot at every full collection, so also at
// each capture's): the heapshot of the capture's collection (the one with exactly the capture's
// object addresses) has the capture's per-class counts and bytes.
//
// Programs whose package is missing are skipped with the package to install (scripts/deps.sh
// installs them).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <unordered_set>

#include "mlpd_heapshots.h"
#include "mono_process.h"
#include "pipe_gate.h"
#include "temp_dir.h"
#include "test_util.h"
#include "xrpm/model/type_name.h"

#ifndef XRPM_MONO_REAL_DIR
#define XRPM_MONO_REAL_DIR ""
#endif

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMcs = "/usr/lib/mono/4.5/mcs.exe";
constexpr const char* kCsharp = "/usr/lib/mono/4.5/csharp.exe";
constexpr const char* kGendarme = "/usr/lib/gendarme/gendarme.exe";
constexpr const char* kAspNetDemos = "/usr/share/asp.net-demos/2.0";

#define SKIP_WITHOUT(path, package)                                                             \
  do {                                                                                          \
    SKIP_WITHOUT_MONO();                                                                        \
    if (!fs::exists(path))                                                                      \
      GTEST_SKIP() << path << " is missing (sudo apt-get install " << package << ")";           \
    if (!fs::exists("/usr/lib/libmono-profiler-log.so"))                                        \
      GTEST_SKIP() << "Mono's log profiler is missing (sudo apt-get install libmono-profiler)"; \
  } while (0)

// A program under the agent: xrpm-mono --port 0 with Mono's log profiler writing heapshots to
// `mlpd` -- EXE ARGS, with `env` set.
struct Real {
  Real(const std::string& exe, const std::vector<std::string>& args, const std::string& mlpd,
       const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {MonoLauncher(), "--port", "0",
                             "--mono-option=--profile=log:heapshot,output=" + mlpd, "--", exe});
    argv.insert(argv.end(), args.begin(), args.end());
    proc = std::make_unique<BackgroundProcess>(argv);
    endpoint = WaitForEndpoint(*proc);
  }
  std::unique_ptr<BackgroundProcess> proc;
  std::string endpoint;
};

RunResult Plain(const std::string& exe, const std::vector<std::string>& args,
                const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.insert(argv.end(), {"mono", exe});
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 300000);
}

// A capture of a live heap: every object once, every reference and root names a captured
// object.
void ExpectConsistent(const Snapshot& s) {
  std::unordered_set<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  EXPECT_EQ(ids.size(), s.object_count()) << "each object once";
  size_t dangling = 0;
  for (ObjectId r : s.refs) dangling += !ids.count(r);
  for (ObjectId r : s.root_object) dangling += !ids.count(r);
  EXPECT_EQ(dangling, 0u);
}

// A name as Mono's log profiler writes it (mono_type_get_name: nested classes joined by '.',
// without arity marks), from the name xrpm-mono sent (nested classes joined the reflection way:
// device-agent/ports/mono/src/type_names.h), both then made canonical to compare.
std::string MonosForm(const std::string& sent) {
  std::string out;
  for (size_t i = 0; i < sent.size(); ++i) {
    if (sent[i] == '`') {  // an arity mark before '+' or the arguments: dropped
      size_t j = i + 1;
      while (j < sent.size() && sent[j] >= '0' && sent[j] <= '9') ++j;
      if (j > i + 1 && j < sent.size() && (sent[j] == '+' || sent[j] == '<')) {
        i = j - 1;
        continue;
      }
    }
    out += sent[i] == '+' ? '.' : sent[i];
  }
  return CanonicalTypeName(out);
}

// Each capture against Mono's heapshot of the same collection (read once the program ended).
void ExpectMonosOwnReading(const std::vector<Snapshot>& shots, const std::string& mlpd) {
  std::ifstream in(mlpd, std::ios::binary);
  ASSERT_TRUE(in) << "no " << mlpd;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  MlpdFile f;
  std::string error;
  ASSERT_TRUE(ReadMlpd(bytes, &f, &error)) << mlpd << ": " << error;
  for (size_t k = 0; k < shots.size(); ++k) {
    const Snapshot& s = shots[k];
    std::vector<ObjectId> ids(s.object_id.begin(), s.object_id.end());
    std::sort(ids.begin(), ids.end());
    const std::vector<MlpdObject>* match = nullptr;
    for (const auto& h : f.heapshots) {
      if (h.size() != ids.size()) continue;
      std::vector<ObjectId> hs;
      for (const MlpdObject& o : h) hs.push_back(o.address);
      std::sort(hs.begin(), hs.end());
      if (hs == ids) match = &h;
    }
    std::string sizes;
    for (const auto& h : f.heapshots) sizes += " " + std::to_string(h.size());
    ASSERT_NE(match, nullptr) << "heapshot sizes:" << sizes << "; capture " << k << " ("
                              << s.object_count()
                              << " objects): no heapshot of Mono's log profiler has the same "
                                 "objects (of "
                              << f.heapshots.size() << " heapshots)";
    std::map<std::string, std::pair<uint64_t, uint64_t>> ours, monos;  // name -> count, bytes
    for (size_t i = 0; i < s.object_count(); ++i) {
      auto& c = ours[MonosForm(s.types[s.object_type[i]].written_name())];
      ++c.first;
      c.second += s.object_size[i];
    }
    for (const MlpdObject& o : *match) {
      auto& c = monos[CanonicalTypeName(f.ClassOf(o.vtable))];
      ++c.first;
      c.second += o.size;
    }
    size_t differ = 0;
    for (const auto& [name, c] : monos) {
      auto it = ours.find(name);
      if (it != ours.end() && it->second == c) continue;
      if (++differ <= 10)
        ADD_FAILURE() << "capture " << k << ": " << name << ": Mono " << c.first << " objects, "
                      << c.second << " bytes; xrpm " << (it == ours.end() ? 0 : it->second.first)
                      << ", " << (it == ours.end() ? 0 : it->second.second);
    }
    EXPECT_EQ(ours.size(), monos.size());
  }
}

// Three captures while the program was held at a known point, the largest one of a real
// program's heap.
void ExpectCapturesOfARealHeap(const std::vector<Snapshot>& shots, size_t min_objects,
                               size_t min_types) {
  EXPECT_EQ(shots.size(), 3u);
  size_t objects = 0, types = 0;
  for (const Snapshot& s : shots) {
    ExpectConsistent(s);
    objects = std::max(objects, s.object_count());
    types = std::max(types, s.type_count());
  }
  EXPECT_GE(objects, min_objects);
  EXPECT_GE(types, min_types);
}

size_t CountOf(const Snapshot& s, const std::string& type) {
  size_t n = 0;
  for (size_t i = 0; i < s.object_count(); ++i) n += s.type_name_of(i) == type;
  return n;
}

// Captures until `want` captures completed or the program ended, 5 counter samples (half a
// second of the program's run at 100 ms) apart; a capture may fail only because the program
// ended under it. Returns the completed captures.
std::vector<Snapshot> CaptureWhileRunning(Real& run, int want) {
  std::vector<Snapshot> shots;
  auto c = ConnectTo(run.endpoint);
  if (!c) return shots;
  c->SubscribeCounters(100);
  while (static_cast<int>(shots.size()) < want && !run.proc->Exited()) {
    if (!shots.empty() && !c->WaitCounterSamples(c->counters().received() + 5, 30000)) break;
    client::CaptureResult r = CaptureOnce(*c, 120000);
    if (r.ok) {
      shots.push_back(std::move(*r.snapshot));
      continue;
    }
    EXPECT_TRUE(run.proc->Wait(60000) >= 0 || run.proc->Exited())
        << "a capture failed while the program ran: " << r.error;
    break;
  }
  return shots;
}

// mcs compiling a generated program of many classes, documented (its XML documentation, some
// hundred KiB, goes through the gate); the compiled program runs as it does when compiled
// without the agent, and the documentation is the same.
std::string GenerateSource(size_t classes) {
  std::string s = "using System;\nusing System.Collections.Generic;\nnamespace Gen {\n";
  for (size_t i = 0; i < classes; ++i) {
    const std::string c = "C" + std::to_string(i);
    s += "  /// <summary>Generated class " + std::to_string(i) + ".</summary>\n";
    s += "  public class " + c + " : IComparable<" + c +
         "> {\n    public int A; public string B;\n" + "    public int CompareTo(" + c +
         " o) { return A.CompareTo(o.A); }\n" +
         "    public static int Run(int x) { var l = new List<" + c +
         ">(); for (int k = 0; k < x; " + "k++) l.Add(new " + c + " { A = k ^ " +
         std::to_string(i) + ", B = \"" + c + "\" }); l.Sort(); return l[0].A + " +
         std::to_string(i % 7) + "; }\n  }\n";
  }
  s += "  public static class Program { public static int Main() { long s = 0;\n";
  for (size_t i = 0; i < classes; ++i) s += "    s += C" + std::to_string(i) + ".Run(3);\n";
  s += "    Console.WriteLine(\"sum \" + s); return 0; } }\n}\n";
  return s;
}

TEST(MonoRealPrograms, CompilerCompilingALargeSource) {
  SKIP_WITHOUT(kMcs, "mono-mcs");
  TempDir tmp("xrpm-real-mcs");
  const std::string dir = tmp.path();
  std::ofstream(dir + "/big.cs") << GenerateSource(2500);
  // Both compilations write gen.exe (the documentation names the assembly), in two directories.
  fs::create_directories(dir + "/agent");
  fs::create_directories(dir + "/plain");
  PipeGate gate(dir + "/agent/gen.xml");
  ASSERT_EQ(gate.error(), "");
  // mcs writes the documentation once it has compiled the whole source: held there.
  const std::vector<std::string> flags = {"-nologo", "-nowarn:1591"};
  std::vector<std::string> args = flags;
  args.insert(args.end(),
              {"-doc:" + gate.path(), "-out:" + dir + "/agent/gen.exe", dir + "/big.cs"});
  Real run(kMcs, args, dir + "/log.mlpd");
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_TRUE(gate.WaitForWriter(300000, [&] { return !run.proc->Exited(); }))
      << "mcs did not write its documentation: " << run.proc->log().All();
  const std::vector<Snapshot> shots = CaptureWhileRunning(run, 3);
  std::string doc;
  EXPECT_TRUE(gate.Drain(300000, &doc));
  ExpectCapturesOfARealHeap(shots, 200000, 2000);
  EXPECT_EQ(run.proc->Wait(300000), 0) << run.proc->log().All();
  ExpectMonosOwnReading(shots, dir + "/log.mlpd");
  args = flags;
  args.insert(args.end(), {"-doc:" + dir + "/plain/gen.xml", "-out:" + dir + "/plain/gen.exe",
                           dir + "/big.cs"});
  const RunResult plain = Plain(kMcs, args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::ifstream plain_doc(dir + "/plain/gen.xml");
  const std::string expected_doc((std::istreambuf_iterator<char>(plain_doc)),
                                 std::istreambuf_iterator<char>());
  EXPECT_GT(doc.size(), 100000u);
  EXPECT_TRUE(doc == expected_doc)
      << "the documentation differs: " << doc.size() << " vs " << expected_doc.size() << " bytes";
  const RunResult a = RunProcess({"/usr/bin/mono", dir + "/agent/gen.exe"}),
                  p = RunProcess({"/usr/bin/mono", dir + "/plain/gen.exe"});
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, p.out);
  EXPECT_EQ(a.out.rfind("sum ", 0), 0u) << a.out;
}

TEST(MonoRealPrograms, GendarmeAnalysingAnAssembly) {
  SKIP_WITHOUT(kGendarme, "gendarme");
  TempDir tmp("xrpm-real-gendarme");
  const std::string dir = tmp.path();
  // Three of gendarme's own assemblies; gendarme writes its report (some 60 KiB) once it has
  // analysed them all: held there.
  PipeGate gate(dir + "/agent.txt");
  ASSERT_EQ(gate.error(), "");
  const std::vector<std::string> targets = {"/usr/lib/gendarme/Gendarme.Framework.dll",
                                            "/usr/lib/gendarme/Gendarme.Rules.Design.dll",
                                            "/usr/lib/gendarme/Gendarme.Rules.Correctness.dll"};
  std::vector<std::string> args = {"--quiet", "--log", gate.path()};
  args.insert(args.end(), targets.begin(), targets.end());
  Real run(kGendarme, args, dir + "/log.mlpd");
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_TRUE(gate.WaitForWriter(300000, [&] { return !run.proc->Exited(); }))
      << "gendarme did not write its report: " << run.proc->log().All();
  const std::vector<Snapshot> shots = CaptureWhileRunning(run, 3);
  std::string report;
  EXPECT_TRUE(gate.Drain(300000, &report));
  ExpectCapturesOfARealHeap(shots, 20000, 1000);
  const int code = run.proc->Wait(300000);
  ExpectMonosOwnReading(shots, dir + "/log.mlpd");
  args[2] = dir + "/plain.txt";
  const RunResult plain = Plain(kGendarme, args);
  EXPECT_EQ(code, plain.exit_code) << run.proc->log().All();
  // The reports name the same defects (their headers carry the date and the time taken).
  auto defects = [](std::istream& in) {
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
      if (l.find("Rule:") != std::string::npos || l.find("Target:") != std::string::npos)
        lines.push_back(l);
    return lines;
  };
  std::istringstream agent_report(report);
  std::ifstream plain_report(dir + "/plain.txt");
  const auto a = defects(agent_report), p = defects(plain_report);
  EXPECT_FALSE(p.empty());
  EXPECT_EQ(a, p);
}

TEST(MonoRealPrograms, CsharpShellHoldingATable) {
  SKIP_WITHOUT(kCsharp, "mono-csharp-shell");
  TempDir tmp("xrpm-real-csharp");
  const std::string dir = tmp.path();
  const std::string script = std::string(XRPM_MONO_REAL_DIR) + "/csharp_table.csx";
  const std::string go = dir + "/go";
  Real run(kCsharp, {script}, dir + "/log.mlpd", {"XRPM_TEST_GO=" + go});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("csharp: table of 5000 rows", 60000).empty())
      << run.proc->log().All();
  const std::vector<Snapshot> shots = CaptureWhileRunning(run, 3);
  ASSERT_EQ(shots.size(), 3u) << "the shell waits for the test: " << run.proc->log().All();
  ExpectCapturesOfARealHeap(shots, 5000, 1000);
  for (const Snapshot& s : shots) {
    EXPECT_EQ(CountOf(s, "TableRow"), 5000u);
  }
  std::ofstream(go) << "go";
  EXPECT_EQ(run.proc->Wait(60000), 0);
  ExpectMonosOwnReading(shots, dir + "/log.mlpd");
  EXPECT_FALSE(run.proc->log().WaitFor("csharp: done, 5000 rows", 1000).empty())
      << run.proc->log().All();
  const RunResult plain = Plain(kCsharp, {script}, {"XRPM_TEST_GO=" + go});  // no wait
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.err.find("csharp: done, 5000 rows"), std::string::npos) << plain.err;
}

// The "AspNetHost: PAGE N chars" lines of a log, without the lengths (pages carry the time).
std::vector<std::string> PagesServed(const std::string& log) {
  std::vector<std::string> pages;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("AspNetHost: ", 0) == 0 && l.find(" chars") != std::string::npos) {
      EXPECT_EQ(l.find("(an error page)"), std::string::npos) << l;
      pages.push_back(l.substr(0, l.rfind(' ', l.rfind(" chars") - 1)));
    }
  return pages;
}

TEST(MonoRealPrograms, AspNetHostServingTheExamplePages) {
  SKIP_WITHOUT(kAspNetDemos, "asp.net-examples");
  if (!fs::exists(MonoProgram("AspNetHost.exe")))
    GTEST_SKIP() << "AspNetHost.exe was not built: System.Web is missing (sudo apt-get install "
                    "libmono-system-web4.0-cil, then rebuild)";
  TempDir tmp("xrpm-real-aspnet");
  const std::string dir = tmp.path();
  const std::string site = dir + "/site";
  fs::copy(kAspNetDemos, site, fs::copy_options::recursive);
  // Each application directory's bin/ holds the host (ASP.NET loads it into the application's
  // AppDomain from there).
  const std::vector<std::string> apps = {".", "menu", "gridview", "treeview", "masterpages"};
  for (const std::string& a : apps) {
    fs::create_directories(site + "/" + a + "/bin");
    fs::copy_file(MonoProgram("AspNetHost.exe"), site + "/" + a + "/bin/AspNetHost.exe");
  }
  const std::vector<std::string> pages = {
      site + "/index.aspx", site + "/menu/menu1.aspx", site + "/gridview/BasicGrid.aspx",
      site + "/treeview/treeview.aspx", site + "/masterpages/content1.aspx"};
  const std::string exe = site + "/bin/AspNetHost.exe", go = dir + "/go";
  Real run(exe, pages, dir + "/log.mlpd", {"XRPM_TEST_GO=" + go});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("AspNetHost: 5 applications ready", 120000).empty())
      << run.proc->log().All();
  const std::vector<Snapshot> shots = CaptureWhileRunning(run, 3);
  ASSERT_EQ(shots.size(), 3u) << "the host waits for the test: " << run.proc->log().All();
  ExpectCapturesOfARealHeap(shots, 20000, 2000);
  for (const Snapshot& s : shots) {
    // The root domain and one AppDomain per application, each with objects of its own.
    EXPECT_GE(s.sections.size(), apps.size() + 1);
    for (const AppDomainSection& a : s.sections)
      EXPECT_GT(a.objects_end - a.objects_begin, 0u) << a.name;
    EXPECT_EQ(s.sections[0].name, "AspNetHost.exe");
  }
  std::ofstream(go) << "go";
  EXPECT_EQ(run.proc->Wait(120000), 0) << run.proc->log().All();
  ExpectMonosOwnReading(shots, dir + "/log.mlpd");
  const RunResult plain = Plain(exe, pages, {"XRPM_TEST_GO=" + go});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  const std::vector<std::string> served = PagesServed(run.proc->log().All());
  EXPECT_EQ(served.size(), 2 * pages.size());
  EXPECT_EQ(served, PagesServed(plain.err));
}

}  // namespace
}  // namespace xrpm::testing
