// End-to-end runs of the real xrpm-monitor binary under xvfb-run with Mesa's software OpenGL,
// driven by --script: they check the state the session reached (the `state` step's JSON) and
// that screenshots show the views (many colours, most pixels not background), not a blank
// window. Skipped only when xvfb-run is missing.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_map>

#include "inspect_game.h"
#include "xrpm/formats/xrpm_file.h"

namespace {
namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool HaveXvfb() {
  return std::system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

class MonitorE2E : public ::testing::Test {
 protected:
  std::string dir;
  void SetUp() override {
    dir = ::testing::TempDir() + "/xrpm_monitor_e2e_" + std::to_string(getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }

  // Gives the monitor a port of its own (tests run in parallel and 4510 may be in use) through
  // its settings file, so `launch-emulator` starts the emulator there; `salt` keeps two tests
  // of one process apart. The port lies below the kernel's ephemeral range, where the sockets
  // of every other test (ENet hosts and listeners on port 0) get theirs. Returns the port.
  int UseOwnPort(int salt = 0) {
    salt_ = salt;
    own_port = 10000 + int((getpid() + salt) % (EphemeralLow() - 10000));
    fs::create_directories(dir + "/config/xrpm");
    std::ofstream(dir + "/config/xrpm/settings.json") << "{\"port\": " << own_port << "}";
    return own_port;
  }
  int own_port = 0;
  int salt_ = 0;

  // The first port of /proc/sys/net/ipv4/ip_local_port_range (32768 when unreadable).
  static int EphemeralLow() {
    int low = 0;
    std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low;
    return low > 11000 ? low : 32768;
  }

  RunResult Monitor(const std::string& script_text, bool display = true,
                    const std::string& options = "") {
    const std::string script = dir + "/script.txt";
    std::ofstream(script) << script_text;
    const std::string log = dir + "/log.txt";
    // Sanitizer builds: Mesa's software driver is unloaded (dlclose) before LeakSanitizer runs,
    // so its two small allocations at exit cannot be symbolized, let alone suppressed; leak
    // checks of the monitor's own logic run in xrpm_session_tests (same session code, no GL).
    // The caller's other options stay (CI's abort_on_error turns any ASan report into SIGABRT,
    // which a test expecting exit status 1 cannot mistake for its own failure).
    std::string cmd = "cd " + Quote(dir) + " && XDG_CONFIG_HOME=" + Quote(dir + "/config") +
                      " LIBGL_ALWAYS_SOFTWARE=1 ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" ";
    // xvfb-run's own temporary directory (its Xauthority) goes in this test's directory, where
    // nothing else on the machine cleans up.
    if (display) cmd += "env TMPDIR=" + Quote(dir) + " xvfb-run -a -s '-screen 0 1600x1000x24' ";
    // The time limit is the monitor's, inside xvfb-run: xvfb-run (a dash script) stops its X
    // server on its way out only when it exits normally, so a limit that killed xvfb-run itself
    // would leave that server running after the test.
    cmd += "timeout 180 " + Quote(XRPM_MONITOR_BIN) + " --size 1280x800 " + options + " --script " +
           Quote(script) + " >" + Quote(log) + " 2>&1";
    // xvfb-run itself can fail around the monitor: `-a` picks a free display number by looking
    // for lock files, which races with other xvfb-runs starting at the same moment (parallel
    // ctest), and its clean-up of its temporary directory has been seen to fail under load
    // ("problem while cleaning up temporary directory", exit 5, which hides the monitor's own
    // status). That is the test machine, not the monitor: run the script again.
    RunResult r;
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int st = std::system(cmd.c_str());
      r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      std::ifstream in(log);
      std::stringstream ss;
      ss << in.rdbuf();
      r.output = ss.str();
      // Our port may be taken after all (by a program outside the tests): the emulator says
      // "cannot listen on"; the next port, then.
      if (own_port && r.output.find("cannot listen on 127.0.0.1:" + std::to_string(own_port)) !=
                          std::string::npos) {
        UseOwnPort(salt_ + 1);
        continue;
      }
      if (!display || r.output.find("xvfb-run: error:") == std::string::npos) break;
    }
    return r;
  }

  nlohmann::json State(const std::string& name = "state.json") {
    std::ifstream in(dir + "/" + name);
    return nlohmann::json::parse(in);
  }
};

struct PixelStats {
  int width = 0, height = 0;
  size_t colours = 0;
  double non_background = 0;  // share of pixels that differ from the most common colour
};

PixelStats Inspect(const std::string& png) {
  PixelStats s;
  int n = 0;
  unsigned char* px = stbi_load(png.c_str(), &s.width, &s.height, &n, 3);
  if (!px) return s;
  std::set<uint32_t> colours;
  std::unordered_map<uint32_t, size_t> freq;
  const size_t total = size_t(s.width) * s.height;
  for (size_t i = 0; i < total; ++i) {
    const uint32_t c = px[3 * i] << 16 | px[3 * i + 1] << 8 | px[3 * i + 2];
    colours.insert(c);
    ++freq[c];
  }
  size_t most = 0;
  for (auto& [c, f] : freq) most = std::max(most, f);
  stbi_image_free(px);
  s.colours = colours.size();
  s.non_background = 1.0 - double(most) / double(total);
  return s;
}

void ExpectShowsAView(const std::string& png) {
  ASSERT_TRUE(fs::exists(png)) << png;
  PixelStats p = Inspect(png);
  EXPECT_EQ(p.width, 1280);
  EXPECT_EQ(p.height, 800);
  EXPECT_GT(p.colours, 30u) << png << ": too few colours, blank window?";
  EXPECT_GT(p.non_background, 0.15) << png << ": mostly one colour, blank window?";
}

TEST_F(MonitorE2E, ScriptErrorsAreReportedWithTheLineBeforeAnyWindowOpens) {
  RunResult r = Monitor("demo 1000\nselect-typo Game.Bubble\n", /*display=*/false);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("script.txt:2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("select-typo"), std::string::npos) << r.output;
}

// `--index lean` (what a heap too big for the reference copies gets): the Inspector lists the
// same references out and in, the referrers found by a scan on the worker.
TEST_F(MonitorE2E, TheLeanIndexInspectsLikeTheFullOne) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  nlohmann::json refs;
  for (const std::string index : {"full", "lean"}) {
    RunResult r = Monitor(
        "demo 20000\n"
        "select-type Game.Bubble\n"
        "view instances\n"
        "select-object first\n"
        "view inspector\n"
        "screenshot inspector.png\n"
        "state state.json\n",
        true, "--index " + index);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json d = State()["docs"][0];
    EXPECT_EQ(d["index"], index);
    ASSERT_TRUE(d.contains("selected_object_refs")) << d.dump();
    EXPECT_GT(d["selected_object_refs"]["out"], 0);
    EXPECT_GT(d["selected_object_refs"]["in"], 0);
    if (refs.is_null())
      refs = d["selected_object_refs"];
    else
      EXPECT_EQ(d["selected_object_refs"], refs);
  }
  EXPECT_EQ(Monitor("quit\n", false, "--index huge").exit_code, 2);  // refused, named
}

TEST_F(MonitorE2E, DemoHeapTypesInstancesAndSave) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  RunResult r = Monitor(
      "demo 20000\n"
      "view types\n"
      "screenshot types.png\n"
      "select-type Game.Bubble\n"
      "view instances\n"
      "select-object first\n"
      "screenshot instances.png\n"
      "save out.gclog\n"
      "state state.json\n"
      "select-type No.Such.Type\n");
  // The last step fails on purpose: the script stops there with its line number.
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("line 10: select-type No.Such.Type: no type named"), std::string::npos)
      << r.output;

