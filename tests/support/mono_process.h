// Helpers for the Mono port's tests: where xrpm-mono and the C# programs are, whether Mono is
// here at all, and a running `xrpm-mono ... -- PROGRAM.exe` whose agent endpoint is read from
// its "xrpm-agent: listening on" line.
//
// Thread-safety: one test thread drives each MonoProgram.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"
#include "xrpm/client/host_client.h"

// In a test body: skips the test, saying why, when the Mono port cannot run here.
#define SKIP_WITHOUT_MONO()                                 \
  do {                                                      \
    const std::string why = ::xrpm::testing::MonoMissing(); \
    if (!why.empty()) GTEST_SKIP() << why;                  \
  } while (0)

namespace xrpm::testing {

// "" when the Mono port can run here, else why not (for GTEST_SKIP).
std::string MonoMissing();
std::string MonoLauncher();
std::string MonoProgram(const std::string& exe);  // path of a C# program the build compiled

// xrpm-mono ARGS, run to completion (killed after 60 s).
RunResult RunLauncher(const std::vector<std::string>& args);
// "127.0.0.1:PORT" from the agent's "listening on" line of `p` (waits up to 30 s); "" if none.
std::string WaitForEndpoint(BackgroundProcess& p);

struct MonoRun {
  // xrpm-mono --port 0 LAUNCHER_ARGS -- PROGRAM ARGS; waits for the listening line.
  MonoRun(const std::vector<std::string>& launcher_args, const std::string& exe,
          const std::vector<std::string>& args);
  std::unique_ptr<BackgroundProcess> proc;
  std::string endpoint;  // "127.0.0.1:PORT", empty if the agent never listened
  uint16_t port = 0;
};

// A host client connected to `endpoint` (token optional); null, with a test failure, if the
// handshake did not complete within 30 s.
std::unique_ptr<client::HostClient> ConnectTo(const std::string& endpoint,
                                              const std::string& token = "");

// Captures over `c` until the capture's frame (frames the program's frame method completed,
// carried with allocation origins) is at least `frame`, so the program's own frames, not the
// wall clock, space captures apart however slowly a loaded machine runs it. `c` must be
// subscribed to counters: between tries it waits for 5 more samples (half a second at 100 ms)
// so that it does not capture back to back. Bounded: fails (r.ok false, r.error says why)
// after 60 s or a capture without origins.
client::CaptureResult CaptureAtOrAfterFrame(client::HostClient& c, uint64_t frame);

// One capture from the agent at `endpoint` (a new connection, 2 min at most); null, with a test
// failure showing `proc`'s log, when it fails.
std::shared_ptr<const Snapshot> CaptureFrom(const std::string& endpoint, BackgroundProcess& proc);

}  // namespace xrpm::testing
