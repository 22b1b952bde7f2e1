// CounterHistory: the live counters received from a device: their descriptors and the most
// recent samples (a ring of `capacity` samples, oldest dropped first), for tables, graphs and
// CSV export.
//
// Thread-safety: all methods are thread-safe (one mutex). The network thread appends; readers
// (GUI frame, CLI) copy out what they need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "xrpm/protocol/netcf_counters.h"

namespace xrpm::client {

struct CounterDescriptor {
  std::string category;  // "Garbage Collector"
  std::string name;      // "Managed Bytes Allocated"
  std::string unit;      // "count", "bytes", "ms"
};

// Is `d` the catalog's counter `c` (same category and name, as the device describes it)?
bool Describes(const CounterDescriptor& d, protocol::NetcfCounter c);

// One counter's figures in one sample, as the device reported them: the `.stat` columns (the
// agent's CounterValue; agent::CounterStat is the runtime's accumulator that produces them).
struct CounterReading {
  int64_t total = 0;
  int64_t last = 0;
  uint64_t n = 0;
  double mean = 0;
  int64_t min = 0;
  int64_t max = 0;
};

struct CounterSampleRow {
  uint64_t seq = 0;                    // the agent's sample sequence number
  uint64_t boot_ms = 0;                // device clock
  double host_s = 0;                   // seconds since the client connected
  std::vector<CounterReading> values;  // values[i] belongs to descriptors()[i]
};

class CounterHistory {
 public:
  explicit CounterHistory(size_t capacity = 3000) : capacity_(capacity ? capacity : 1) {}

  void SetDescriptors(std::vector<CounterDescriptor> d, uint32_t interval_ms);
  // Appends a sample; older-or-equal seq (reordered unreliable packets) are ignored.
  void Add(CounterSampleRow row);
  void Clear();

  std::vector<CounterDescriptor> descriptors() const;
  uint32_t interval_ms() const;
  size_t size() const;
  uint64_t received() const;  // samples ever added
  // Samples with seq > after_seq, oldest first (incremental readers pass the last seq seen).
  std::vector<CounterSampleRow> Since(uint64_t after_seq) const;
  bool Latest(CounterSampleRow* out) const;
  // Index of the counter named `name` (first match), or -1.
  int Find(const std::string& name) const;
  // Index of the catalog's counter `c` (its category and name, as the device describes it), or
  // -1 when the device does not report it.
  int Find(protocol::NetcfCounter c) const;

 private:
  mutable std::mutex mu_;
  const size_t capacity_;
  std::vector<CounterDescriptor> descriptors_;
  uint32_t interval_ms_ = 0;
  std::deque<CounterSampleRow> rows_;
  uint64_t received_ = 0;
  bool have_seq_ = false;
  uint64_t last_seq_ = 0;
};

}  // namespace xrpm::client
