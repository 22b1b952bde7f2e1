// The project's own tools as child processes for tests: `xrpm ARGS` through the shell (for
// redirections such as 2>&1) to completion, and `xrpm-emulator` kept running in the background
// on a free (or given) port whose endpoint is read from the agent's "listening on" line.
// Header-only: XRPM_CLI_BIN and XRPM_EMULATOR_BIN are defined only where those tools are built.
//
// Thread-safety: one test thread drives each EmulatorProcess.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"

namespace xrpm::testing {

#ifdef XRPM_CLI_BIN
// The `xrpm` executable, for tests that start it as a child process themselves.
inline const std::string kXrpm = XRPM_CLI_BIN;

// Runs `xrpm ARGS`; stderr goes into `out` with `with_stderr`, else to /dev/null.
inline RunResult RunXrpm(const std::string& args, bool with_stderr = false) {
  return RunShell(std::string(XRPM_CLI_BIN) + " " + args +
                  (with_stderr ? " 2>&1" : " 2>/dev/null"));
}
#endif

#ifdef XRPM_EMULATOR_BIN
// xrpm-emulator --port PORT --fps 60 ARGS; `endpoint` is "127.0.0.1:PORT", empty if the agent
// never said it listens (20 s bound).
struct EmulatorProcess {
  explicit EmulatorProcess(const std::vector<std::string>& args, uint16_t port = 0) {
    std::vector<std::string> argv = {XRPM_EMULATOR_BIN, "--port", std::to_string(port), "--fps",
                                     "60"};
    argv.insert(argv.end(), args.begin(), args.end());
    proc = std::make_unique<BackgroundProcess>(argv);
    endpoint = WaitForAgentEndpoint(*proc, 20000);
  }
  uint16_t port() const { return static_cast<uint16_t>(std::stoi(endpoint.substr(10))); }
  std::unique_ptr<BackgroundProcess> proc;
  std::string endpoint;
};
#endif

}  // namespace xrpm::testing
