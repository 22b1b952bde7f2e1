#include "xrpm/client/device_discovery.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace xrpm::client {

int64_t DeviceDiscovery::NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// Joins the beacon group on the interface the routing table picks and on every IPv4 interface
// that is up; returns how many joins succeeded.
int JoinGroup(int fd) {
  in_addr group{};
  ::inet_pton(AF_INET, protocol::kBeaconGroup, &group);
  int joined = 0;
  ip_mreqn any{};
  any.imr_multiaddr = group;
  if (::setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &any, sizeof any) == 0) ++joined;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return joined;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    ip_mreqn m{};
    m.imr_multiaddr = group;
    m.imr_ifindex = static_cast<int>(::if_nametoindex(i->ifa_name));
    if (m.imr_ifindex == 0) continue;
    if (::setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) == 0) ++joined;
  }
  ::freeifaddrs(list);
  return joined;
}

}  // namespace

bool DeviceDiscovery::Start(std::string* error) {
  Stop();
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    *error = std::string("discovery: cannot create a UDP socket: ") + std::strerror(errno);
    return false;
  }
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(protocol::kBeaconPort);
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "discovery: cannot listen on UDP port " + std::to_string(protocol::kBeaconPort) +
             ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  if (JoinGroup(fd_) == 0) {
    *error = std::string("discovery: cannot join the multicast group ") + protocol::kBeaconGroup +
             " on any interface (no multicast route?)";
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  return true;
}

void DeviceDiscovery::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void DeviceDiscovery::Loop() {
  // One byte more than a beacon may have, so an oversized datagram is seen as such (MSG_TRUNC
  // reports its real length).
  char buf[protocol::kMaxBeaconBytes + 1];
  while (!stop_.load(std::memory_order_acquire)) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    sockaddr_in from{};
    socklen_t from_len = sizeof from;
    const ssize_t n = ::recvfrom(fd_, buf, sizeof buf, MSG_TRUNC | MSG_DONTWAIT,
                                 reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) continue;
    char text[INET_ADDRSTRLEN] = "?";
    ::inet_ntop(AF_INET, &from.sin_addr, text, sizeof text);
    // A truncated read hands OnDatagram the real size, which it refuses as oversized.
    OnDatagram(buf, static_cast<size_t>(n), text, NowMs());
  }
}

bool DeviceDiscovery::Expired(const DiscoveredDevice& d, int64_t now_ms) const {
  return now_ms - d.last_seen_ms > 3 * int64_t{d.beacon.interval_ms};
}

void DeviceDiscovery::OnDatagram(const void* data, size_t size, const std::string& from_address,
                                 int64_t now_ms) {
  protocol::BeaconInfo b;
  std::string why;
  // DecodeBeacon refuses a size over kMaxBeaconBytes before it reads a byte, so the real length
  // of a truncated datagram (larger than the buffer behind `data`) is safe to pass.
  const bool ok = protocol::DecodeBeacon(data, size, &b, &why);
  std::unique_lock<std::mutex> lock(mu_);
  ++stats_.datagrams;
  if (!ok) {
    ++stats_.ignored;
    stats_.last_ignored_reason = from_address + ": " + why;
    return;
  }
  const auto key = std::make_tuple(from_address, b.port, b.instance);
  auto it = devices_.find(key);
  if (it == devices_.end()) {
    if (devices_.size() >= kMaxDevices) {
      for (auto e = devices_.begin(); e != devices_.end();)
        e = Expired(e->second, now_ms) ? devices_.erase(e) : std::next(e);
    }
    if (devices_.size() >= kMaxDevices) {
      ++stats_.ignored;
      stats_.last_ignored_reason =
          from_address + ": over the limit of " + std::to_string(kMaxDevices) + " devices";
      return;
    }
    it = devices_.emplace(key, DiscoveredDevice{}).first;
    it->second.address = from_address;
    it->second.first_seen_ms = now_ms;
  }
  ++stats_.accepted;
  const bool is_new = it->second.beacons == 0;
  it->second.beacon = std::move(b);
  it->second.last_seen_ms = now_ms;
  ++it->second.beacons;
  lock.unlock();
  changed_.notify_all();
  if (is_new && on_new_device) on_new_device();
}

std::vector<DiscoveredDevice> DeviceDiscovery::Devices() const {
  const int64_t now = NowMs();
  std::vector<DiscoveredDevice> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, d] : devices_)
      if (!Expired(d, now)) out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const DiscoveredDevice& a, const DiscoveredDevice& b) {
    return std::tie(a.beacon.app, a.address, a.beacon.port) <
           std::tie(b.beacon.app, b.address, b.beacon.port);
  });
  return out;
}

DiscoveryStats DeviceDiscovery::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace xrpm::client
