#include "beacon_sender.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xrpm {
namespace agent {

bool BeaconSender::Open(const protocol::BeaconInfo& info, const std::string& interface_address,
                        std::string* error) {
  Close();
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    *error = std::string("announce: cannot create a UDP socket: ") + std::strerror(errno);
    return false;
  }
  const unsigned char ttl = 1, loop = 1;
  ::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl);
  ::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop);
  in_addr ifaddr{};
  if (::inet_pton(AF_INET, interface_address.c_str(), &ifaddr) == 1 &&
      ifaddr.s_addr != htonl(INADDR_ANY) &&
      ::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, sizeof ifaddr) != 0) {
    *error =
        "announce: cannot send multicast from " + interface_address + ": " + std::strerror(errno);
    Close();
    return false;
  }
  datagram_ = protocol::EncodeBeacon(info);
  interval_ns_ = int64_t{std::clamp(info.interval_ms, protocol::kMinBeaconIntervalMs,
                                    protocol::kMaxBeaconIntervalMs)} *
                 1000000;
  next_ns_ = 0;  // the first beacon goes out at once
  return true;
}

void BeaconSender::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool BeaconSender::MaybeSend(int64_t now_ns, const std::function<void(const std::string&)>& log) {
  if (fd_ < 0 || now_ns < next_ns_) return false;
  next_ns_ = now_ns + interval_ns_;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(protocol::kBeaconPort);
  ::inet_pton(AF_INET, protocol::kBeaconGroup, &to.sin_addr);
  const ssize_t n = ::sendto(fd_, datagram_.data(), datagram_.size(), MSG_DONTWAIT,
                             reinterpret_cast<const sockaddr*>(&to), sizeof to);
  if (n == static_cast<ssize_t>(datagram_.size())) {
    ++sent_;
    error_logged_ = false;
    return true;
  }
  if (!error_logged_ && log) {
    log(std::string("announce: beacon not sent: ") + (n < 0 ? std::strerror(errno) : "short send") +
        " (will retry)");
    error_logged_ = true;
  }
  return false;
}

}  // namespace agent
}  // namespace xrpm
