// Many consecutive captures against one xrpm-emulator process: the agent's (emulator process)
// and the host's (this process) resident memory and open file descriptors stay flat.
//
// The default run is short (XRPM_SOAK_CAPTURES, default 150 captures, reconnecting every 50);
// `XRPM_SOAK_CAPTURES=1000 xrpm_hardening_tests --gtest_filter=Soak*` is the full run recorded in
// docs/RELIABILITY.md. "Flat": after a warm-up of the first tenth, RSS grows by less than 8 MiB on
// either side and the descriptor counts do not change at all. Under AddressSanitizer only the
// descriptors are checked: its quarantine keeps freed memory resident by design (up to 256 MiB).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "proc_usage.h"
#include "sanitizers.h"
#include "subprocess.h"
#include "test_util.h"

namespace xrpm::testing {
namespace {

using client::CaptureResult;

using client::HostClient;

struct Usage {
  uint64_t rss_kb = 0;
  size_t fds = 0;
};

Usage UsageOf(const std::string& pid) {
  return Usage{StatusKiB(pid, "VmRSS"), OpenFiles(pid)};
}

TEST(Soak, ManyCapturesKeepMemoryAndDescriptorsFlat) {
  const char* env = std::getenv("XRPM_SOAK_CAPTURES");
  const int captures = env ? std::max(20, std::atoi(env)) : 150;
  BackgroundProcess emu({XRPM_EMULATOR_BIN, "--port", "0", "--fps", "60", "--scenario", "synthetic",
                         "--objects", "20000"});
  const std::string line = emu.log().WaitFor("listening on 127.0.0.1:", 20000);
  ASSERT_FALSE(line.empty()) << emu.log().All();
  std::string ep = line.substr(line.find("127.0.0.1:"));
  ep = ep.substr(0, ep.find(' '));
  const std::string agent_pid = std::to_string(emu.pid()), self = std::to_string(getpid());

  client::ClientOptions o;
  o.endpoint = ep;
  auto c = std::make_unique<HostClient>(o);
  ASSERT_TRUE(Connected(*c, 20000));
  Usage agent0, host0;
  uint64_t objects = 0;
  const int warmup = captures / 10;
  for (int i = 1; i <= captures; ++i) {
    if (i % 50 == 0) {  // connections come and go too
      c = std::make_unique<HostClient>(o);
      ASSERT_TRUE(Connected(*c, 20000)) << "capture " << i;
    }
    const CaptureResult r = CaptureOnce(*c);
    ASSERT_TRUE(r.ok) << "capture " << i << ": " << r.error;
    objects += r.stats.objects;
    if (i == warmup) {
      agent0 = UsageOf(agent_pid);
      host0 = UsageOf(self);
    }
  }
  const Usage agent1 = UsageOf(agent_pid), host1 = UsageOf(self);
  c.reset();
  std::printf(
      "[ figures  ] %d captures (%llu objects): agent RSS %llu -> %llu KiB, fds %zu -> %zu; "
      "host RSS %llu -> %llu KiB, fds %zu -> %zu\n",
      captures, static_cast<unsigned long long>(objects),
      static_cast<unsigned long long>(agent0.rss_kb),
      static_cast<unsigned long long>(agent1.rss_kb), agent0.fds, agent1.fds,
      static_cast<unsigned long long>(host0.rss_kb), static_cast<unsigned long long>(host1.rss_kb),
      host0.fds, host1.fds);
  if (!kUnderAsan) {
    EXPECT_LT(agent1.rss_kb, agent0.rss_kb + 8192) << "agent memory grows";
    EXPECT_LT(host1.rss_kb, host0.rss_kb + 8192) << "host memory grows";
  }
  EXPECT_EQ(agent1.fds, agent0.fds) << "agent leaks descriptors";
  EXPECT_EQ(host1.fds, host0.fds) << "host leaks descriptors";
  EXPECT_EQ(emu.Stop(), 0) << emu.log().All();
}

}  // namespace
}  // namespace xrpm::testing
