// TriggerFeed: feeds CaptureTriggers (analysis/capture_triggers.h) from a live HostClient: the
// level of the catalog's Managed Bytes In Use After GC (protocol::NetcfCounter, found by its
// category and name) of each new counter sample (for --on-growth) and the game's capture
// requests. Frame rows and markers come from whoever reads the frames
// subscription (RunAutoCapture takes them itself; the monitor's Timeline does it for the
// AutoCaptureBoard), since a subscription has one consumer.
//
// Algorithm: O(new samples + new requests) per call.
//
// Thread-safety: one owner thread; the HostClient is thread-safe.
#pragma once

#include <cstdint>

#include "xrpm/analysis/capture_triggers.h"
#include "xrpm/client/host_client.h"

namespace xrpm::app {

class TriggerFeed {
 public:
  // A new connection: its counters are read from the start.
  void Reset() {
    seq_ = 0;
    in_use_ = -1;
  }
  void FromClient(client::HostClient& c, analysis::CaptureTriggers& t);

 private:
  uint64_t seq_ = 0;
  int in_use_ = -1;  // the counter's index, once its descriptor arrived
};

}  // namespace xrpm::app
