// Shared by `xrpm frames` and `xrpm allocations`: connect, subscribe to the device's per-frame
// series and allocation samples for a while, and return the recording (or a clear error: the
// agent's refusal of the sampling interval, a lost connection, no frames).
//
// Thread-safety: none needed (CLI main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli_connect.h"
#include "xrpm/core/frames/frame_recording.h"

namespace xrpm::cli {

struct FramesRecordOptions {
  ConnectOptions connect;
  double duration_s = 10;
  uint32_t sample_bytes = 16 * 1024;  // protocol::kDefaultSampleBytes
};
// --connect..., --duration S (and --sample-bytes N when `sampling`).
void AddFramesRecordOptions(CLI::App& cmd, FramesRecordOptions& o, bool sampling);

struct FramesRecorded {
  frames::FrameRecording rec;
  std::string endpoint;
};
// Throws InputError("VERB: why") when nothing could be recorded.
FramesRecorded RecordFrames(const FramesRecordOptions& o, const char* verb);

}  // namespace xrpm::cli