  nlohmann::json st = State();
  ASSERT_EQ(st["docs"].size(), 1u);
  const auto& d = st["docs"][0];
  EXPECT_EQ(d["state"], "ready");
  EXPECT_EQ(d["objects"], 20000);
  EXPECT_EQ(d["selected_type"], "Game.Bubble");
  EXPECT_GE(d["selected_object"].get<int64_t>(), 0);
  EXPECT_EQ(d["unsaved"], false);
  EXPECT_EQ(d["path"], "out.gclog");

  std::ifstream saved(dir + "/out.gclog");
  std::string first;
  std::getline(saved, first);
  EXPECT_EQ(first.rfind("a 2 demo.exe", 0), 0u) << first;

  ExpectShowsAView(dir + "/types.png");
  ExpectShowsAView(dir + "/instances.png");

  // Settings persist: the next run offers the saved file (by its absolute path) as recent,
  // and the window layout (Dear ImGui's tables and windows) was written.
  RunResult again = Monitor("state state2.json\ndrop out.gclog\nstate state3.json\nquit\n");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  nlohmann::json st2 = State("state2.json");
  ASSERT_FALSE(st2["recent_files"].empty());
  EXPECT_EQ(st2["recent_files"][0].get<std::string>(), fs::canonical(dir + "/out.gclog").string());
  EXPECT_TRUE(fs::exists(dir + "/config/xrpm/settings.json"));
  EXPECT_TRUE(fs::exists(dir + "/config/xrpm/imgui.ini"));
  // A file dropped on the window opens as a snapshot.
  nlohmann::json st3 = State("state3.json");
  ASSERT_EQ(st3["docs"].size(), 1u);
  EXPECT_EQ(st3["docs"][0]["origin"], "opened");
  EXPECT_EQ(st3["docs"][0]["state"], "ready");
  EXPECT_EQ(st3["docs"][0]["objects"], 20000);
}

