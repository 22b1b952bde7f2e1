// RecordingDoc: a frames recording the monitor holds beside the live one: one
// opened from a saved `.xrpm` recording (formats/recording_file.h, the format `xrpm frames -o`
// writes), with its own FrameBoard, so the Timeline and Allocations views show it exactly as
// they show a live session (markers included), and Compare can set it against another.
//
// AllocCompareResult: the Compare view's "Allocations" mode: two recordings' allocation traffic
// per call site, as analysis::DiffAllocations (the function behind `xrpm allocations --diff`)
// returns it; the view draws its rows, it computes nothing.
//
// IsRecordingFile decides what File > Open does with a path: it reads the file's table of
// contents and block tables only (formats::ListXrpmParts: O(parts + blocks), a few KiB per GiB
// of file), on the UI thread.
//
// Thread-safety: plain values; UI thread only (Recordings and Comparisons own them).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "xrpm/analysis/allocation_diff.h"
#include "xrpm/app/frame_board.h"

namespace xrpm::app {

struct RecordingDoc {
  enum class State { kLoading, kReady, kFailed };
  uint32_t id = 0;
  std::string title;     // the file name
  std::string path;      // as opened or last saved
  std::string endpoint;  // where it was recorded ("127.0.0.1:4510")
  State state = State::kLoading;
  std::string problem;  // kFailed: the reader's error (file, part, byte offset, what was found)
  FrameBoard board;     // kReady: the recording and the Timeline/Allocations view state
};

// The recording the Timeline shows when it is not one of the opened files.
inline constexpr uint32_t kLiveRecording = 0;

struct AllocCompareResult {
  std::array<uint32_t, 2> recordings{};  // A and B: RecordingDoc ids or kLiveRecording
  std::array<std::string, 2> titles;     // "Live recording (bubbles.exe)", "before.xrpm"
  std::array<std::string, 2> apps;       // the recorded applications
  analysis::AllocationDiff diff;         // rows sorted by |change|, largest first
};

// True when `path` is a readable .xrpm whose table of contents lists a recording's parts
// (formats::RecordingPartTags). False for anything else, including files too damaged to list:
// those are opened as snapshots, whose reader then says what is wrong.
bool IsRecordingFile(const std::string& path);

}  // namespace xrpm::app
