// Discovery beacons: the datagram an agent announces itself with on the local network (UDP
// multicast, TTL 1), and its strict parser, shared by the agent (encoder) and the host (decoder).
//
// A beacon is the 8-byte magic "XRPMBCN1" followed by a serialized wire::Beacon (beacon.proto),
// at most kMaxBeaconBytes in all. It carries the app, runtime, platform, agent version, protocol
// version, port and whether a token is required: never the token nor anything derived from it.
// The address a host connects to is the datagram's source address, never a claim inside it, so a
// spoofed beacon can at worst list a device that is not there (hosts never connect on their own).
//
// DecodeBeacon refuses (with a reason) anything that is not exactly a well-formed beacon: wrong
// magic, oversized, not parseable, port 0, strings too long or not valid UTF-8, an interval
// outside [kMinBeaconIntervalMs, kMaxBeaconIntervalMs]. It allocates at most the datagram's size.
//
// Plain C++17, protobuf-lite. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm {
namespace protocol {

// Organisation-local multicast group (RFC 2365) and port of the beacons.
constexpr const char* kBeaconGroup = "239.255.45.10";
constexpr uint16_t kBeaconPort = 4509;
constexpr size_t kBeaconMagicBytes = 8;
constexpr const char kBeaconMagic[kBeaconMagicBytes + 1] = "XRPMBCN1";
constexpr size_t kMaxBeaconBytes = 512;
constexpr size_t kMaxBeaconString = 96;  // app, runtime, platform, agent: longer ones are cut
constexpr uint32_t kMinBeaconIntervalMs = 500;  // the rate limit: at most 2 beacons a second
constexpr uint32_t kMaxBeaconIntervalMs = 60000;
constexpr uint32_t kDefaultBeaconIntervalMs = 1000;

struct BeaconInfo {
  uint32_t protocol_version = 0;
  std::string agent, app, runtime, platform;
  uint16_t port = 0;
  bool token_required = false;
  uint64_t instance = 0;
  uint32_t interval_ms = kDefaultBeaconIntervalMs;
};

// The datagram for `info` (strings cut to kMaxBeaconString at a UTF-8 boundary and made valid
// UTF-8; the interval clamped into range). Never larger than kMaxBeaconBytes.
std::string EncodeBeacon(const BeaconInfo& info);

// Parses one received datagram. False with *error ("bad magic", "12 bytes over the limit", ...)
// for anything but a well-formed beacon.
bool DecodeBeacon(const void* data, size_t size, BeaconInfo* out, std::string* error);

}  // namespace protocol
}  // namespace xrpm
