// ctest-labels: threaded
// xrpm-emulator as a program: --dump writes a valid .gclog (or an .xrpm with the contents a
// capture holds, --no-values and --string-cap as for one), --stat a table, usage errors exit 2,
// SIGTERM stops it cleanly (and still writes the dump).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "xrpm/formats/snapshot_io.h"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using xrpm::Diagnostics;
using xrpm::Snapshot;
using xrpm::formats::FormatForPath;
using xrpm::formats::LoadSnapshot;

struct Child {
  pid_t pid = -1;
  int err_fd = -1;  // the child's stderr
};

Child Spawn(std::vector<std::string> args) {
  // Any free port for the device agent: tests run in parallel, and 4510 may be taken.
  args.insert(args.begin(), {XRPM_EMULATOR_BIN, "--port", "0"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  Child c;
  EXPECT_EQ(posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  c.err_fd = fds[0];
  return c;
}

// Reads the child's stderr to the end, then its exit code.
int Finish(Child& c, std::string* err = nullptr) {
  char buf[4096];
  ssize_t n;
  while ((n = read(c.err_fd, buf, sizeof buf)) > 0)
    if (err) err->append(buf, static_cast<size_t>(n));
  close(c.err_fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunEmulator(std::vector<std::string> args, std::string* err = nullptr) {
  Child c = Spawn(std::move(args));
  return Finish(c, err);
}

std::string TempPath(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("xrpm_emulator_cli_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

// Checks the NETCF grammar (docs/formats/netcf-gclog.md) line by line, and that
// every referenced id, root and type id is defined.
void ExpectValidGclog(const std::string& path, const std::string& app) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u);
  std::set<std::string> types, objects, type_uses, refs;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::istringstream f(lines[i]);
    std::vector<std::string> w;
    for (std::string x; f >> x;) w.push_back(x);
    ASSERT_FALSE(w.empty()) << "line " << i + 1;
    for (size_t k = 1; k < w.size(); ++k) {
      if (w[0] == "t" && k == 2) break;                                  // the type name
      if ((w[0] == "a" && k == 2) || (w[0] == "c" && k == 1)) continue;  // the app name
      ASSERT_EQ(w[k].find_first_not_of("0123456789abcdef"), std::string::npos)
          << path << ":" << i + 1 << ": expected lowercase hex, found '" << w[k] << "'";
    }
    if (i == 0) {
      ASSERT_EQ(w[0], "a");
      ASSERT_EQ(w.size(), 4u);
      EXPECT_EQ(w[1], "2");
      EXPECT_EQ(w[2], app);
    } else if (i + 1 == lines.size()) {
      ASSERT_EQ(w[0], "c");
      ASSERT_EQ(w.size(), 3u);
      EXPECT_EQ(w[1], app);
    } else if (w[0] == "t") {
      ASSERT_EQ(w.size(), 3u);
      types.insert(w[1]);
    } else if (w[0] == "o") {
      ASSERT_GE(w.size(), 4u);
      ASSERT_TRUE(objects.insert(w[1]).second) << "duplicate object " << w[1];
      type_uses.insert(w[2]);
      refs.insert(w.begin() + 4, w.end());
    } else if (w[0] == "r") {
      ASSERT_TRUE(w.size() == 4u || (w.size() == 5u && w[2] == "4")) << lines[i];
      ASSERT_LE(std::stoi(w[2], nullptr, 16), 5);
      ASSERT_EQ(std::stoi(w[3], nullptr, 16) & ~7, 0);
      refs.insert(w[1]);
      if (w[2] == "4") type_uses.insert(w[4]);
    } else {
      FAIL() << path << ":" << i + 1 << ": unexpected record '" << w[0] << "'";
    }
  }
  for (const auto& t : type_uses) EXPECT_TRUE(types.count(t)) << "type " << t;
  for (const auto& r : refs) EXPECT_TRUE(objects.count(r)) << "object " << r;
  EXPECT_GT(objects.size(), 100u);
}

TEST(Cli, DumpAndStatAreWritten) {
  std::string dump = TempPath("bubbles.gclog"), stat = TempPath("bubbles.stat");
  std::string err;
  ASSERT_EQ(RunEmulator({"--frames", "240", "--fps", "0", "--dump", dump, "--stat", stat}, &err), 0)
      << err;
  ExpectValidGclog(dump, "bubbles.exe");
  std::ifstream s(stat);
  std::string header;
  std::getline(s, header);
  EXPECT_NE(header.find("last datum"), std::string::npos);
  std::string body((std::istreambuf_iterator<char>(s)), {});
  for (const char* c : {"Managed Objects Allocated", "Garbage Collections (GC)", "GC Heap",
                        "Methods Jitted", "Exceptions Thrown", "Classes Loaded"})
    EXPECT_NE(body.find(c), std::string::npos) << c;
  fs::remove_all(fs::path(dump).parent_path());
}

TEST(Cli, SyntheticDumpWithOwnAppName) {
  std::string dump = TempPath("synthetic.gclog");
  ASSERT_EQ(RunEmulator({"--scenario", "synthetic", "--objects", "5000", "--types", "9",
                         "--app-name", "heap.exe", "--dump", dump, "--quiet"}),
            0);
  ExpectValidGclog(dump, "heap.exe");
  fs::remove_all(fs::path(dump).parent_path());
}

// --dump by extension: .xrpm, with the allocation origins a .gclog cannot hold.
TEST(Cli, DumpToXrpmByExtension) {
  std::string dump = TempPath("leak.xrpm");
  std::string err;
  ASSERT_EQ(RunEmulator({"--scenario", "leak", "--frames", "300", "--dump", dump, "--quiet"}, &err),
            0)
      << err;
  Diagnostics diags;
  const Snapshot s = LoadSnapshot(dump, diags);
  EXPECT_EQ(FormatForPath(dump, true)->name, "xrpm");
  EXPECT_GT(s.object_count(), 100u);
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.sections[0].name, "bubbles.exe");
  // Unlike a .gclog, it keeps every object's allocation frame and site.
  ASSERT_TRUE(s.has_origins());
  EXPECT_EQ(s.origins->capture_frame, 300u);
  ASSERT_EQ(s.object_alloc_site.size(), s.object_count());
  for (size_t i = 0; i < s.object_count(); ++i) ASSERT_TRUE(s.origin_known(i)) << i;
  // And what a capture holds: layouts, a slot per reference, root labels, values.
  EXPECT_TRUE(s.fields.has_layouts());
  EXPECT_EQ(s.fields.ref_slot.size(), s.ref_count());
  EXPECT_FALSE(s.fields.root_labels.empty());
  EXPECT_TRUE(s.fields.values_captured);
  EXPECT_EQ(s.fields.values.size(), s.object_count());
  fs::remove_all(fs::path(dump).parent_path());
  // --no-values and --string-cap, as for a capture.
  dump = TempPath("no-values.xrpm");
  ASSERT_EQ(RunEmulator({"--frames", "60", "--dump", dump, "--no-values", "--quiet"}, &err), 0)
      << err;
  const Snapshot nv = LoadSnapshot(dump, diags);
  EXPECT_TRUE(nv.fields.has_layouts());
  EXPECT_FALSE(nv.fields.values_captured);
  EXPECT_FALSE(nv.fields.has_values());
  fs::remove_all(fs::path(dump).parent_path());
  dump = TempPath("capped.xrpm");
  ASSERT_EQ(RunEmulator({"--frames", "60", "--dump", dump, "--string-cap", "3", "--quiet"}, &err),
            0)
      << err;
  EXPECT_EQ(LoadSnapshot(dump, diags).fields.string_cap, 3u);
  fs::remove_all(fs::path(dump).parent_path());
  // A format that cannot be written is a usage error, before the game runs.
  EXPECT_EQ(RunEmulator({"--frames", "1", "--dump", TempPath("x.gcdump")}, &err), 2);
  EXPECT_NE(err.find("cannot be written"), std::string::npos) << err;
}

TEST(Cli, UsageErrorsExitTwo) {
  std::string err;
  EXPECT_EQ(RunEmulator({"--scenario", "tetris"}, &err), 2);
  EXPECT_NE(err.find("tetris"), std::string::npos);
  EXPECT_EQ(RunEmulator({"--fps", "-3"}), 2);
  EXPECT_EQ(RunEmulator({"--refs-per-object", "0"}), 2);
  EXPECT_EQ(RunEmulator({"--app-name", "two words"}), 2);
  EXPECT_EQ(RunEmulator({"--no-such-option"}), 2);
  // The dump's contents options mean nothing without a dump.
  EXPECT_EQ(RunEmulator({"--frames", "1", "--no-values"}, &err), 2);
  EXPECT_NE(err.find("--no-values applies to --dump"), std::string::npos) << err;
  EXPECT_EQ(RunEmulator({"--frames", "1", "--string-cap", "8"}, &err), 2);
  EXPECT_EQ(RunEmulator({"--frames", "1", "--dump", TempPath("x.xrpm"), "--string-cap", "0"}), 2);
}

TEST(Cli, SigtermStopsCleanlyAndStillDumps) {
  std::string dump = TempPath("interrupted.gclog");
  Child c = Spawn({"--dump", dump, "--duration", "60", "--fps", "60"});
  // Wait for the first status line (printed after one second of running; the device agent's
  // "listening on" line comes before it), then stop it.
  std::string err;
  pollfd p{c.err_fd, POLLIN, 0};
  while (err.find("bubbles.exe") == std::string::npos) {
    ASSERT_GT(poll(&p, 1, 20000), 0) << "no status line within 20 s";
    char buf[512];
    ssize_t n = read(c.err_fd, buf, sizeof buf);
    ASSERT_GT(n, 0);
    err.append(buf, static_cast<size_t>(n));
  }
  EXPECT_NE(err.find("bubbles.exe"), std::string::npos) << err;
  ASSERT_EQ(kill(c.pid, SIGTERM), 0);
  EXPECT_EQ(Finish(c, &err), 0) << err;
  EXPECT_NE(err.find("signal 15"), std::string::npos) << err;
  ExpectValidGclog(dump, "bubbles.exe");
  fs::remove_all(fs::path(dump).parent_path());
}

}  // namespace