// .NET heaps: a .gcdump dropped on the window and one opened both load; a sampled one says so
// in the Summary view, with totals stored and scaled.
TEST_F(MonitorE2E, OpensAndDropsGcDumpFiles) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  fs::copy_file(std::string(XRPM_TEST_DATA) + "/gcdump/sample-monovm.gcdump",
                dir + "/monovm.gcdump");
  fs::copy_file(std::string(XRPM_TEST_DATA) + "/../fuzz/corpus/gcdump/sampled.gcdump",
                dir + "/sampled.gcdump");
  RunResult r = Monitor(
      "drop monovm.gcdump\n"
      "wait-idle\n"
      "view summary\n"
      "screenshot monovm.png\n"
      "open sampled.gcdump\n"
      "wait-idle\n"
      "view summary\n"
      "screenshot sampled.png\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json st = State("state.json");
  ASSERT_EQ(st["docs"].size(), 2u);
  EXPECT_EQ(st["docs"][0]["state"], "ready");
  EXPECT_EQ(st["docs"][0]["objects"], 23909);
  EXPECT_EQ(st["docs"][0]["roots"], 19053);
  EXPECT_EQ(st["docs"][0]["sampled"], false);
  EXPECT_EQ(st["docs"][1]["state"], "ready");
  EXPECT_EQ(st["docs"][1]["sampled"], true);
  ExpectShowsAView(dir + "/monovm.png");
  ExpectShowsAView(dir + "/sampled.png");
}

TEST_F(MonitorE2E, InspectionsViewFirstAfterOpenAndItsLinks) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  xrpm::formats::WriteXrpmFile(xrpm::testing::MakeInspectGame(), dir + "/game.xrpm");
  RunResult r = Monitor(
      "drop game.xrpm\n"
      "wait-idle\n"
      "expect-view inspections\n"  // the first view after opening a file
      "wait-frames 3\n"
      "screenshot inspections.png\n"
      "select-finding event-handler-leaks 1\n"
      "view inspector\n"
      "wait-frames 3\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json st = State("state.json");
  const nlohmann::json& d = st["docs"][0];
  ASSERT_EQ(d["inspections"].size(), 6u);
  const nlohmann::json& leak = d["inspections"][1]["findings"][0];
  EXPECT_EQ(leak["severity"], "problem");
  EXPECT_EQ(leak["count"], 2);
  EXPECT_EQ(d["selected_type"], "Bubbles.Bubble");
  EXPECT_EQ(d["selected_object"], leak["object"]);
  ExpectShowsAView(dir + "/inspections.png");
}

