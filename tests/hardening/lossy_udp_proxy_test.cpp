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
  // Every receive is bounded. A receive that must succeed only waits this long when the relay
  // is broken, so the default is generous (a loaded machine may stall the relay's thread).
  explicit Udp(uint32_t receive_timeout_ms = 10000) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    const int rcvbuf = 1 << 20;  // a burst of 200 datagrams fits (the relay decides the losses)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    SetReceiveTimeout(receive_timeout_ms);
  }
  ~Udp() { close(fd); }
  void SetReceiveTimeout(uint32_t ms) const {
    timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
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
  Udp sock_{100};  // a short timeout: the loop sees stop_ soon after the test ends
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
  // Every datagram is either dropped on one of its two hops or comes back (the echo answers all
  // it gets): receive until back + dropped accounts for all 200. The relay may drop the last
  // ones on their way back while a receive waits, so each wait is short and the count is read
  // again after it; the whole is bounded.
  int back = 0;
  std::string got;
  client.SetReceiveTimeout(50);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (back + proxy.stats().dropped < 200u) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "back " << back << ", dropped " << proxy.stats().dropped;
    if (client.Receive(&got)) ++back;
  }
  EXPECT_EQ(back + proxy.stats().dropped, 200u);
  // Nothing more arrives: no datagram was relayed twice.
  client.SetReceiveTimeout(200);
  EXPECT_FALSE(client.Receive(&got));
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
