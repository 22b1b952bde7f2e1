// libFuzzer target: discovery beacons (protocol/beacon.h DecodeBeacon) and the host's listener
// (DeviceDiscovery::OnDatagram) on arbitrary datagrams.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. DecodeBeacon accepts it or refuses it with a reason; an accepted beacon has a port,
//      an interval within the rate limit and names within the limits;
//   2. an accepted beacon re-encodes to a datagram that decodes to the same fields (the encoder
//      never makes what the decoder refuses);
//   3. the listener counts it exactly once (accepted or ignored), lists a device only for an
//      accepted beacon, and lists it at the sender's address, whatever the beacon claims.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "xrpm/client/device_discovery.h"
#include "xrpm/protocol/beacon.h"

namespace {
void Check(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  protocol::BeaconInfo b;
  std::string why;
  const bool ok = protocol::DecodeBeacon(data, size, &b, &why);
  Check(ok == why.empty());
  if (ok) {
    Check(b.port != 0);
    Check(b.interval_ms >= protocol::kMinBeaconIntervalMs &&
          b.interval_ms <= protocol::kMaxBeaconIntervalMs);
    for (const std::string* s : {&b.agent, &b.app, &b.runtime, &b.platform})
      Check(s->size() <= protocol::kMaxBeaconString);
    const std::string again = protocol::EncodeBeacon(b);
    protocol::BeaconInfo c;
    std::string why2;
    Check(protocol::DecodeBeacon(again.data(), again.size(), &c, &why2));
    Check(c.app == b.app && c.agent == b.agent && c.runtime == b.runtime &&
          c.platform == b.platform && c.port == b.port && c.instance == b.instance &&
          c.token_required == b.token_required && c.interval_ms == b.interval_ms &&
          c.protocol_version == b.protocol_version);
  }
  client::DeviceDiscovery d;
  d.OnDatagram(data, size, "192.0.2.1", client::DeviceDiscovery::NowMs());
  const auto st = d.stats();
  Check(st.datagrams == 1 && st.accepted + st.ignored == 1);
  Check(st.accepted == (ok ? 1u : 0u));
  const auto devices = d.Devices();
  Check(devices.size() == st.accepted);
  for (const auto& dev : devices) Check(dev.address == "192.0.2.1" && dev.beacon.port == b.port);
  return 0;
}