TEST_F(MonitorE2E, KeyboardShortcutsFileDialogsAndUnsavedPrompts) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  RunResult r = Monitor(
      "demo 5000\n"
      "key ctrl+f\n"  // Find type: the Types view, its filter focused
      "expect-view types\n"
      "type Game\n"
      "state filter.json\n"
      "key ctrl+s\n"  // never saved: Save As
      "expect-dialog save\n"
      "key ctrl+a\n"
      "type saved.heapsnapshot\n"  // the extension picks the format
      "key enter\n"
      "expect-dialog none\n"
      "wait-idle\n"
      "state saved.json\n"
      "key ctrl+o\n"
      "expect-dialog open\n"
      "key escape\n"
      "expect-dialog none\n"
      "demo-dialog\n"  // File > Generate demo heap...
      "expect-dialog demo\n"
      "wait-frames 2\n"
      "key escape\n"
      "expect-dialog none\n"
      "demo 1000\n"
      "key ctrl+w\n"  // close an unsaved snapshot: asks first
      "expect-dialog close-unsaved\n"
      "screenshot close.png\n"
      "key escape\n"
      "expect-dialog none\n"
      "close-window\n"  // quit with unsaved snapshots: asks first
      "expect-dialog quit-unsaved\n"
      "screenshot quit.png\n"
      "state final.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(State("filter.json")["docs"][0]["type_filter"], "Game");
  const auto saved = State("saved.json")["docs"][0];
  EXPECT_EQ(saved["unsaved"], false);
  const std::string path = saved["path"];
  EXPECT_EQ(fs::path(path).filename(), "saved.heapsnapshot");
  std::ifstream in(path);
  std::string head(16, '\0');
  in.read(head.data(), 16);
  EXPECT_EQ(head.rfind("{\"snapshot\"", 0), 0u) << head;  // Chrome's format, not NETCF text
  const auto final_state = State("final.json");
  ASSERT_EQ(final_state["docs"].size(), 2u);  // neither prompt closed anything
  EXPECT_EQ(final_state["docs"][1]["unsaved"], true);
  ExpectShowsAView(dir + "/close.png");
  ExpectShowsAView(dir + "/quit.png");
}

// A capture is saved as lossless .xrpm unless the user picks another format; choosing .gclog,
// the dialog lists what that format drops before anything is written; the .xrpm reopens (as a
// dropped file) with the capture's metadata.
TEST_F(MonitorE2E, CaptureSavesAsXrpmByDefaultAndTheDialogSaysWhatGclogDrops) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort(7919);
  RunResult r = Monitor(
      "launch-emulator bubbles\n"
      "wait-counters 2\n"
      "capture\n"
      "key ctrl+s\n"  // never saved: Save As, .xrpm proposed
      "expect-dialog save\n"
      "screenshot save-xrpm.png\n"
      "key enter\n"
      "expect-dialog none\n"
      "wait-idle\n"
      "state xrpm.json\n"
      "key ctrl+s\n"  // saved and unchanged: Save As again, now as .gclog
      "expect-dialog save\n"
      "key ctrl+a\n"
      "type cap.gclog\n"
      "screenshot save-gclog.png\n"
      "key enter\n"
      "expect-dialog none\n"
      "wait-idle\n"
      "state gclog.json\n"
      "disconnect\n"
      "drop Capture_1-bubbles.xrpm\n"
      "view summary\n"
      "screenshot reopened.png\n"
      "state reopened.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto x = State("xrpm.json")["docs"][0];
  EXPECT_EQ(x["unsaved"], false);
  EXPECT_EQ(fs::path(x["path"].get<std::string>()).filename(), "Capture_1-bubbles.xrpm");
  std::ifstream in(dir + "/Capture_1-bubbles.xrpm", std::ios::binary);
  std::string magic(4, '\0');
  in.read(magic.data(), 4);
  EXPECT_EQ(magic, "XRPM");
  EXPECT_EQ(fs::path(State("gclog.json")["docs"][0]["path"].get<std::string>()).filename(),
            "cap.gclog");
  std::ifstream gclog(dir + "/cap.gclog");
  std::string first;
  std::getline(gclog, first);
  EXPECT_EQ(first.rfind("a ", 0), 0u) << first;
  const auto reopened = State("reopened.json")["docs"];
  ASSERT_EQ(reopened.size(), 2u);
  EXPECT_EQ(reopened[1]["origin"], "opened");
  EXPECT_EQ(reopened[1]["objects"], reopened[0]["objects"]);
  ExpectShowsAView(dir + "/save-xrpm.png");
  ExpectShowsAView(dir + "/save-gclog.png");
  ExpectShowsAView(dir + "/reopened.png");
}

