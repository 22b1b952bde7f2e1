// RecordingSink: an in-test FrameEventSink that turns a runtime's frame and sample calls straight
// into a FrameRecording (interning methods, types and stacks as the agent does), so the sampler
// and the estimator can be checked against the emulator's exact ledger without the network.
//
// Thread-safety: the runtime serialises sink calls; read the recording when the game is idle.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/agent/frame_events.h"
#include "xrpm/model/frame_recording.h"

namespace xrpm::testing {

class RecordingSink final : public agent::FrameEventSink {
 public:
  explicit RecordingSink(uint32_t sample_bytes) { rec.sample_bytes = sample_bytes; }
  void OnFrame(const agent::FrameRecord& f) noexcept override;
  void OnAllocationSample(const agent::AllocationSample& s) noexcept override;

  FrameRecording rec;

 private:
  std::unordered_map<uint64_t, uint32_t> methods_, types_;
  std::map<std::vector<uint32_t>, uint32_t> stacks_;
};

}  // namespace xrpm::testing
