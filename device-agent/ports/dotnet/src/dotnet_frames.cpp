// DotnetFrames: one frame record at each return of the frame method.
#include "dotnet_frames.h"

namespace xrpm {
namespace dotnet {

void DotnetFrames::Record(uint64_t frame) {
  const int64_t now = NowNs();
  // Collections between frames count in the frame that ends next, as under Mono (SetSink drops
  // what came before a subscription).
  const agent::GcTally::Taken gc = gc_tally_.Take();
  {
    agent::FrameRecord r{};
    r.frame = frame;
    r.end_us = static_cast<uint64_t>(now / 1000);
    r.duration_us = last_end_ns_ < 0 ? 0 : static_cast<uint32_t>((now - last_end_ns_) / 1000);
    r.work_us = enter_ns_ < 0 ? 0 : static_cast<uint32_t>((now - enter_ns_) / 1000);
    // Exact, or the sampled route's estimate; 0 without --allocations (see the header).
    r.alloc_bytes = alloc_bytes_ + static_cast<uint64_t>(est_bytes_ + 0.5);
    const double objects = alloc_objects_ + est_objects_ + 0.5;
    r.alloc_objects = objects >= UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(objects);
    r.gcs = gc.gcs;
    r.gc_pause_us = gc.pause_us;
    r.gc_kinds = gc.kinds;
    r.gc_budget_left = -1;
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink_) sink_->OnFrame(r);
  }
  last_end_ns_ = now;
  alloc_bytes_ = 0;
  alloc_objects_ = 0;
  est_bytes_ = est_objects_ = 0;
  frame_in_progress_.store(frame + 1, std::memory_order_relaxed);
}

}  // namespace dotnet
}  // namespace xrpm
