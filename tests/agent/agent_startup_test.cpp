// The agent libraries' side of the launchers' start-up handshake (device-agent/ports/launch/
// agent_startup.h): the status line reaches the launcher's pipe once and the variable naming it
// is gone afterwards; the program's name is found on its command line as the ports name it.
#include "agent_startup.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace xrpm::launch {
namespace {

constexpr const char* kEnv = "XRPM_TEST_STATUS_FD";

TEST(AgentStartup, StatusLineGoesToTheNamedPipeOnceAndTheVariableIsRemoved) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(setenv(kEnv, std::to_string(fds[1]).c_str(), 1), 0);
  WriteAgentStatus(kEnv, "ok 127.0.0.1:4510");
  EXPECT_EQ(std::getenv(kEnv), nullptr);
  WriteAgentStatus(kEnv, "ok again");  // no variable: nothing is written anywhere
  char buf[64] = {};
  // The write end was closed by the first call, so the read sees the line, then EOF.
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), "ok 127.0.0.1:4510\n");
  EXPECT_EQ(read(fds[0], buf, sizeof buf), 0);
  close(fds[0]);
}

TEST(AgentStartup, StandardDescriptorsAreNeverWritten) {
  ASSERT_EQ(setenv(kEnv, "1", 1), 0);  // stdout: a launcher never passes it, so it is refused
  WriteAgentStatus(kEnv, "ok 127.0.0.1:1");
  EXPECT_EQ(std::getenv(kEnv), nullptr);
  EXPECT_NE(fcntl(1, F_GETFD), -1) << "stdout is still open";
}

TEST(AgentStartup, ProgramNamesFromTheCommandLine) {
  EXPECT_EQ(BaseName("/a/b/Game.dll"), "Game.dll");
  EXPECT_EQ(BaseName("Game.dll"), "Game.dll");
  // mono --debug /games/Bubbles.EXE: options are skipped, the extension's case does not matter.
  EXPECT_EQ(FirstFileWithExtension({"mono", "--profile=xrpm.dll", "/games/Bubbles.EXE", "x.dll"},
                                   {".exe", ".dll"}),
            "Bubbles.EXE");
  EXPECT_EQ(FirstFileWithExtension({"dotnet", "exec", "bin/Graph.dll", "300"}, {".dll"}),
            "Graph.dll");
  EXPECT_EQ(FirstFileWithExtension({"./Graph", "300"}, {".dll"}), "");
  EXPECT_EQ(FirstFileWithExtension({".dll", ""}, {".dll"}), "")
      << "an extension alone names no file";
  EXPECT_EQ(FirstFileWithExtension({}, {".dll"}), "");
}

TEST(AgentStartup, ProcessArgumentsAreThisProcesssCommandLine) {
  const std::vector<std::string> args = ProcessArguments();
  ASSERT_FALSE(args.empty());
  EXPECT_NE(BaseName(args[0]).find("xrpm_agent_tests"), std::string::npos) << args[0];
}

}  // namespace
}  // namespace xrpm::launch
