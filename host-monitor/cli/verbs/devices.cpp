// `xrpm devices [--timeout S] [--count N] [--json]`: lists the devices that announce themselves on
// the local network (agents started with --announce: `xrpm-emulator --announce`, `xrpm-mono
// --announce`), as heard within S seconds, or as soon as N devices have been heard (a script
// waiting for its device does not sit out the whole window, and a slow machine only costs time).
// It only listens; connect with `xrpm capture --connect ADDR:PORT` (and --token when the device
// says one is required).
#include <chrono>
#include <cstdio>

#include "shared/common.h"
#include "shared/verb.h"
#include "xrpm/client/device_discovery.h"

namespace xrpm::cli {
namespace verb_devices {

struct Opts {
  double timeout_s = 3;
  size_t count = 0;  // 0: listen for the whole window
  bool json = false;
};

int Run(const Opts& o) {
  client::DeviceDiscovery d;
  std::string error;
  if (!d.Start(&error)) {
    std::fprintf(stderr, "xrpm devices: %s\n", error.c_str());
    return kExitBadInput;
  }
  // The listener runs on its own thread; this one waits out the listening window (woken early by
  // each accepted beacon when --count is given).
  const auto start = std::chrono::steady_clock::now();
  d.WaitFor([&o](const auto& devs) { return o.count > 0 && devs.size() >= o.count; },
            static_cast<uint32_t>(o.timeout_s * 1000));
  const double listened_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto devices = d.Devices();
  const auto stats = d.stats();
  d.Stop();
  if (o.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& dev : devices)
      list.push_back({{"app", dev.beacon.app},
                      {"address", dev.address},
                      {"port", dev.beacon.port},
                      {"token_required", dev.beacon.token_required},
                      {"runtime", dev.beacon.runtime},
                      {"platform", dev.beacon.platform},
                      {"agent", dev.beacon.agent},
                      {"protocol_version", dev.beacon.protocol_version},
                      {"beacons", dev.beacons}});
    PrintJson(
        {{"devices", list}, {"listened_s", listened_s}, {"ignored_datagrams", stats.ignored}});
    return kExitOk;
  }
  if (devices.empty()) {
    std::printf("No devices heard in %.1f s (start an agent with --announce on this network).\n",
                listened_s);
  } else {
    TextTable t({{"app"}, {"endpoint"}, {"token"}, {"runtime"}, {"platform"}, {"agent"}});
    for (const auto& dev : devices)
      t.AddRow({dev.beacon.app, dev.endpoint(), dev.beacon.token_required ? "required" : "-",
                dev.beacon.runtime, dev.beacon.platform, dev.beacon.agent});
    t.Print();
  }
  if (stats.ignored > 0)
    std::fprintf(stderr,
                 "xrpm devices: ignored %llu datagrams that were not valid beacons (last: %s)\n",
                 static_cast<unsigned long long>(stats.ignored), stats.last_ignored_reason.c_str());
  return kExitOk;
}

VerbRegistration reg{"devices", "List the devices announcing themselves on the local network",
                     [](CLI::App& cmd) -> VerbRun {
                       auto o = std::make_shared<Opts>();
                       cmd.add_option("--timeout", o->timeout_s, "Seconds to listen for beacons")
                           ->capture_default_str()
                           ->check(CLI::Range(0.1, 600.0));
                       cmd.add_option("--count", o->count,
                                      "Stop listening once this many devices have been heard")
                           ->check(CLI::Range(size_t{1}, client::DeviceDiscovery::kMaxDevices));
                       AddJsonFlag(cmd, o->json);
                       return [o] { return Run(*o); };
                     }};

}  // namespace verb_devices
}  // namespace xrpm::cli
