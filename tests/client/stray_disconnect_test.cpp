// ctest-labels: client threaded
// A host client whose connection attempt receives a stray ENet DISCONNECT: one the agent is
// still retransmitting to an earlier connection that had the same ephemeral port (a refused
// host it lingers on). A connecting ENet peer accepts it from anyone at the agent's address.
// The client must not report "the agent closed the connection: busy" for a connection the
// agent never saw; it starts again from a new socket. The "agent" here is a bare UDP socket on
// 127.0.0.1 that reads the client's CONNECT and answers with a hand-made DISCONNECT (ENet's
// wire layout, enet/protocol.h), so the test is exact and needs no timing luck.
#include <arpa/inet.h>
#include <enet/enet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "xrpm/client/host_client.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A UDP socket on 127.0.0.1, any free port.
struct UdpSocket {
  int fd = -1;
  uint16_t port = 0;
  UdpSocket() {
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    socklen_t n = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
  }
  ~UdpSocket() {
    if (fd >= 0) close(fd);
  }
  // The next datagram's sender port whose first command is not `skip_from` (0: any); 0 if none
  // arrives within timeout_ms.
  uint16_t ReceiveFromOtherThan(uint16_t skip_from, int timeout_ms) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (poll(&p, 1, static_cast<int>(left) + 1) <= 0) continue;
      char buf[2048];
      sockaddr_in from{};
      socklen_t n = sizeof from;
      if (recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &n) < 0) continue;
      const uint16_t port = ntohs(from.sin_port);
      if (port != skip_from) return port;
    }
    return 0;
  }
  // An ENet DISCONNECT (acknowledge flag, system channel) to peer 0 of the host at `to_port`,
  // carrying `data` as the agent's refusals do.
  void SendDisconnect(uint16_t to_port, uint32_t data) {
    unsigned char pkt[10];
    const uint16_t peer_id = htons(0);  // no sent-time flag: a 2-byte header
    std::memcpy(pkt, &peer_id, 2);
    pkt[2] = static_cast<unsigned char>(ENET_PROTOCOL_COMMAND_DISCONNECT) |
             static_cast<unsigned char>(ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE);
    pkt[3] = 0xFF;  // channel: system
    const uint16_t seq = htons(1);
    std::memcpy(pkt + 4, &seq, 2);
    const uint32_t d = htonl(data);
    std::memcpy(pkt + 6, &d, 4);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(to_port);
    sendto(fd, pkt, sizeof pkt, 0, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
};

TEST(StrayDisconnect, DuringConnectStartsAgainFromANewSocketInsteadOfFailing) {
  UdpSocket agent;
  ASSERT_GT(agent.port, 0);
  client::ClientOptions o;
  o.endpoint = "127.0.0.1:" + std::to_string(agent.port);
  o.connect_timeout_ms = 20000;  // ENet's own connect retries stay well inside it
  client::HostClient c(o);
  c.Connect();

  const uint16_t first = agent.ReceiveFromOtherThan(0, 10000);
  ASSERT_NE(first, 0) << "the client's CONNECT never arrived";
  agent.SendDisconnect(first, wire::BUSY);

  // The attempt starts again from another socket; the first one says nothing more.
  const uint16_t second = agent.ReceiveFromOtherThan(first, 10000);
  EXPECT_NE(second, 0) << "no new connection attempt; client says: " << c.last_error();
  EXPECT_EQ(c.state(), client::ConnectionState::kConnecting) << c.last_error();
  EXPECT_EQ(c.last_error().find("busy"), std::string::npos) << c.last_error();
  c.Disconnect();
}

}  // namespace
}  // namespace xrpm::testing
