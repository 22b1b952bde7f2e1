// Shared by `xrpm frames` and `xrpm allocations`: connect, subscribe to the device's per-frame
// series and allocation samples for a while, and return the recording (or a clear error: the
// agent's refusal of the sampling interval, a lost connection, no frames).
//
// Thread-safety: none needed (CLI main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "shared/connect.h"
#include "xrpm/client/frame_recording.h"

namespace xrpm::cli {

struct FramesRecordOptions {
  ConnectOptions connect;
  double duration_s = 10;
  bool duration_given = false;        // --duration on the command line
  uint64_t count = 0;                 // --count N: stop after N frames (0: by duration only)
  uint32_t sample_bytes = 16 * 1024;  // protocol::kDefaultSampleBytes
  // The recording's time limit: --duration when given; with --count alone, none (the recording
  // ends with the N-th frame, or when the connection is lost).
  bool TimeLimited() const { return duration_given || count == 0; }
};
// --connect..., --duration S, --count N (and --sample-bytes N when `sampling`).
void AddFramesRecordOptions(CLI::App& cmd, FramesRecordOptions& o, bool sampling);

struct FramesRecorded {
  client::FrameRecording rec;
  std::string endpoint;
};
// Throws InputError("VERB: why") when nothing could be recorded.
FramesRecorded RecordFrames(const FramesRecordOptions& o, const char* verb);

}  // namespace xrpm::cli
