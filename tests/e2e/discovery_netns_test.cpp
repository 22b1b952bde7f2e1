// ctest-labels: threaded
// Discovery for real: agents that announce themselves, the host's listener, `xrpm-emulator
// --announce` and `xrpm devices`, over real UDP multicast, but only inside a network namespace
// this test creates (`unshare -rn`, loopback up, a route for 224.0.0.0/4 on lo), so nothing ever
// reaches a real network. Each test re-runs itself inside its own namespace (the variable
// XRPM_DISCOVERY_NETNS marks the inner run); where namespaces are not permitted the outer run
// skips with the reason.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fake_runtime.h"
#include "subprocess.h"
#include "xrpm/agent/agent.h"
#include "xrpm/client/device_discovery.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/beacon.h"

namespace xrpm {
namespace {

using testing::RunProcess;
using testing::RunResult;

constexpr const char* kUnshare = "/usr/bin/unshare";  // util-linux (essential in Debian)
constexpr const char* kNetnsSetup = "ip link set lo up && ip route add 224.0.0.0/4 dev lo";

bool InsideNetns() {
  return std::getenv("XRPM_DISCOVERY_NETNS") != nullptr;
}

// Runs the current test again inside a fresh network namespace; skips when that is not possible.
void RunInsideNetns() {
  const RunResult probe =
      RunProcess({kUnshare, "-rn", "sh", "-c", std::string(kNetnsSetup)}, 20000);
  if (probe.exit_code != 0)
    GTEST_SKIP() << "network namespaces are not permitted here (unshare -rn; ip from iproute2): "
                 << probe.err;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string filter = std::string(info->test_suite_name()) + "." + info->name();
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = 0;
  const RunResult r =
      RunProcess({kUnshare, "-rn", "sh", "-c",
                  std::string(kNetnsSetup) +
                      " && exec env XRPM_DISCOVERY_NETNS=1 \"$0\" --gtest_filter=\"$1\"",
                  self, filter},
                 280000);  // the inner run may start an emulator, Xvfb and a (TSan-built) monitor
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
}

// A plain member of the beacon group that keeps every datagram it hears (raw bytes).
class RawListener {
 public:
  RawListener() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(protocol::kBeaconPort);
    ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ip_mreqn m{};
    ::inet_pton(AF_INET, protocol::kBeaconGroup, &m.imr_multiaddr);
    ok_ = ok_ && ::setsockopt(fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) == 0;
  }
  ~RawListener() { ::close(fd_); }
  bool ok() const { return ok_; }
  // The next datagram within timeout_ms ("" if none).
  std::string Next(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return "";
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

// Sends `datagram` to the beacon group from 127.0.0.1, as a (possibly hostile) agent would.
void SendToGroup(const std::string& datagram) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  in_addr lo{};
  ::inet_pton(AF_INET, "127.0.0.1", &lo);
  ::setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(protocol::kBeaconPort);
  ::inet_pton(AF_INET, protocol::kBeaconGroup, &to.sin_addr);
  ::sendto(fd, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  ::close(fd);
}

agent::AgentOptions AnnouncingAgent(std::string token = "") {
  agent::AgentOptions o;
  o.port = 0;
  o.announce = true;
  o.announce_interval_ms = 500;
  o.token = std::move(token);
  o.log = [](const std::string&) {};
  return o;
}

auto HasPort(uint16_t port) {
  return [port](const std::vector<client::DiscoveredDevice>& ds) {
    for (const auto& d : ds)
      if (d.beacon.port == port) return true;
    return false;
  };
}

TEST(DiscoveryNetns, AnAnnouncingAgentIsListedWithItsPortAndNeverSendsItsToken) {
  if (!InsideNetns()) return RunInsideNetns();
  const std::string token = "correct-horse-battery-staple";
  RawListener raw;
  ASSERT_TRUE(raw.ok());
  client::DeviceDiscovery d;
  std::string error;
  ASSERT_TRUE(d.Start(&error)) << error;
  testing::FakeRuntime rt(100);
  agent::Agent a(rt, AnnouncingAgent(token));
  ASSERT_TRUE(a.Start(&error)) << error;

  ASSERT_TRUE(d.WaitFor(HasPort(a.port()), 10000)) << "no beacon heard";
  const auto devices = d.Devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].address, "127.0.0.1");
  EXPECT_EQ(devices[0].beacon.app, "fake.exe");
  EXPECT_EQ(devices[0].beacon.runtime, "fake runtime");
  EXPECT_EQ(devices[0].beacon.platform, "test");
  EXPECT_TRUE(devices[0].beacon.token_required);

