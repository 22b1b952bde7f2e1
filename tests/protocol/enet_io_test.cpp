// ENet settings shared by the agent and the host (enet_io.h): a connection between two hosts
// configured for loopback carries the loopback MTU in both directions, so a capture's batches
// travel in 4096-byte datagrams, not ENet's default 1400.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/enet_io.h"

namespace xrpm::protocol {
namespace {

struct HostDeleter {
  void operator()(ENetHost* h) const { enet_host_destroy(h); }
};
using HostPtr = std::unique_ptr<ENetHost, HostDeleter>;

// Services both hosts until each has seen its CONNECT (bounded: only costs time on failure).
bool ServiceUntilConnected(ENetHost* a, ENetHost* b, ENetPeer** a_peer) {
  bool a_up = false, b_up = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(a_up && b_up) && std::chrono::steady_clock::now() < deadline) {
    ENetEvent ev;
    while (enet_host_service(a, &ev, 1) > 0)
      if (ev.type == ENET_EVENT_TYPE_CONNECT) {
        a_up = true;
        *a_peer = ev.peer;
      }
    while (enet_host_service(b, &ev, 1) > 0)
      if (ev.type == ENET_EVENT_TYPE_CONNECT) b_up = true;
  }
  return a_up && b_up;
}

TEST(EnetIo, ALoopbackConnectionUsesTheLoopbackMtuBothWays) {
  ASSERT_TRUE(InitEnet());
  ENetAddress addr;
  std::string error;
  ASSERT_TRUE(ResolveEndpoint({"127.0.0.1", 0}, &addr, &error)) << error;
  // The agent's side: a listening host (any free port).
  HostPtr agent(enet_host_create(&addr, 1, kChannelCount, 0, 0));
  ASSERT_TRUE(agent);
  ConfigureHost(agent.get(), true);
  ENetAddress bound;
  ASSERT_EQ(enet_socket_get_address(agent->socket, &bound), 0);
  addr.port = bound.port;
  // The host's side: configured before it connects, as HostClient does.
  HostPtr host(enet_host_create(nullptr, 1, kChannelCount, 0, 0));
  ASSERT_TRUE(host);
  ConfigureHost(host.get(), IsLoopback(addr));
  ENetPeer* to_agent = enet_host_connect(host.get(), &addr, kChannelCount, 0);
  ASSERT_TRUE(to_agent);
  ENetPeer* to_host = nullptr;
  ASSERT_TRUE(ServiceUntilConnected(agent.get(), host.get(), &to_host));
  ASSERT_TRUE(to_host);
  EXPECT_EQ(to_host->mtu, static_cast<enet_uint32>(ENET_PROTOCOL_MAXIMUM_MTU))
      << "the agent sends its batches in datagrams of this size";
  EXPECT_EQ(to_agent->mtu, static_cast<enet_uint32>(ENET_PROTOCOL_MAXIMUM_MTU));
}

TEST(EnetIo, AHostOffTheLoopbackKeepsEnetsDefaultMtu) {
  ASSERT_TRUE(InitEnet());
  HostPtr host(enet_host_create(nullptr, 2, kChannelCount, 0, 0));
  ASSERT_TRUE(host);
  ConfigureHost(host.get(), false);
  EXPECT_EQ(host->mtu, static_cast<enet_uint32>(ENET_HOST_DEFAULT_MTU));
  for (size_t i = 0; i < host->peerCount; ++i)
    EXPECT_EQ(host->peers[i].mtu, static_cast<enet_uint32>(ENET_HOST_DEFAULT_MTU));
}

}  // namespace
}  // namespace xrpm::protocol
