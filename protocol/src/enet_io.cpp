#include "xrpm/protocol/enet_io.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <mutex>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace protocol {

bool InitEnet() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = enet_initialize() == 0; });
  return ok;
}

bool ParseEndpoint(const std::string& text, uint16_t default_port, Endpoint* out,
                   std::string* error) {
  std::string host = text;
  uint16_t port = default_port;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    host = text.substr(0, colon);
    const std::string p = text.substr(colon + 1);
    char* end = nullptr;
    const unsigned long v = p.empty() ? 70000 : std::strtoul(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v > 65535) {
      if (error) *error = "bad port in '" + text + "': expected 0-65535, found '" + p + "'";
      return false;
    }
    port = static_cast<uint16_t>(v);
  }
  if (host.empty() || host.size() > kMaxShortString) {
    if (error) *error = "bad address '" + text + "': expected HOST:PORT";
    return false;
  }
  out->host = host;
  out->port = port;
  return true;
}

bool ResolveEndpoint(const Endpoint& ep, ENetAddress* out, std::string* error) {
  if (!InitEnet()) {
    if (error) *error = "ENet failed to initialise";
    return false;
  }
  out->port = ep.port;
  if (enet_address_set_host(out, ep.host.c_str()) != 0) {
    if (error) *error = "cannot resolve host '" + ep.host + "'";
    return false;
  }
  return true;
}

bool IsLoopback(const ENetAddress& a) {
  return (ntohl(a.host) >> 24) == 127;
}

std::string FormatAddress(const ENetAddress& a) {
  char ip[64] = "?";
  enet_address_get_host_ip(&a, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(a.port);
}

void SendAccounting::Add(size_t n) {
  const size_t now = unacked_.fetch_add(n, std::memory_order_acq_rel) + n;
  size_t p = peak_.load(std::memory_order_relaxed);
  while (now > p && !peak_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
}

namespace {

struct OwnedBytes {
  std::string bytes;
  SendAccounting* acct;
  SendAccounting* release_on_free;
  size_t counted;
};

void FreeOwned(ENetPacket* packet) {
  auto* o = static_cast<OwnedBytes*>(packet->userData);
  if (o->acct) o->acct->Release(o->counted);
  if (o->release_on_free) o->release_on_free->Release(o->counted);
  delete o;
}

}  // namespace

bool SendOwned(ENetPeer* peer, uint8_t channel, std::string bytes, bool reliable,
               SendAccounting* acct, SendAccounting* release_on_free) {
  const size_t counted = bytes.capacity();  // a move keeps the buffer, and so the capacity
  auto* o = new OwnedBytes{std::move(bytes), acct, release_on_free, counted};
  ENetPacket* packet =
      enet_packet_create(o->bytes.data(), o->bytes.size(),
                         ENET_PACKET_FLAG_NO_ALLOCATE | (reliable ? ENET_PACKET_FLAG_RELIABLE : 0));
  if (!packet) {
    delete o;
    return false;
  }
  packet->userData = o;
  packet->freeCallback = &FreeOwned;
  if (acct) acct->Add(o->counted);
  if (enet_peer_send(peer, channel, packet) != 0) {
    enet_packet_destroy(packet);  // not queued: referenceCount is still 0
    return false;
  }
  return true;
}

bool SendEnvelope(ENetPeer* peer, uint8_t channel, const wire::Envelope& env, bool reliable,
                  size_t max_bytes, SendAccounting* acct) {
  std::string bytes;
  if (!SerializeEnvelope(env, max_bytes, &bytes)) return false;
  return SendOwned(peer, channel, std::move(bytes), reliable, acct);
}

void ConfigureHost(ENetHost* host, bool loopback) {
  host->maximumPacketSize = kEnetMaxPacketBytes;
  host->maximumWaitingData = kEnetMaxWaitingBytes;
  if (loopback) {
    host->mtu = ENET_PROTOCOL_MAXIMUM_MTU;
    // enet_host_create gave each peer slot the default MTU (enet_peer_reset copies host->mtu),
    // and a connection started from a slot (enet_host_connect) offers the slot's MTU, which the
    // agent then uses for everything it sends: without this the host offered 1400 and a
    // capture went over loopback in 1400-byte datagrams, three times as many as needed.
    for (size_t i = 0; i < host->peerCount; ++i)
      if (host->peers[i].state == ENET_PEER_STATE_DISCONNECTED) host->peers[i].mtu = host->mtu;
  }
}

void ConfigurePeer(ENetPeer* peer, uint32_t timeout_ms) {
  enet_peer_timeout(peer, ENET_PEER_TIMEOUT_LIMIT, timeout_ms, timeout_ms);
  enet_peer_ping_interval(peer, 250);
}

}  // namespace protocol
}  // namespace xrpm
