#include "xrpm/app/trigger_feed.h"

#include "xrpm/protocol/netcf_counters.h"

namespace xrpm::app {

void TriggerFeed::FromClient(client::HostClient& c, analysis::CaptureTriggers& t) {
  if (t.options().NeedsCounters()) {
    if (in_use_ < 0) in_use_ = c.counters().Find(protocol::NetcfCounter::kManagedBytesInUseAfterGc);
    if (in_use_ >= 0)
      for (const auto& row : c.counters().Since(seq_)) {
        seq_ = row.seq;
        if (static_cast<size_t>(in_use_) < row.values.size())
          t.OnInUseAfterGc(row.values[static_cast<size_t>(in_use_)].total);
      }
  }
  MarkerRow req;
  while (c.WaitGameCaptureRequest(0, &req)) t.OnGameRequest(req);
}

}  // namespace xrpm::app
