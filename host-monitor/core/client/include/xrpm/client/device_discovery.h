// DeviceDiscovery: the host's side of discovery. Listens for the beacons of agents started with
// --announce (UDP multicast, protocol/include/xrpm/protocol/beacon.h) and keeps the list of
// devices heard recently, for `xrpm devices` and the monitor's Connection panel. It only
// listens: it never sends anything and never connects (a user picks a device to connect to).
//
// Hardening: a datagram larger than a beacon, malformed, or with bad fields is ignored and
// counted (stats().ignored, with the last reason); the address of a device is always the
// datagram's source address, never a claim inside it; at most kMaxDevices are kept (a flood of
// fake instances cannot grow memory: once full, only devices already listed are refreshed,
// after expired ones are dropped). A device disappears from Devices() once silent for three of
// its intervals.
//
// Thread-safety: Start/Stop from one thread; Devices() and stats() from any thread. OnDatagram
// is what the listening thread calls (public for tests and the fuzz target).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "xrpm/protocol/beacon.h"

namespace xrpm::client {

struct DiscoveredDevice {
  std::string address;  // IPv4 source address of the beacons
  protocol::BeaconInfo beacon;
  uint64_t beacons = 0;       // beacons heard from it
  int64_t first_seen_ms = 0;  // host steady clock
  int64_t last_seen_ms = 0;
  std::string endpoint() const { return address + ":" + std::to_string(beacon.port); }
};

struct DiscoveryStats {
  uint64_t datagrams = 0;  // received
  uint64_t accepted = 0;   // well-formed beacons
  uint64_t ignored = 0;    // malformed, oversized, over the device limit
  std::string last_ignored_reason;
};

class DeviceDiscovery {
 public:
  static constexpr size_t kMaxDevices = 256;

  DeviceDiscovery() = default;
  ~DeviceDiscovery() { Stop(); }
  DeviceDiscovery(const DeviceDiscovery&) = delete;
  DeviceDiscovery& operator=(const DeviceDiscovery&) = delete;

  // Called on the listening thread when a device is heard for the first time (set before Start;
  // e.g. to wake a GUI).
  std::function<void()> on_new_device;

  // Binds the beacon port (shared with other listeners on this machine) and joins the group on
  // every IPv4 interface that is up. False with *error when no socket could listen.
  bool Start(std::string* error);
  void Stop();
  bool running() const { return thread_.joinable(); }

  // Devices heard within three of their intervals, sorted by app, address, port.
  std::vector<DiscoveredDevice> Devices() const;
  DiscoveryStats stats() const;
  // Blocks until `pred(Devices())` holds or timeout_ms passes (woken by every accepted beacon);
  // returns whether it held.
  template <typename Pred>
  bool WaitFor(Pred pred, uint32_t timeout_ms) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      if (pred(Devices())) return true;
      std::unique_lock<std::mutex> lock(mu_);
      if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
        lock.unlock();  // Devices() takes mu_
        return pred(Devices());
      }
    }
  }

  void OnDatagram(const void* data, size_t size, const std::string& from_address, int64_t now_ms);
  static int64_t NowMs();

 private:
  void Loop();
  bool Expired(const DiscoveredDevice& d, int64_t now_ms) const;

  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;  // an accepted beacon
  // Keyed by (source address, port, instance): a restarted agent is a new entry.
  std::map<std::tuple<std::string, uint16_t, uint64_t>, DiscoveredDevice> devices_;
  DiscoveryStats stats_;
};

}  // namespace xrpm::client
