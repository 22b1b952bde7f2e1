// FrameBatchReader: checks and decodes the agent's FrameBatch messages of one frames
// subscription into FrameRecording deltas. Everything from the device is untrusted: batches must
// come in sequence, definitions must be consecutive and within the protocol limits
// (protocol/constants.h), stacks may only name defined methods, and rows only defined stacks,
// types and tags; markers and tags at most kMaxMarkerBytes, at most kMaxBatchMarkers a batch;
// anything else is a clear error and the host drops the connection (MALFORMED). O(rows +
// definitions) per batch.
//
// Thread-safety: none; used by the client's network thread.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/model/frame_recording.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm::client {

class FrameBatchReader {
 public:
  // Starts a new subscription (ids and sequence numbers start over).
  void Reset();
  // Appends the batch to *delta. `room` = rows the host may still keep (the rest are counted in
  // delta->host_dropped_rows). False with *error when the batch breaks the rules.
  bool Read(const wire::FrameBatch& b, size_t wire_bytes, uint64_t room, FrameRecording* delta,
            std::string* error);
  uint64_t frames() const { return frames_; }

 private:
  uint64_t seq_ = 0;
  uint32_t methods_ = 0, types_ = 0, stacks_ = 0, tags_ = 0;
  uint64_t frames_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace xrpm::client
