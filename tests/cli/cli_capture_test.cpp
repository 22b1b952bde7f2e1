// `xrpm capture` and `xrpm counters` as a user runs them: real processes (xrpm-emulator with
// its agent, the xrpm CLI) over 127.0.0.1, exit codes, the files they leave (or do not).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "raw_peer.h"
#include "temp_dir.h"
#include "tool_process.h"

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;

const std::string kEmulator = XRPM_EMULATOR_BIN;

size_t FilesIn(const std::string& d) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(d), fs::directory_iterator()));
}

TEST(CliCapture, CapturesTheEmulatorIntoAReadableGclog) {
  const TempDir dir("xrpm_cli_capture");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  const std::string out = dir.Path("bubbles.gclog");
  RunResult r = RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "-o", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "no progress bar when stderr is not a terminal";
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["app"], "bubbles.exe");
  EXPECT_GT(j["objects"].get<uint64_t>(), 50u);
  EXPECT_GT(j["pause_us"].get<uint64_t>(), 0u);
  EXPECT_EQ(FilesIn(dir.path()), 1u) << "the snapshot and no temporary file";

  RunResult info = RunProcess({kXrpm, "info", out, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("\"objects\": " + std::to_string(j["objects"].get<uint64_t>())),
            std::string::npos)
      << info.out;

  // Text output names the app, the counts and the pause.
  RunResult text =
      RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "--peer-timeout", "20", "-o", out});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("captured bubbles.exe from " + emu.endpoint), std::string::npos);
  EXPECT_NE(text.out.find("game paused"), std::string::npos) << text.out;
  EXPECT_EQ(emu.proc->Stop(), 0) << emu.proc->log().All();
}

TEST(CliCapture, CountersToCsv) {
  const TempDir dir("xrpm_cli_capture");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty());
  const std::string csv = dir.Path("counters.csv");
  // Long enough that a loaded machine still delivers several samples; the interval in force is
  // checked on the device's own clock (boot_ms), not by counting rows against the wall clock.
  RunResult r = RunProcess({kXrpm, "counters", "--connect", emu.endpoint, "--interval", "20",
                            "--duration", "3", "--csv", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Managed Bytes Allocated"), std::string::npos) << r.out;
  std::ifstream in(csv);
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "host_s,boot_ms,seq,category,counter,unit,total,last,n,mean,min,max");
  size_t rows = 0;
  std::vector<uint64_t> boot_ms;  // one per sample: its "Managed Bytes Allocated" row
  while (std::getline(in, row)) {
    ++rows;
    if (row.find(",Garbage Collector,Managed Bytes Allocated,bytes,") == std::string::npos)
      continue;
    const size_t a = row.find(',') + 1;
    boot_ms.push_back(std::stoull(row.substr(a, row.find(',', a) - a)));
  }
  ASSERT_GE(boot_ms.size(), 5u) << "samples every 20 ms for 3 s";
  EXPECT_GT(rows, boot_ms.size());
  // The 20 ms interval, not the default 100 ms: the median gap between consecutive samples on
  // the device's clock (a stalled sample or two on a busy machine does not move the median).
  std::vector<uint64_t> gaps;
  for (size_t i = 1; i < boot_ms.size(); ++i) gaps.push_back(boot_ms[i] - boot_ms[i - 1]);
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  EXPECT_LT(gaps[gaps.size() / 2], 100u) << "median gap in ms between samples (the default "
                                            "interval would give >= 100)";
}

TEST(CliCapture, BadTokenFailsAndWritesNothing) {
  const TempDir dir("xrpm_cli_capture");
  EmulatorProcess emu({"--scenario", "bubbles", "--token", "s3cret"});
  ASSERT_FALSE(emu.endpoint.empty());
  const std::string out = dir.Path("x.gclog");
  RunResult r =
      RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "--token", "nope", "-o", out});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad token"), std::string::npos) << r.err;
  EXPECT_EQ(FilesIn(dir.path()), 0u);
  EXPECT_FALSE(emu.proc->log().WaitFor("refused 127.0.0.1").empty());
  RunResult ok =
      RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "--token", "s3cret", "-o", out});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(CliCapture, EmulatorRefusesAPublicAddressWithoutToken) {
  RunResult r = RunProcess({kEmulator, "--listen", "0.0.0.0:0", "--duration", "1"}, 20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("requires a token"), std::string::npos) << r.err;
}

TEST(CliCapture, IncompleteCaptureWritesNoFile) {
  const TempDir dir("xrpm_cli_capture");
  FakeDevice dev;
  std::thread device([&] {
    if (dev.StartCapture(2)) dev.peer().DisconnectNow();
  });
  const std::string out = dir.Path("x.gclog");
  RunResult r = RunProcess(
      {kXrpm, "capture", "--connect", "127.0.0.1:" + std::to_string(dev.port()), "-o", out});
  device.join();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("incomplete capture"), std::string::npos) << r.err;
  EXPECT_EQ(FilesIn(dir.path()), 0u) << "no snapshot, no temporary file";
}

TEST(CliCapture, UsageErrors) {
  EXPECT_EQ(RunProcess({kXrpm, "capture", "-o", "x.gclog"}).exit_code, 2);
  EXPECT_EQ(
      RunProcess({kXrpm, "counters", "--connect", "127.0.0.1:1", "--interval", "1"}).exit_code, 2);
  RunResult pt = RunProcess(
      {kXrpm, "capture", "--connect", "127.0.0.1:1", "--peer-timeout", "0", "-o", "x.gclog"});
  EXPECT_EQ(pt.exit_code, 2);
  EXPECT_NE(pt.err.find("--peer-timeout"), std::string::npos) << pt.err;
  RunResult r = RunProcess({kXrpm, "capture", "--connect", "127.0.0.1:99999", "-o", "x.gclog"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad port"), std::string::npos) << r.err;
}

// --join-induced-gc: a bad duration and unattended options are usage errors; a runtime that
// induces its own collection (the emulator) is refused before anything is asked, nothing saved.
TEST(CliCapture, JoinInducedGcIsRefusedWhereItCannotHold) {
  RunResult bad = RunProcess(
      {kXrpm, "capture", "--connect", "127.0.0.1:1", "--join-induced-gc=soon", "-o", "x.gclog"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--join-induced-gc: expected a positive duration"), std::string::npos)
      << bad.err;
  RunResult every = RunProcess({kXrpm, "capture", "--connect", "127.0.0.1:1", "--join-induced-gc",
                                "--every", "1s", "-o", "x.gclog"});
  EXPECT_EQ(every.exit_code, 2);
  EXPECT_NE(every.err.find("does not combine with unattended options"), std::string::npos)
      << every.err;

  const TempDir dir("xrpm_cli_capture");
  EmulatorProcess emu({"--scenario", "bubbles"});
  ASSERT_FALSE(emu.endpoint.empty()) << emu.proc->log().All();
  RunResult r = RunProcess({kXrpm, "capture", "--connect", emu.endpoint, "--join-induced-gc", "-o",
                            dir.Path("x.gclog")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot join another tool's collection: it induces its own"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(FilesIn(dir.path()), 0u);
}

}  // namespace
}  // namespace xrpm::testing