  // Whether a token is required, never the token or anything derived from it.
  const protocol::AuthKey key = protocol::DeriveAuthKey(token);
  const std::string key_bytes(key.begin(), key.end());
  const std::string dg = raw.Next(10000);
  ASSERT_FALSE(dg.empty());
  EXPECT_EQ(dg.find(token), std::string::npos);
  EXPECT_EQ(dg.find(key_bytes.substr(0, 8)), std::string::npos);
  EXPECT_EQ(dg.find("horse"), std::string::npos);
  a.Stop();
}

TEST(DiscoveryNetns, MalformedOversizedAndSpoofedDatagramsAreIgnoredWithoutHarm) {
  if (!InsideNetns()) return RunInsideNetns();
  client::DeviceDiscovery d;
  std::string error;
  ASSERT_TRUE(d.Start(&error)) << error;
  // Hostile datagrams first; the real agent's beacon is queued behind them on the same socket.
  protocol::BeaconInfo fake;
  fake.port = 0;  // a "beacon" claiming port 0
  std::string bad_port = protocol::EncodeBeacon(fake);
  SendToGroup(std::string(2000, 'x'));                         // oversized
  SendToGroup("XRPMBCN1" + std::string(40, '\xff'));           // malformed after the magic
  SendToGroup("GET / HTTP/1.0\r\n\r\n");                       // not a beacon at all
  SendToGroup(bad_port);                                       // bad field
  SendToGroup(std::string(protocol::kMaxBeaconBytes + 1, 0));  // one byte over the limit
  testing::FakeRuntime rt(100);
  agent::Agent a(rt, AnnouncingAgent());
  ASSERT_TRUE(a.Start(&error)) << error;
  ASSERT_TRUE(d.WaitFor(HasPort(a.port()), 10000)) << "no beacon heard";
  const auto devices = d.Devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_FALSE(devices[0].beacon.token_required);
  const auto st = d.stats();
  EXPECT_EQ(st.ignored, 5u) << st.last_ignored_reason;
  EXPECT_GE(st.accepted, 1u);
  a.Stop();
}

TEST(DiscoveryNetns, XrpmDevicesListsAnAnnouncingEmulator) {
  if (!InsideNetns()) return RunInsideNetns();
  testing::BackgroundProcess emu(
      {XRPM_EMULATOR_BIN, "--scenario", "bubbles", "--port", "0", "--announce"});
  ASSERT_TRUE(emu.started());
  const std::string line = emu.log().WaitFor("listening on 127.0.0.1:", 20000);
  ASSERT_FALSE(line.empty()) << "the emulator did not start";
  EXPECT_NE(line.find("announced on"), std::string::npos) << line;
  // "xrpm-agent: listening on 127.0.0.1:PORT (announced on ...)"
  std::string port = line.substr(line.find("127.0.0.1:") + 10);
  port = port.substr(0, port.find(' '));

  // --count 1: stops at the first device heard; the 60 s window only bounds a broken run (the
  // emulator announces once a second, and a slow machine may miss a few).
  const RunResult r =
      RunProcess({XRPM_CLI_BIN, "devices", "--timeout", "60", "--count", "1", "--json"}, 90000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["devices"].size(), 1u) << r.out;
  EXPECT_LT(j["listened_s"].get<double>(), 60.0) << "stopped at the first device, not the window";
  const auto& dev = j["devices"][0];
  EXPECT_EQ(dev["app"], "bubbles.exe");
  EXPECT_EQ(dev["address"], "127.0.0.1");
  EXPECT_EQ(std::to_string(dev["port"].get<int>()), port);
  EXPECT_EQ(dev["token_required"], false);

  const RunResult text =
      RunProcess({XRPM_CLI_BIN, "devices", "--timeout", "60", "--count", "1"}, 90000);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("127.0.0.1:" + port), std::string::npos) << text.out;
  emu.Stop();
}

