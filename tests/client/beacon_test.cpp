// ctest-labels: threaded
// The discovery beacon codec (protocol/beacon.h) and the host's listener logic
// (DeviceDiscovery::OnDatagram) on hand-made datagrams: what is accepted, what is ignored and
// why, where a device's address comes from, and the bound on how many devices are kept.
#include <gtest/gtest.h>

#include <string>

#include "xrpm/client/device_discovery.h"
#include "xrpm/protocol/beacon.h"
#include "xrpm/protocol/beacon.pb.h"

namespace xrpm {
namespace {

protocol::BeaconInfo Sample() {
  protocol::BeaconInfo b;
  b.protocol_version = 2;
  b.agent = "xrpm-agent 0.1.0";
  b.app = "bubbles.exe";
  b.runtime = "xrpm-emulator (NETCF 3.5 model)";
  b.platform = "Xbox 360 (emulated)";
  b.port = 4510;
  b.token_required = true;
  b.instance = 0x1122334455667788ull;
  b.interval_ms = 1000;
  return b;
}

bool Decode(const std::string& d, protocol::BeaconInfo* out, std::string* why) {
  return protocol::DecodeBeacon(d.data(), d.size(), out, why);
}

TEST(Beacon, RoundTripsEveryField) {
  const std::string d = protocol::EncodeBeacon(Sample());
  EXPECT_LE(d.size(), protocol::kMaxBeaconBytes);
  EXPECT_EQ(d.substr(0, 8), "XRPMBCN1");
  protocol::BeaconInfo b;
  std::string why;
  ASSERT_TRUE(Decode(d, &b, &why)) << why;
  const protocol::BeaconInfo s = Sample();
  EXPECT_EQ(b.protocol_version, s.protocol_version);
  EXPECT_EQ(b.agent, s.agent);
  EXPECT_EQ(b.app, s.app);
  EXPECT_EQ(b.runtime, s.runtime);
  EXPECT_EQ(b.platform, s.platform);
  EXPECT_EQ(b.port, s.port);
  EXPECT_TRUE(b.token_required);
  EXPECT_EQ(b.instance, s.instance);
  EXPECT_EQ(b.interval_ms, s.interval_ms);
}

TEST(Beacon, LongAndInvalidNamesAreCutAndMadeValidByTheEncoder) {
  protocol::BeaconInfo s = Sample();
  s.app = std::string(1000, 'a');
  s.platform = "bad\xff\xfe utf8";
  s.interval_ms = 1;  // below the rate limit: clamped
  const std::string d = protocol::EncodeBeacon(s);
  EXPECT_LE(d.size(), protocol::kMaxBeaconBytes);
  protocol::BeaconInfo b;
  std::string why;
  ASSERT_TRUE(Decode(d, &b, &why)) << why;
  EXPECT_EQ(b.app, std::string(protocol::kMaxBeaconString, 'a'));
  EXPECT_EQ(b.platform, "bad?? utf8");
  EXPECT_EQ(b.interval_ms, protocol::kMinBeaconIntervalMs);
}

// A serialized Beacon message with the given fields, behind the magic (to build bad ones).
std::string Raw(const wire::Beacon& m) {
  return std::string("XRPMBCN1") + m.SerializeAsString();
}

TEST(Beacon, MalformedOversizedAndOutOfRangeBeaconsAreRefusedWithAReason) {
  wire::Beacon good;
  good.set_port(4510);
  good.set_interval_ms(1000);
  good.set_app("a.exe");
  struct Case {
    std::string name, datagram, reason;
  };
  wire::Beacon port0 = good, port_big = good, fast = good, bad_utf8 = good, long_name = good;
  port0.set_port(0);
  port_big.set_port(70000);
  fast.set_interval_ms(10);
  bad_utf8.set_app(std::string("x\xc0\x80", 3));  // an overlong NUL
  long_name.set_runtime(std::string(protocol::kMaxBeaconString + 1, 'r'));
  const std::string valid = Raw(good);
  const Case cases[] = {
      {"empty", "", "bad magic"},
      {"other magic", "XRPMBCN2" + valid.substr(8), "bad magic"},
      {"magic only cut", "XRPM", "bad magic"},
      {"oversized", valid + std::string(protocol::kMaxBeaconBytes, '\0'), "over the"},
      {"garbage after the magic", std::string("XRPMBCN1\xff\xff\xff\xff\xff", 13),
       "does not parse"},
      {"truncated message", valid.substr(0, valid.size() - 2), "does not parse"},
      {"port 0", Raw(port0), "bad port"},
      {"port over 65535", Raw(port_big), "bad port"},
      {"interval below the rate limit", Raw(fast), "out of range"},
      {"invalid UTF-8", Raw(bad_utf8), "UTF-8"},
      {"name over the limit", Raw(long_name), "longer than"},
  };
  for (const Case& c : cases) {
    protocol::BeaconInfo b;
    std::string why;
    EXPECT_FALSE(Decode(c.datagram, &b, &why)) << c.name;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.name << ": " << why;
  }
  protocol::BeaconInfo b;
  std::string why;
  EXPECT_TRUE(Decode(valid, &b, &why)) << why;
}

TEST(DeviceDiscovery, TheAddressIsTheSenderNeverAClaimAndBadDatagramsAreCounted) {
  client::DeviceDiscovery d;  // not started: OnDatagram as the listening thread calls it
  const int64_t now = client::DeviceDiscovery::NowMs();
  const std::string beacon = protocol::EncodeBeacon(Sample());
  d.OnDatagram(beacon.data(), beacon.size(), "192.0.2.7", now);
  d.OnDatagram(beacon.data(), beacon.size(), "192.0.2.7", now);  // the same device again
  const std::string junk = "hello";
  d.OnDatagram(junk.data(), junk.size(), "192.0.2.9", now);
  d.OnDatagram(beacon.data(), 4096, "192.0.2.9", now);  // truncated read of a huge datagram
  const auto devices = d.Devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].address, "192.0.2.7");
  EXPECT_EQ(devices[0].endpoint(), "192.0.2.7:4510");
  EXPECT_EQ(devices[0].beacons, 2u);
  EXPECT_TRUE(devices[0].beacon.token_required);
  const auto st = d.stats();
  EXPECT_EQ(st.datagrams, 4u);
  EXPECT_EQ(st.accepted, 2u);
  EXPECT_EQ(st.ignored, 2u);
  EXPECT_NE(st.last_ignored_reason.find("192.0.2.9"), std::string::npos);
}

