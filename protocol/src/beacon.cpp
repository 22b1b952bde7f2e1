#include "xrpm/protocol/beacon.h"

#include <algorithm>
#include <cstring>

#include "xrpm/protocol/beacon.pb.h"
#include "xrpm/protocol/utf8.h"

namespace xrpm {
namespace protocol {

std::string EncodeBeacon(const BeaconInfo& info) {
  wire::Beacon b;
  b.set_protocol_version(info.protocol_version);
  b.set_agent(SanitizeUtf8(info.agent.c_str(), kMaxBeaconString));
  b.set_app(SanitizeUtf8(info.app.c_str(), kMaxBeaconString));
  b.set_runtime(SanitizeUtf8(info.runtime.c_str(), kMaxBeaconString));
  b.set_platform(SanitizeUtf8(info.platform.c_str(), kMaxBeaconString));
  b.set_port(info.port);
  b.set_token_required(info.token_required);
  b.set_instance(info.instance);
  b.set_interval_ms(std::clamp(info.interval_ms, kMinBeaconIntervalMs, kMaxBeaconIntervalMs));
  // 4 strings of at most 96 bytes and 6 small fields: well under kMaxBeaconBytes.
  return std::string(kBeaconMagic, kBeaconMagicBytes) + b.SerializeAsString();
}

bool DecodeBeacon(const void* data, size_t size, BeaconInfo* out, std::string* error) {
  auto fail = [&](std::string why) {
    *error = std::move(why);
    return false;
  };
  if (size > kMaxBeaconBytes)
    return fail(std::to_string(size) + " bytes, over the " + std::to_string(kMaxBeaconBytes) +
                "-byte limit");
  if (size < kBeaconMagicBytes || std::memcmp(data, kBeaconMagic, kBeaconMagicBytes) != 0)
    return fail("not an xrpm beacon (bad magic)");
  wire::Beacon b;
  if (!b.ParseFromArray(static_cast<const char*>(data) + kBeaconMagicBytes,
                        static_cast<int>(size - kBeaconMagicBytes)))
    return fail("malformed beacon (does not parse)");
  if (b.port() == 0 || b.port() > 65535) return fail("bad port " + std::to_string(b.port()));
  if (b.interval_ms() < kMinBeaconIntervalMs || b.interval_ms() > kMaxBeaconIntervalMs)
    return fail("interval " + std::to_string(b.interval_ms()) + " ms out of range");
  for (const std::string* s : {&b.agent(), &b.app(), &b.runtime(), &b.platform()}) {
    if (s->size() > kMaxBeaconString) return fail("a name longer than the limit");
    if (!IsValidUtf8(*s)) return fail("a name that is not valid UTF-8");
  }
  out->protocol_version = b.protocol_version();
  out->agent = b.agent();
  out->app = b.app();
  out->runtime = b.runtime();
  out->platform = b.platform();
  out->port = static_cast<uint16_t>(b.port());
  out->token_required = b.token_required();
  out->instance = b.instance();
  out->interval_ms = b.interval_ms();
  return true;
}

}  // namespace protocol
}  // namespace xrpm
