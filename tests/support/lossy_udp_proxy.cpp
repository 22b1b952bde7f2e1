// LossyUdpProxy: see lossy_udp_proxy.h.
#include "lossy_udp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <vector>

namespace xrpm::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxDatagram = 65536;
constexpr size_t kMaxPendingBytes = size_t{64} << 20;  // beyond: dropped (bounded memory)

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  return a;
}

int BoundSocket(std::string* error) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  // A burst must not overflow the kernel's queue while the relay thread waits for a core: the
  // only losses on this link are the ones the relay decides (the kernel caps this at rmem_max).
  const int rcvbuf = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  const sockaddr_in a = Loopback(0);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    *error = std::string("bind 127.0.0.1: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

struct Pending {
  Clock::time_point due;
  uint64_t seq;
  int fd;
  sockaddr_in to;
  std::vector<char> data;
  bool operator>(const Pending& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

}  // namespace

LossyUdpProxy::LossyUdpProxy(uint16_t target_port, LossyLinkOptions options)
    : target_port_(target_port), opt_(options) {}

LossyUdpProxy::~LossyUdpProxy() {
  Stop();
}

bool LossyUdpProxy::Start(std::string* error) {
  listen_fd_ = BoundSocket(error);
  if (listen_fd_ < 0) return false;
  sockaddr_in a{};
  socklen_t len = sizeof a;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    *error = std::string("eventfd: ") + std::strerror(errno);
    return false;
  }
  thread_ = std::thread([this] { Run(); });
  return true;
}

void LossyUdpProxy::Stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

void LossyUdpProxy::Run() {
  std::mt19937_64 rng(opt_.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<uint32_t> jitter(0, opt_.jitter_ms);
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> queue;
  size_t pending_bytes = 0;
  uint64_t seq = 0;
  std::map<uint64_t, int> upstream;      // client (addr << 16 | port) -> its upstream socket
  std::map<int, sockaddr_in> client_of;  // upstream socket -> client address
  const sockaddr_in target = Loopback(target_port_);
  std::vector<char> buf(kMaxDatagram);

  auto schedule = [&](int fd, const sockaddr_in& to, const char* data, size_t n) {
    if (coin(rng) < opt_.loss || pending_bytes + n > kMaxPendingBytes) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const auto delay =
        std::chrono::milliseconds(opt_.delay_ms + (opt_.jitter_ms ? jitter(rng) : 0));
    queue.push(Pending{Clock::now() + delay, seq++, fd, to, std::vector<char>(data, data + n)});
    pending_bytes += n;
  };

  for (;;) {
    std::vector<pollfd> fds = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& [fd, addr] : client_of) fds.push_back({fd, POLLIN, 0});
    int timeout = -1;
    if (!queue.empty()) {
      const auto wait =
          std::chrono::ceil<std::chrono::milliseconds>(queue.top().due - Clock::now());
      timeout = static_cast<int>(std::max<int64_t>(0, wait.count()));
    }
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if (fds[0].revents) break;  // Stop()

    if (fds[1].revents & POLLIN) {
      for (;;) {
        sockaddr_in from{};
        socklen_t len = sizeof from;
        const ssize_t n = recvfrom(listen_fd_, buf.data(), buf.size(), 0,
                                   reinterpret_cast<sockaddr*>(&from), &len);
        if (n < 0) break;
        const uint64_t key = uint64_t{ntohl(from.sin_addr.s_addr)} << 16 | ntohs(from.sin_port);
        auto it = upstream.find(key);
        if (it == upstream.end()) {
          std::string error;
          const int fd = BoundSocket(&error);
          if (fd < 0) continue;
          it = upstream.emplace(key, fd).first;
          client_of[fd] = from;
        }
        schedule(it->second, target, buf.data(), static_cast<size_t>(n));
      }
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const sockaddr_in client = client_of[fds[i].fd];
      for (;;) {
        const ssize_t n = recv(fds[i].fd, buf.data(), buf.size(), 0);
        if (n < 0) break;
        schedule(listen_fd_, client, buf.data(), static_cast<size_t>(n));
      }
    }
    const auto now = Clock::now();
    while (!queue.empty() && queue.top().due <= now) {
      const Pending& p = queue.top();
      // Counted before it leaves, so a receiver that got it also sees it counted.
      forwarded_.fetch_add(1, std::memory_order_relaxed);
      sendto(p.fd, p.data.data(), p.data.size(), 0, reinterpret_cast<const sockaddr*>(&p.to),
             sizeof p.to);
      pending_bytes -= p.data.size();
      queue.pop();
    }
  }
  for (const auto& [fd, addr] : client_of) close(fd);
}

}  // namespace xrpm::testing
