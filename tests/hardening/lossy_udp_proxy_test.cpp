// The loss-injecting UDP relay the lossy-link capture tests run through: it relays both ways,
// drops what it is told to, holds datagrams for the delay and serves several clients apart.
#include "lossy_udp_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace xrpm::testing {
namespace {

// A UDP socket on 127.0.0.1 with a receive timeout, closed on destruction.
struct Udp {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  Udp() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    timeval tv{0, 300000};  // bounds every receive: 300 ms
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Udp() { close(fd); }
  uint16_t port() const {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    return ntohs(a.sin_port);
  }
  void SendTo(uint16_t port, const std::string& s) const {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    sendto(fd, s.data(), s.size(), 0, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  // Receives one datagram (false on timeout); *from_port is the sender's port.
  bool Receive(std::string* s, uint16_t* from_port = nullptr) const {
    char buf[2048];
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n = recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return false;
    s->assign(buf, static_cast<size_t>(n));
    if (from_port) *from_port = ntohs(from.sin_port);
    return true;
  }
};

// Echoes every datagram back to its sender until `stop` is set.
class Echo {
 public:
  Echo() : thread_([this] { Run(); }) {}
  ~Echo() {
    stop_ = true;
    thread_.join();
  }
  uint16_t port() const { return sock_.port(); }

 private:
  void Run() {
    while (!stop_) {
      char buf[2048];
      sockaddr_in from{};
      socklen_t len = sizeof from;
      const ssize_t n =
          recvfrom(sock_.fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
      if (n >= 0)
        sendto(sock_.fd, buf, static_cast<size_t>(n), 0, reinterpret_cast<sockaddr*>(&from), len);
    }
  }
  Udp sock_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(LossyUdpProxy, RelaysBothWaysWithoutLoss) {
  Echo echo;
  LossyUdpProxy proxy(echo.port(), {0.0, 0, 0, 1});
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  Udp client;
  for (int i = 0; i < 50; ++i) {
    const std::string msg = "datagram " + std::to_string(i);
    client.SendTo(proxy.port(), msg);
    std::string got;
    uint16_t from = 0;
    ASSERT_TRUE(client.Receive(&got, &from)) << i;
    EXPECT_EQ(got, msg);
    EXPECT_EQ(from, proxy.port());  // replies come from the proxy, not the target
  }
  EXPECT_EQ(proxy.stats().forwarded, 100u);
  EXPECT_EQ(proxy.stats().dropped, 0u);
}

TEST(LossyUdpProxy, DropsAboutTheRequestedShare) {
  Echo echo;
  LossyUdpProxy proxy(echo.port(), {0.5, 0, 0, 7});
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  Udp client;
  for (int i = 0; i < 200; ++i) client.SendTo(proxy.port(), "x");
  int back = 0;
  std::string got;
  while (client.Receive(&got)) ++back;  // ends 300 ms after the last echo
  // Each round trip survives with probability 1/4: P(back == 0 or back > 120) is negligible.
  EXPECT_GT(back, 10);
  EXPECT_LT(back, 120);
  EXPECT_GT(proxy.stats().dropped, 50u);
}

TEST(LossyUdpProxy, HoldsDatagramsForTheDelay) {
  Echo echo;
  LossyUdpProxy proxy(echo.port(), {0.0, 40, 0, 1});
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  Udp client;
  const auto t0 = std::chrono::steady_clock::now();
  client.SendTo(proxy.port(), "ping");
  std::string got;
  ASSERT_TRUE(client.Receive(&got));
  // Two hops of 40 ms each: the echo cannot come back sooner (a lower bound, not a timing target).
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(80));
}

TEST(LossyUdpProxy, KeepsClientsApart) {
  Echo echo;
  LossyUdpProxy proxy(echo.port(), {0.0, 0, 0, 1});
  std::string error;
  ASSERT_TRUE(proxy.Start(&error)) << error;
  Udp a, b;
  a.SendTo(proxy.port(), "from a");
  b.SendTo(proxy.port(), "from b");
  std::string got_a, got_b;
  ASSERT_TRUE(a.Receive(&got_a));
  ASSERT_TRUE(b.Receive(&got_b));
  EXPECT_EQ(got_a, "from a");
  EXPECT_EQ(got_b, "from b");
}

}  // namespace
}  // namespace xrpm::testing