#ifdef XRPM_MONITOR_BIN
// The monitor lists the announcing emulator and connects to it when the script clicks it (the
// script's connect-discovered step is the click; nothing connects before it).
TEST(DiscoveryNetns, TheMonitorListsDevicesAndConnectsWithOneClick) {
  if (!InsideNetns()) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "no xvfb-run";
    return RunInsideNetns();
  }
  const std::string dir =
      ::testing::TempDir() + "/xrpm_discovery_monitor_" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "/config'").c_str()), 0);
  testing::BackgroundProcess emu(
      {XRPM_EMULATOR_BIN, "--scenario", "bubbles", "--port", "0", "--announce"});
  ASSERT_FALSE(emu.log().WaitFor("listening on 127.0.0.1:", 20000).empty());
  {
    std::ofstream script(dir + "/s.script");
    script << "wait-discovered 1\nstate " << dir << "/before.json\n"
           << "connect-discovered bubbles.exe\nwait-counters 3\nstate " << dir
           << "/after.json\nquit\n";
  }
  // The time limit inside xvfb-run, which stops its X server only when it exits normally.
  const std::string cmd = "cd '" + dir + "' && XDG_CONFIG_HOME='" + dir +
                          "/config' LIBGL_ALWAYS_SOFTWARE=1 "
                          "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" TMPDIR='" +
                          dir + "' xvfb-run -a -s '-screen 0 1280x800x24' timeout 120 '" +
                          XRPM_MONITOR_BIN + "' --size 1024x700 --script '" + dir +
                          "/s.script' >'" + dir + "/monitor.log' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << dir << "/monitor.log";
  auto read = [&](const std::string& f) {
    std::ifstream in(dir + "/" + f);
    return nlohmann::json::parse(in);
  };
  const auto before = read("before.json"), after = read("after.json");
  EXPECT_EQ(before["connection"]["phase"], "disconnected");  // listed, not connected
  ASSERT_EQ(before["discovered"].size(), 1u);
  EXPECT_EQ(before["discovered"][0]["app"], "bubbles.exe");
  EXPECT_EQ(after["connection"]["phase"], "connected");
  EXPECT_GE(after["counters"]["samples"].get<int>(), 3);
  emu.Stop();
}
#endif

#ifdef XRPM_MONO_LAUNCHER
// A C# game under xrpm-mono --announce is listed like the emulator.
TEST(DiscoveryNetns, XrpmDevicesListsAnAnnouncingMonoGame) {
  if (!InsideNetns()) {
    if (std::system("command -v mono >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "Mono is not installed (apt-get install mono-runtime)";
    return RunInsideNetns();
  }
  testing::BackgroundProcess game(
      {XRPM_MONO_LAUNCHER, "--port", "0", "--announce", "--", XRPM_MONO_GAME});
  ASSERT_TRUE(game.started());
  const std::string line = game.log().WaitFor("listening on 127.0.0.1:", 60000);
  ASSERT_FALSE(line.empty()) << "xrpm-mono did not start";
  std::string port = line.substr(line.find("127.0.0.1:") + 10);
  port = port.substr(0, port.find_first_not_of("0123456789"));
  client::DeviceDiscovery d;
  std::string error;
  ASSERT_TRUE(d.Start(&error)) << error;
  ASSERT_TRUE(d.WaitFor(HasPort(static_cast<uint16_t>(std::stoi(port))), 10000));
  const auto devices = d.Devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].beacon.app, "XnaBubbles.exe");
  EXPECT_NE(devices[0].beacon.runtime.find("Mono"), std::string::npos) << devices[0].beacon.runtime;
  game.Stop();
}
#endif

TEST(Discovery, XrpmDevicesRefusesABadTimeoutOrCount) {
  for (const char* t : {"0", "-1", "100000", "soon"}) {
    const RunResult r = RunProcess({XRPM_CLI_BIN, "devices", "--timeout", t}, 30000);
    EXPECT_EQ(r.exit_code, 2) << t << ": " << r.err;
  }
  for (const char* n : {"0", "-1", "257", "some"}) {
    const RunResult r = RunProcess({XRPM_CLI_BIN, "devices", "--count", n}, 30000);
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("--count"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace xrpm
