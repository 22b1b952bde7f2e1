// FrameBoard: the model of the monitor's Timeline and Allocations views, GUI-free. It follows
// the client's frames subscription incrementally (HostClient::TakeFrames), keeps the recording,
// the Timeline's visible window (zoom, pan, follow the newest frames while live), the selected
// range of frames, and the Allocations view's table (grouping, filter, sort) computed from the
// selection (or the whole session) by analysis::BuildAllocationProfile.
//
// The game's markers are placed on their frames' rows (MarkersIn) for the Timeline.
//
// Algorithm: Update appends new rows, O(new rows). The profile and the summary are recomputed,
// O(samples in range), only when the data or the selection changed, and while live at most
// every `kRefreshSeconds` (so a long session does not cost a full pass per drawn frame). Rows
// are filtered (case-insensitive substring) and sorted by the chosen column: O(k log k).
//
// Thread-safety: UI thread only; the HostClient it reads is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/client/host_client.h"
#include "xrpm/model/frame_recording.h"

namespace xrpm::app {

enum class AllocGroup { kType, kMethod, kStack };
enum class AllocColumn { kName, kBytes, kObjects, kShare, kPerFrame, kSamples };
const char* AllocGroupName(AllocGroup g);  // "type", "method", "stack"
std::optional<AllocGroup> AllocGroupFromName(const std::string& name);

// One row of the Allocations table (by type or by method; the call tree uses the profile's
// tree directly).
struct AllocRow {
  std::string name;
  analysis::Estimate est;      // by method: self
  analysis::Estimate through;  // by method: total through the method; by type: = est
  double share = 0;
  double per_frame = 0;  // estimated bytes per frame of the range
};

class FrameBoard {
 public:
  static constexpr double kRefreshSeconds = 0.5;
  static constexpr size_t kDefaultWindow = 600;  // frames shown: 10 s at 60 Hz

  // Pulls what the client received; true when something changed.
  bool Update(client::HostClient& c);
  void Reset();  // a new connection or subscription: forget the recording
  // Replaces the recording (a recording opened from a file, or a test's).
  void Load(FrameRecording rec);
  const FrameRecording& recording() const { return rec_; }

  // ---- Timeline window (indices into recording().frames) ----
  size_t window_first() const { return first_; }
  size_t window_count() const { return count_; }
  bool following() const { return follow_; }
  // Zooms by `factor` (< 1 in, > 1 out) around row `anchor`; pans by `rows`; Follow() returns
  // to the newest frames.
  void Zoom(double factor, size_t anchor);
  void Pan(int64_t rows);
  void Follow();

  // ---- markers (the game's Marker / RequestCapture) on the Timeline ----
  struct MarkerAt {
    size_t row;     // index into recording().frames: the frame the marker was posted in
    size_t marker;  // index into recording().markers
  };
  // The markers posted in rows [first_row, first_row + count), in posting order. Markers are in
  // frame order, so this is two binary searches plus one per marker shown: O(log m + k log n).
  std::vector<MarkerAt> MarkersIn(size_t first_row, size_t count) const;

  // ---- selection (frame numbers, inclusive) ----
  void Select(uint64_t first_frame, uint64_t last_frame);
  void ClearSelection();
  const std::optional<analysis::FrameRange>& selection() const { return selection_; }

  // ---- Allocations table ----
  AllocGroup group = AllocGroup::kType;
  AllocColumn column = AllocColumn::kBytes;
  bool descending = true;
  std::string filter;
  const analysis::AllocationProfile& profile();  // of the selection (or everything)
  const analysis::FrameSummary& summary();       // of the selection (or everything)
  // The rows of `group` (type or method) matching `filter`, sorted by `column`.
  const std::vector<AllocRow>& rows();

 private:
  void Recompute(bool force);
  void ClampWindow();

  FrameRecording rec_;
  size_t first_ = 0, count_ = kDefaultWindow;
  bool follow_ = true;
  std::optional<analysis::FrameRange> selection_;
  analysis::AllocationProfile profile_;
  analysis::FrameSummary summary_;
  std::vector<AllocRow> rows_;
  bool dirty_ = true;       // data or selection changed since the last computation
  bool rows_dirty_ = true;  // grouping, filter or sort changed
  AllocGroup rows_group_ = AllocGroup::kType;
  AllocColumn rows_column_ = AllocColumn::kBytes;
  bool rows_descending_ = true;
  std::string rows_filter_;
  std::chrono::steady_clock::time_point computed_at_{};
};

}  // namespace xrpm::app