// "Emulator walks a snapshot", remembered in the settings: the launched emulator's capture is
// walked from a copy-on-write snapshot while its game runs.
TEST_F(MonitorE2E, LaunchedEmulatorWalksASnapshotWhenTheSettingSaysSo) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort();
  std::filesystem::create_directories(dir + "/config/xrpm");
  std::ofstream(dir + "/config/xrpm/settings.json")
      << "{\"emulator_snapshot_walk\": true, \"port\": " << own_port << "}";
  RunResult r = Monitor(
      "launch-emulator bubbles\n"
      "wait-counters 2\n"
      "capture-start\n"
      "wait-capture\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json st = State();
  ASSERT_EQ(st["docs"].size(), 1u);
  EXPECT_EQ(st["docs"][0]["origin"], "captured");
  EXPECT_GT(st["docs"][0]["objects"].get<int>(), 100);
  EXPECT_EQ(st["docs"][0]["snapshot_walk"], true);
}

TEST_F(MonitorE2E, LaunchEmulatorLiveCountersCaptureAndSave) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort();
  RunResult r = Monitor(
      "launch-emulator leak\n"
      "wait-counters 4\n"
      "view counters\n"
      "screenshot counters.png\n"
      "pause-counters\n"
      "state paused.json\n"
      "resume-counters\n"
      "export-counters counters.csv\n"
      "capture-start\n"
      "wait-capture\n"
      "expect-view inspections\n"  // the first view after a capture, as after an open
      "view summary\n"
      "screenshot summary.png\n"
      "save cap.gclog\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json st = State();
  ASSERT_EQ(st["docs"].size(), 1u);
  const auto& d = st["docs"][0];
  EXPECT_EQ(d["origin"], "captured");
  EXPECT_EQ(d["analysed"], true);
  EXPECT_GT(d["objects"].get<int>(), 100);
  EXPECT_EQ(d["unsaved"], false);
  EXPECT_EQ(d["path"], "cap.gclog");
  EXPECT_EQ(d["snapshot_walk"], false);  // the emulator's default: walked in the pause
  std::ifstream saved(dir + "/cap.gclog");
  std::string first;
  std::getline(saved, first);
  EXPECT_EQ(first.rfind("a ", 0), 0u) << first;
  // Live counters: grouped by category, paused on request, exported as CSV.
  nlohmann::json paused = State("paused.json");
  EXPECT_EQ(paused["connection"]["phase"], "connected");
  EXPECT_EQ(paused["counters"]["paused"], true);
  EXPECT_GE(paused["counters"]["samples"].get<int>(), 4);
  EXPECT_GT(paused["counters"]["counters"].get<int>(), 10);
  const auto cats = paused["counters"]["categories"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(cats.begin(), cats.end(), "Garbage Collector"), cats.end());
  EXPECT_EQ(st["counters"]["paused"], false);
  std::ifstream csv(dir + "/counters.csv");
  std::vector<std::string> rows;
  for (std::string l; std::getline(csv, l);) rows.push_back(l);
  // The one counter CSV layout (client/counter_csv.h): a row per counter per sample.
  ASSERT_GE(rows.size(), 5u);  // header + at least the 4 samples waited for
  EXPECT_EQ(rows[0], "host_s,boot_ms,seq,category,counter,unit,total,last,n,mean,min,max");
  EXPECT_NE(rows[1].find(",Garbage Collector,"), std::string::npos) << rows[1];
  ExpectShowsAView(dir + "/counters.png");
  ExpectShowsAView(dir + "/summary.png");
  // The monitor stopped the emulator it launched.
  const std::string probe = "pgrep -f '[x]rpm-emulator --scenario leak --port " +
                            std::to_string(own_port) + "' >/dev/null";
  EXPECT_NE(std::system(probe.c_str()), 0) << "the emulator outlived the monitor";
}

TEST_F(MonitorE2E, TimelineAndAllocationsOfASelectedRange) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort(7919);
  RunResult r = Monitor(
      "launch-emulator bubbles\n"
      "record-frames 1024\n"
      "wait-game-frames 90\n"
      "view timeline\n"
      "select-frames 20 80\n"
      "screenshot timeline.png\n"
      "allocations-by method\n"
      "screenshot allocations.png\n"
      "allocations-by stack\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json st = State();
  EXPECT_GE(st["frames"]["frames"].get<int>(), 90);
  EXPECT_GT(st["frames"]["samples"].get<int>(), 0);
  EXPECT_GT(st["frames"]["stacks"].get<int>(), 0);
  EXPECT_EQ(st["frames"]["sample_bytes"], 1024);
  ASSERT_TRUE(st["frames"].contains("selection"));
  EXPECT_EQ(
      st["frames"]["selection"][1].get<uint64_t>() - st["frames"]["selection"][0].get<uint64_t>(),
      60u);
  EXPECT_EQ(st["frames"]["group"], "stack");
  ExpectShowsAView(dir + "/timeline.png");
  ExpectShowsAView(dir + "/allocations.png");
}

