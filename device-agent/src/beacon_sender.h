// BeaconSender: the agent's side of discovery (--announce). Sends a protocol/beacon.h datagram to
// the beacon multicast group with TTL 1 (it never leaves the local network segment) at most once
// per interval (>= kMinBeaconIntervalMs: the rate limit). When the agent is bound to one address
// the beacon goes out of that interface only (a loopback-bound agent announces on `lo`).
// Sending never blocks (MSG_DONTWAIT); a failed send is logged once and retried next interval.
//
// Thread-safety: one thread (the agent's network thread) calls MaybeSend; Open/Close from the
// thread that owns the agent, before and after that thread runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "xrpm/protocol/beacon.h"

namespace xrpm {
namespace agent {

class BeaconSender {
 public:
  BeaconSender() = default;
  ~BeaconSender() { Close(); }
  BeaconSender(const BeaconSender&) = delete;
  BeaconSender& operator=(const BeaconSender&) = delete;

  // `interface_address`: the agent's bind address ("0.0.0.0": the system's default interface).
  bool Open(const protocol::BeaconInfo& info, const std::string& interface_address,
            std::string* error);
  void Close();
  // Sends a beacon if the interval has passed since the last one; returns whether it sent.
  bool MaybeSend(int64_t now_ns, const std::function<void(const std::string&)>& log);
  uint64_t sent() const { return sent_; }

 private:
  int fd_ = -1;
  std::string datagram_;
  int64_t interval_ns_ = 0;
  int64_t next_ns_ = 0;
  uint64_t sent_ = 0;
  bool error_logged_ = false;
};

}  // namespace agent
}  // namespace xrpm
