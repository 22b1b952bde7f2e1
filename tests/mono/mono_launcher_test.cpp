// xrpm-mono as a user runs it with bad input: every mistake is a clear message and exit code 2
// (never a program silently running without its agent); a missing Mono names the package.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mono_process.h"

#ifndef XRPM_MONO_MODULE_DIR
#define XRPM_MONO_MODULE_DIR ""
#endif

namespace xrpm::testing {
namespace {

TEST(MonoLauncher, BadOptionsExitTwoWithAClearMessage) {
  SKIP_WITHOUT_MONO();
  const std::string game = MonoProgram("XnaBubbles.exe");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--frame", "Tick", "--", game}, "expected Namespace.Class:Method"},
      {{"--frame", "A.B:", "--", game}, "expected Namespace.Class:Method"},
      {{"--port", "70000", "--", game}, "--port"},
      {{"--listen", "127.0.0.1:notaport", "--", game}, "--listen"},
      {{"--bogus", "--", game}, "bogus"},
      {{"--port", "0"}, "program"},
      {{"--port", "0", "--", "/nonexistent/Game.exe"}, "no such program"},
      {{"--listen", "0.0.0.0:0", "--", game}, "requires a token"},
      {{"--sample-bytes", "64", "--", game}, "--allocations"},
      {{"--allocations", "--sample-bytes", "99999999999", "--", game}, "--sample-bytes"},
      {{"--frame-window-ms", "0", "--", game}, "--frame-window-ms"},
      {{"--frame-window-ms", "600001", "--", game}, "--frame-window-ms"},
      {{"--walk", "forked", "--", game}, "--walk"},
  };
  for (const Case& c : cases) {
    const RunResult r = RunLauncher(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_EQ(r.err.find("Native Crash"), std::string::npos) << r.err;
  }
}

TEST(MonoLauncher, PortInUseExitsTwo) {
  SKIP_WITHOUT_MONO();
  // ENet listens on UDP: hold a UDP port on 127.0.0.1.
  const int s = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(getsockname(s, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string port = std::to_string(ntohs(a.sin_port));
  const RunResult r = RunLauncher({"--port", port, "--", MonoProgram("XnaBubbles.exe")});
  close(s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:" + port), std::string::npos) << r.err;
}

TEST(MonoLauncher, UnknownProfilerOptionStopsMonoWithExitTwo) {
  SKIP_WITHOUT_MONO();
  // The module checks its own options when Mono is run by hand (not through xrpm-mono).
  const struct {
    std::string options, message;
  } cases[] = {
      {"port=0,bogus=1", "unknown profiler option 'bogus=1'"},
      {"port=0,allocations,sample_bytes=lots",
       "profiler option sample_bytes='lots': expected bytes 0-67108864"},
      {"port=0,frame_window_ms=0",
       "profiler option frame_window_ms='0': expected milliseconds 1-600000"},
      {"port=0,walk=fork", "profiler option walk='fork': expected snapshot or paused"},
  };
  for (const auto& c : cases) {
    const RunResult r =
        RunProcess({"/usr/bin/env", std::string("LD_LIBRARY_PATH=") + XRPM_MONO_MODULE_DIR, "mono",
                    "--profile=xrpm:" + c.options, MonoProgram("XnaBubbles.exe")},
                   60000);
    EXPECT_EQ(r.exit_code, 2) << c.options << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.options << "\n" << r.err;
  }
}

TEST(MonoLauncher, MissingMonoNamesThePackage) {
  SKIP_WITHOUT_MONO();
  const RunResult r = RunProcess({"/usr/bin/env", "PATH=/nonexistent", MonoLauncher(), "--port",
                                  "0", "--", MonoProgram("XnaBubbles.exe")},
                                 60000);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("sudo apt-get install mono-runtime"), std::string::npos) << r.err;
}

TEST(MonoLauncher, RunsTheProgramToItsEndWithTheAgent) {
  SKIP_WITHOUT_MONO();
  const RunResult r =
      RunLauncher({"--port", "0", "--", MonoProgram("XnaBubbles.exe"), "--frames", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("xrpm-agent: listening on 127.0.0.1:"), std::string::npos) << r.err;
  // The program's own exit code comes back.
  const RunResult bad = RunLauncher({"--port", "0", "--", MonoProgram("XnaBubbles.exe"), "--what"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("XnaBubbles: unknown argument '--what'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace xrpm::testing