TEST(DeviceDiscovery, WaitForReturnsWhenThePredicateHoldsOrTheTimeRunsOut) {
  client::DeviceDiscovery d;  // not started: OnDatagram as the listening thread calls it
  const std::string beacon = protocol::EncodeBeacon(Sample());
  d.OnDatagram(beacon.data(), beacon.size(), "192.0.2.7", client::DeviceDiscovery::NowMs());
  const auto at_least = [](size_t n) { return [n](const auto& devs) { return devs.size() >= n; }; };
  EXPECT_TRUE(d.WaitFor(at_least(1), 60000));  // holds already: no wait
  // Never holds: false once the time runs out (this path deadlocked on its own mutex; `xrpm
  // devices --count N` waits on it when fewer than N devices announce themselves).
  EXPECT_FALSE(d.WaitFor(at_least(2), 50));
}

TEST(DeviceDiscovery, AFloodOfFakeInstancesIsBoundedAndSilentDevicesExpire) {
  client::DeviceDiscovery d;
  const int64_t now = client::DeviceDiscovery::NowMs();
  protocol::BeaconInfo b = Sample();
  for (uint64_t i = 0; i < 3 * client::DeviceDiscovery::kMaxDevices; ++i) {
    b.instance = i;
    const std::string dg = protocol::EncodeBeacon(b);
    d.OnDatagram(dg.data(), dg.size(), "192.0.2.1", now);
  }
  EXPECT_EQ(d.Devices().size(), client::DeviceDiscovery::kMaxDevices);
  EXPECT_EQ(d.stats().ignored, 2 * client::DeviceDiscovery::kMaxDevices);

  // Beacons heard long ago (more than three intervals): expired, and their slots reusable.
  client::DeviceDiscovery old;
  for (uint64_t i = 0; i < client::DeviceDiscovery::kMaxDevices; ++i) {
    b.instance = i;
    const std::string dg = protocol::EncodeBeacon(b);
    old.OnDatagram(dg.data(), dg.size(), "192.0.2.1", now - 10 * 1000);
  }
  EXPECT_TRUE(old.Devices().empty());
  b.instance = 99999;
  const std::string dg = protocol::EncodeBeacon(b);
  old.OnDatagram(dg.data(), dg.size(), "192.0.2.2", now);
  ASSERT_EQ(old.Devices().size(), 1u);
  EXPECT_EQ(old.Devices()[0].address, "192.0.2.2");
}

}  // namespace
}  // namespace xrpm
