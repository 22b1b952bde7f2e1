#include "xrpm/app/counter_board.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "xrpm/client/counter_csv.h"
#include "xrpm/protocol/netcf_counters.h"

namespace xrpm::app {
namespace {
template <typename T>
void Push(std::vector<T>& v, T x, size_t cap) {
  if (v.size() >= 2 * cap) v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() - cap));
  v.push_back(x);
}

}  // namespace

void CounterBoard::Reset() {
  last_seq_ = 0;
  have_seq_ = false;
  samples_ = 0;
  prev_boot_ms_ = 0;
  boot_ms_.clear();
  counters_.clear();
  categories_.clear();
  members_.clear();
}

bool CounterBoard::Update(const client::CounterHistory& h) {
  if (paused_) return false;
  const auto desc = h.descriptors();
  bool changed = false;
  if (desc.size() != counters_.size()) {  // (re)subscribed: new descriptor set
    std::vector<Counter> fresh(desc.size());
    for (size_t i = 0; i < desc.size(); ++i) {
      fresh[i].desc = desc[i];
      if (i < counters_.size() && counters_[i].desc.name == desc[i].name)
        fresh[i].selected = counters_[i].selected;
    }
    counters_ = std::move(fresh);
    // Graph a few telling counters from the start, so the graphs are never empty.
    bool any = false;
    for (const auto& c : counters_) any = any || c.selected;
    for (protocol::NetcfCounter c : {protocol::NetcfCounter::kManagedBytesAllocated,
                                     protocol::NetcfCounter::kGarbageCollections,
                                     protocol::NetcfCounter::kManagedBytesInUseAfterGc})
      for (Counter& k : counters_)
        if (!any && client::Describes(k.desc, c)) k.selected = true;
    categories_.clear();
    members_.clear();
    for (size_t i = 0; i < counters_.size(); ++i) {
      const std::string& cat = counters_[i].desc.category;
      const size_t k =
          size_t(std::find(categories_.begin(), categories_.end(), cat) - categories_.begin());
      if (k == categories_.size()) {
        categories_.push_back(cat);
        members_.emplace_back();
      }
      members_[k].push_back(int(i));
    }
    changed = true;
  }
  for (const auto& row : h.Since(have_seq_ ? last_seq_ : 0)) {
    if (have_seq_ && row.seq <= last_seq_) continue;
    const double dt = samples_ && row.boot_ms > prev_boot_ms_
                          ? double(row.boot_ms - prev_boot_ms_) / 1000.0
                          : 0.0;
    for (size_t i = 0; i < counters_.size() && i < row.values.size(); ++i) {
      Counter& c = counters_[i];
      const client::CounterReading& s = row.values[i];
      if (dt > 0) {
        c.per_second = double(s.total - c.stat.total) / dt;
        c.has_rate = true;
      }
      c.stat = s;
      Push(c.rate, float(c.has_rate ? c.per_second : 0.0), capacity_);
      Push(c.value, float(s.last), capacity_);
    }
    Push(boot_ms_, row.boot_ms, capacity_);
    prev_boot_ms_ = row.boot_ms;
    last_host_s_ = row.host_s;
    last_seq_ = row.seq;
    have_seq_ = true;
    ++samples_;
    changed = true;
  }
  return changed;
}

std::vector<CounterBoard::MarkerPoint> CounterBoard::MarkersOnGraph(
    const std::vector<MarkerRow>& markers, size_t points) const {
  std::vector<MarkerPoint> out;
  points = std::min(points, boot_ms_.size());
  if (points < 2 || markers.empty()) return out;
  const auto first = boot_ms_.end() - static_cast<ptrdiff_t>(points);
  const double t0 = double(*first), t1 = double(boot_ms_.back());
  if (!(t1 > t0)) return out;
  auto it = std::lower_bound(markers.begin(), markers.end(), t0, [](const MarkerRow& m, double t) {
    return double(m.time_us) / 1000.0 < t;
  });
  for (; it != markers.end() && double(it->time_us) / 1000.0 <= t1; ++it) {
    const double t = double(it->time_us) / 1000.0;
    // The samples around t: interpolate between their positions (the graph's points are evenly
    // spaced, one per sample, whatever the time between them).
    auto hi = std::lower_bound(first, boot_ms_.end(), uint64_t(std::ceil(t)));
    if (hi == boot_ms_.end()) hi = boot_ms_.end() - 1;
    const size_t j = size_t(hi - first);
    double pos = double(j);
    if (j > 0 && double(*hi) > t) {
      const double a = double(*(hi - 1)), b = double(*hi);
      pos = double(j - 1) + (b > a ? (t - a) / (b - a) : 1.0);
    }
    out.push_back({pos / double(points - 1), size_t(it - markers.begin())});
  }
  return out;
}

int CounterBoard::Find(const std::string& name) const {
  for (size_t i = 0; i < counters_.size(); ++i)
    if (counters_[i].desc.name == name) return int(i);
  return -1;
}

void ExportCountersCsv(const client::CounterHistory& h, const std::string& path) {
  client::WriteCounterCsv(path, h.descriptors(), h.Since(0));
}

}  // namespace xrpm::app
