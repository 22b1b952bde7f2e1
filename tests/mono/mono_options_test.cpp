// xrpm-mono --mono-option=OPT: Mono's own options reach Mono (a second profiler loaded beside
// xrpm's module writes its file), and every option that cannot is refused with a clear message
// and exit code 2 before the program runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "mono_process.h"

namespace xrpm::testing {
namespace {

TEST(MonoOptions, BadMonoOptionsExitTwoBeforeTheProgramRuns) {
  SKIP_WITHOUT_MONO();
  const std::string game = MonoProgram("XnaBubbles.exe");
  struct Case {
    std::string option, message;
  } cases[] = {
      {"--mono-option=", "expected a Mono option"},  // CLI11 hands over the next word, "--"
      {"--mono-option=debug",
       "expected a Mono option starting with '-' (such as --debug), "
       "found 'debug'"},
      {"--mono-option=--", "expected a Mono option starting with '-'"},
      {"--mono-option=--version", "'--version' makes Mono do something other than run"},
      {"--mono-option=--aot=full", "'--aot=full' makes Mono do something other than run"},
      {"--mono-option=--config", "'--config' takes its value in the next argument"},
      {"--mono-option=--profile=xrpm:port=0",
       "'--profile=xrpm:port=0': xrpm-mono loads the xrpm module itself"},
      {"--mono-option=--no-such-mono-option",
       "Mono refused its options (--no-such-mono-option): Unknown command line option: "
       "'--no-such-mono-option'"},
  };
  for (const Case& c : cases) {
    // The program would run for ever without its --frames: exit 2 means it never started.
    const RunResult r = RunLauncher({"--port", "0", c.option, "--", game});
    EXPECT_EQ(r.exit_code, 2) << c.option << "\n" << r.err;
    EXPECT_NE(r.err.find("xrpm-mono: --mono-option: " + c.message), std::string::npos)
        << c.option << "\n"
        << r.err;
    EXPECT_EQ(r.err.find("xrpm-agent: listening"), std::string::npos) << c.option << "\n" << r.err;
  }
}

TEST(MonoOptions, ReachMonoBesideTheAgent) {
  SKIP_WITHOUT_MONO();
  if (!std::filesystem::exists("/usr/lib/libmono-profiler-log.so"))
    GTEST_SKIP() << "Mono's log profiler is not installed (sudo apt-get install libmono-profiler)";
  const std::string out =
      ::testing::TempDir() + "/xrpm_mono_options_" + std::to_string(getpid()) + ".mlpd";
  std::filesystem::remove(out);
  const RunResult r = RunLauncher({"--port", "0", "--mono-option=--debug",
                                   "--mono-option=--profile=log:nocalls,output=" + out, "--",
                                   MonoProgram("XnaBubbles.exe"), "--frames", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("xrpm-agent: listening on 127.0.0.1:"), std::string::npos) << r.err;
  // Mono's log profiler ran in the same process: its file starts with the .mlpd magic.
  std::ifstream in(out, std::ios::binary);
  ASSERT_TRUE(in) << "no " << out << "\n" << r.err;
  unsigned char magic[4] = {};
  in.read(reinterpret_cast<char*>(magic), 4);
  const uint32_t m = magic[0] | magic[1] << 8 | magic[2] << 16 | uint32_t{magic[3]} << 24;
  EXPECT_EQ(m, 0x4D505A01u);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace xrpm::testing