// The Capture panel's Auto capture, scripted: every 200 ms with a ring of 2
// files, the panel shown while it runs, stopped; exactly the newest two files are left and no
// capture was opened as a document.
TEST_F(MonitorE2E, AutoCaptureKeepsARingOfFiles) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort(7921);
  RunResult r = Monitor(
      "launch-emulator bubbles\n"
      "auto-capture every=200ms game=off keep=2 files=" +
      dir +
      "/auto-{n}-{trigger}.xrpm\n"
      "wait-auto-captures 3\n"
      "screenshot auto.png\n"
      "stop-auto-capture\n"
      "state state.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json st = State();
  EXPECT_FALSE(st["auto_capture"]["active"].get<bool>());
  const uint64_t saved = st["auto_capture"]["saved"];
  EXPECT_GE(saved, 3u);
  EXPECT_EQ(st["auto_capture"]["failed"], 0u);
  EXPECT_TRUE(st["docs"].empty()) << "auto captures are saved, not opened";
  ASSERT_EQ(st["auto_capture"]["files"].size(), 2u);
  EXPECT_EQ(st["auto_capture"]["files"][1], dir + "/auto-" + std::to_string(saved) + "-every.xrpm");
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    files += e.path().filename().string().rfind("auto-", 0) == 0;
  EXPECT_EQ(files, 2u);
  ExpectShowsAView(dir + "/auto.png");
}

// Saved recordings and their comparison: the Timeline's recording saved, a second one
// recorded live, the first opened back (by dropping it on the window) into the Timeline, then
// Compare's Allocations mode, live against saved; a damaged recording is refused with the
// reader's error (the script's last step fails on purpose) and the monitor exits normally.
TEST_F(MonitorE2E, SavesOpensAndComparesRecordings) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort(7923);
  std::ofstream(dir + "/bad.xrpm") << "XRPM but not really a recording";
  RunResult r = Monitor(
      "launch-emulator bubbles\n"
      "record-frames 1024\n"
      "wait-game-frames 60\n"
      "save-recording before.xrpm\n"
      "record-frames 2048\n"
      "wait-game-frames 60\n"
      "drop before.xrpm\n"
      "expect-view timeline\n"
      "screenshot opened.png\n"
      "state opened.json\n"
      "compare-allocations 1 live method\n"
      "screenshot compare.png\n"
      "state state.json\n"
      "open-recording bad.xrpm\n");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("line 14: open-recording bad.xrpm: Could not open the recording "
                          "bad.xrpm: "),
            std::string::npos)
      << r.output;
  ASSERT_TRUE(fs::exists(dir + "/before.xrpm"));
  EXPECT_FALSE(fs::exists(dir + "/before.xrpm.tmp"));

  nlohmann::json opened = State("opened.json");
  ASSERT_EQ(opened["recordings"].size(), 1u);
  EXPECT_EQ(opened["recordings"][0]["state"], "ready");
  EXPECT_GE(opened["recordings"][0]["frames"].get<int>(), 60);
  EXPECT_EQ(opened["frames"]["shown"], "before.xrpm");
  EXPECT_EQ(opened["frames"]["sample_bytes"], 1024);  // the saved one, not the live (2048)
  EXPECT_TRUE(opened["docs"].empty()) << "a recording does not open as a snapshot";

  nlohmann::json st = State();
  ASSERT_TRUE(st.contains("alloc_compare"));
  EXPECT_EQ(st["alloc_compare"]["a"], "before.xrpm");
  EXPECT_EQ(st["alloc_compare"]["b"], "Live recording (bubbles.exe)");
  EXPECT_EQ(st["alloc_compare"]["by"], "method");
  ASSERT_FALSE(st["alloc_compare"]["sites"].empty());
  double last = 1e300;
  for (const auto& site : st["alloc_compare"]["sites"]) {  // largest change first
    const double c = std::fabs(site["change"].get<double>());
    EXPECT_LE(c, last);
    last = c;
  }
  ExpectShowsAView(dir + "/opened.png");
  ExpectShowsAView(dir + "/compare.png");
}

