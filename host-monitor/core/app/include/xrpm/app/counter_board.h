// CounterBoard: the Live counters view's model, GUI-free. It follows the client's counter
// history incrementally (only samples newer than the last one it saw), keeps per counter the
// latest statistics (total, last, n, mean, min, max), the per-second rate of the total, and
// time series for graphs; it can be paused (the history keeps filling) and exports the kept
// history as CSV.
//
// The game's markers are placed on the graphs by the device clock (MarkersOnGraph).
//
// Algorithm: Update is O(new samples × counters); series are trimmed in halves, so appending
// is amortised O(1) and memory stays within 2 × `capacity` floats per counter and series.
//
// Thread-safety: UI thread only; the CounterHistory it reads is thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/client/counter_history.h"
#include "xrpm/model/frame_recording.h"

namespace xrpm::app {

class CounterBoard {
 public:
  struct Counter {
    client::CounterDescriptor desc;
    client::CounterReading stat;
    double per_second = 0;  // change of `total` per second between the last two samples
    bool has_rate = false;
    bool selected = false;           // shown in the graphs
    std::vector<float> rate, value;  // graph series (oldest first)
  };

  explicit CounterBoard(size_t capacity = 1200) : capacity_(capacity) {}

  // Pulls samples newer than the last seen; returns true when something changed. Paused: no-op.
  bool Update(const client::CounterHistory& h);
  void Reset();  // a new connection: forget everything
  void set_paused(bool p) { paused_ = p; }
  bool paused() const { return paused_; }

  std::vector<Counter>& counters() { return counters_; }
  const std::vector<Counter>& counters() const { return counters_; }
  // Category names in first-seen order, and the counters of each (by category index); both
  // are rebuilt only when the descriptor set changes, not per frame.
  const std::vector<std::string>& categories() const { return categories_; }
  const std::vector<int>& InCategory(size_t category) const { return members_[category]; }
  int Find(const std::string& name) const;
  uint64_t samples() const { return samples_; }
  double last_host_s() const { return last_host_s_; }

  // Where the game's markers (time_us, device clock; in time order) fall on graphs of the last
  // `points` samples: x from 0 (the first shown sample) to 1 (the newest), interpolated between
  // the samples around it; markers outside that span are left out. O(log m + k log n).
  struct MarkerPoint {
    double x;
    size_t marker;  // index into `markers`
  };
  std::vector<MarkerPoint> MarkersOnGraph(const std::vector<MarkerRow>& markers,
                                          size_t points) const;

 private:
  size_t capacity_;
  bool paused_ = false;
  uint64_t last_seq_ = 0;
  bool have_seq_ = false;
  uint64_t samples_ = 0;
  uint64_t prev_boot_ms_ = 0;
  std::vector<uint64_t> boot_ms_;  // device clock of each graphed sample (trimmed like them)
  double last_host_s_ = 0;
  std::vector<Counter> counters_;
  std::vector<std::string> categories_;
  std::vector<std::vector<int>> members_;  // members_[k]: counters of categories_[k]
};

// Writes every sample `h` keeps as CSV in the one counter CSV layout (client/counter_csv.h, the
// same as `xrpm counters --csv`), atomically. Throws std::runtime_error on I/O errors.
void ExportCountersCsv(const client::CounterHistory& h, const std::string& path);

}  // namespace xrpm::app
