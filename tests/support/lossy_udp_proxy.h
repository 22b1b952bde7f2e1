// LossyUdpProxy: a UDP relay on 127.0.0.1 that drops and delays datagrams, to test the protocol
// over a lossy, slow link without root (no tc/netem, no network namespace).
//
// Clients send to port(); each client address gets its own upstream socket to 127.0.0.1:target,
// so the upstream sees one peer per client, as with a real network. Each datagram, in either
// direction, is dropped with probability `loss`, otherwise delivered `delay_ms` after it arrived
// (plus up to `jitter_ms`, uniformly; datagrams may then overtake each other, as on the
// Internet). Randomness comes from a seeded generator, so a failing run can be replayed.
//
// Algorithm: one thread, poll() over the sockets plus an eventfd for Stop(); pending datagrams
// wait in a min-heap ordered by delivery time. O(log n) per datagram.
//
// Thread-safety: Start/Stop from one thread; stats() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace xrpm::testing {

struct LossyLinkOptions {
  double loss = 0.05;      // per datagram, each direction
  uint32_t delay_ms = 25;  // each direction
  uint32_t jitter_ms = 0;  // extra delay, uniform in [0, jitter_ms]
  uint64_t seed = 1;
};

struct LossyLinkStats {
  uint64_t forwarded = 0;
  uint64_t dropped = 0;
};

class LossyUdpProxy {
 public:
  LossyUdpProxy(uint16_t target_port, LossyLinkOptions options);
  ~LossyUdpProxy();  // Stop()
  LossyUdpProxy(const LossyUdpProxy&) = delete;
  LossyUdpProxy& operator=(const LossyUdpProxy&) = delete;

  // Binds 127.0.0.1:0 and starts the relay thread. False (with *error) on socket errors.
  bool Start(std::string* error);
  void Stop();
  uint16_t port() const { return port_; }
  LossyLinkStats stats() const {
    return {forwarded_.load(std::memory_order_relaxed), dropped_.load(std::memory_order_relaxed)};
  }

 private:
  void Run();

  const uint16_t target_port_;
  const LossyLinkOptions opt_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<uint64_t> forwarded_{0}, dropped_{0};
};

}  // namespace xrpm::testing