TEST_F(MonitorE2E, AllocationSitesAgesAndLeaksFromThreeEmulatorCaptures) {
  if (!HaveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  UseOwnPort();
  // Three captures of the leak scenario, then every origin view, then a .gclog round trip,
  // which cannot keep origins: the views must say so. The captures are paced by the game's own
  // frames (the recorded series), not by counter samples, which arrive by the wall clock: on a
  // loaded machine the game may play far fewer frames in that time. A bubble spawns every 15
  // frames, so A (at about frame 30 of the series) and B (at frame 150 or later) are several
  // leaked handlers apart.
  RunResult r = Monitor(
      "launch-emulator leak\n"
      "record-frames\n"
      "wait-game-frames 30\n"
      "capture\n"
      "wait-game-frames 150\n"
      "capture\n"
      "wait-game-frames 210\n"
      "capture\n"
      "group-by type-site\n"
      "view types\n"
      "screenshot types.png\n"
      "select-type Bubbles.Bubble\n"
      "select-site Bubbles.BubbleField.Spawn\n"
      "view instances\n"
      "select-object first\n"
      "view inspector\n"
      "screenshot inspector.png\n"
      "select-age largest\n"
      "view age\n"
      "screenshot age.png\n"
      "view dominators\n"
      "screenshot dominators.png\n"
      "leaks 1 2 3\n"
      "screenshot leaks.png\n"
      "state state.json\n"
      "leaks 3 2 1\n"
      "state wrong_order.json\n"
      "save cap.gclog\n"
      "close\n"
      "open cap.gclog\n"
      "group-by site\n"
      "view age\n"
      "screenshot gclog.png\n"
      "state gclog.json\n"
      "quit\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json st = State();
  ASSERT_EQ(st["docs"].size(), 3u);
  const auto& o = st["docs"][2]["origins"];
  ASSERT_TRUE(o["present"].get<bool>()) << o;
  EXPECT_FALSE(o["sampled"].get<bool>());
  EXPECT_EQ(o["unknown_objects"], 0);  // the emulator records every object
  EXPECT_NE(o["selected_site"].get<std::string>().find("Bubbles.BubbleField.Spawn"),
            std::string::npos);
  EXPECT_TRUE(o.contains("selected_age"));
  EXPECT_GT(st["docs"][2]["origins"]["capture_frame"].get<uint64_t>(),
            st["docs"][0]["origins"]["capture_frame"].get<uint64_t>());
  // The leak filter names the bubbles' OnSpawn site, and nothing the game frees every frame
  // (the boxed List enumerator of Game1.Update).
  const auto& leaks = st["leaks"];
  ASSERT_EQ(leaks["error"], "") << leaks;
  ASSERT_FALSE(leaks["groups"].empty()) << leaks;
  bool on_spawn = false;
  for (const auto& g : leaks["groups"]) {
    const auto site = g["site"].get<std::vector<std::string>>();
    if (!site.empty() && site[0] == "Bubbles.Bubble.OnSpawn") on_spawn = true;
    EXPECT_EQ(g["type"].get<std::string>().find("Enumerator"), std::string::npos) << g;
    EXPECT_TRUE(g.contains("path")) << g;
  }
  EXPECT_TRUE(on_spawn) << leaks;
  // Out of order: a clear message, no groups.
  const auto wrong = State("wrong_order.json")["leaks"];
  EXPECT_NE(wrong["error"].get<std::string>(), "");
  EXPECT_FALSE(wrong.contains("groups"));
  // The .gclog round trip drops the columns; the views say so.
  const auto g = State("gclog.json")["docs"].back();
  EXPECT_EQ(g["path"], "cap.gclog");
  EXPECT_FALSE(g["origins"]["present"].get<bool>());
  EXPECT_NE(g["origins"]["note"].get<std::string>().find(".gclog files cannot hold them"),
            std::string::npos);
  for (const char* png :
       {"types.png", "inspector.png", "age.png", "dominators.png", "leaks.png", "gclog.png"})
    ExpectShowsAView(dir + "/" + png);
}

}  // namespace
