// Shared by `xrpm frames` and `xrpm allocations`: connect, subscribe to the device's per-frame
// series and allocation samples for a while, and return the recording (or a clear error: the
// agent's refusal of the sampling interval, a lost connection, no frames); or read a saved
// recording (a FILE in place of --connect); and save it with -o FILE.xrpm.
//
// Thread-safety: none needed (CLI main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "shared/connect.h"
#include "xrpm/formats/recording_file.h"

namespace xrpm::cli {

struct FramesRecordOptions {
  ConnectOptions connect;
  std::string file;  // a saved recording to read instead of connecting
  std::string out;   // -o: save the recording here (.xrpm)
  // allocations --diff A B: two saved recordings compared instead of one source (the verb adds
  // the option; a source is then not required).
  std::vector<std::string> diff;
  double duration_s = 10;
  bool duration_given = false;        // --duration on the command line
  uint64_t count = 0;                 // --count N: stop after N frames (0: by duration only)
  uint32_t sample_bytes = 16 * 1024;  // protocol::kDefaultSampleBytes
  // The recording's time limit: --duration when given; with --count alone, none (the recording
  // ends with the N-th frame, or when the connection is lost).
  bool TimeLimited() const { return duration_given || count == 0; }
};
// --connect... or FILE, --duration S, --count N, -o FILE (and --sample-bytes N when `sampling`).
// A FILE excludes the live options; neither FILE nor --connect is a usage error (exit 2).
void AddFramesRecordOptions(CLI::App& cmd, FramesRecordOptions& o, bool sampling);

// The recording and the endpoint it came from (as saved).
using FramesRecorded = formats::SavedRecording;
// Records (or reads the FILE, keeping its first --count frames) and saves it when -o is given.
// Throws InputError("VERB: why") when nothing could be recorded or the file is refused.
FramesRecorded RecordFrames(const FramesRecordOptions& o, const char* verb);

}  // namespace xrpm::cli
