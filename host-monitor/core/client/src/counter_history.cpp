#include "xrpm/client/counter_history.h"

namespace xrpm::client {

void CounterHistory::SetDescriptors(std::vector<CounterDescriptor> d, uint32_t interval_ms) {
  std::lock_guard lock(mu_);
  descriptors_ = std::move(d);
  interval_ms_ = interval_ms;
  rows_.clear();
  have_seq_ = false;
}

void CounterHistory::Add(CounterSampleRow row) {
  std::lock_guard lock(mu_);
  if (have_seq_ && row.seq <= last_seq_) return;
  have_seq_ = true;
  last_seq_ = row.seq;
  ++received_;
  rows_.push_back(std::move(row));
  while (rows_.size() > capacity_) rows_.pop_front();
}

void CounterHistory::Clear() {
  std::lock_guard lock(mu_);
  descriptors_.clear();
  rows_.clear();
  have_seq_ = false;
}

std::vector<CounterDescriptor> CounterHistory::descriptors() const {
  std::lock_guard lock(mu_);
  return descriptors_;
}

uint32_t CounterHistory::interval_ms() const {
  std::lock_guard lock(mu_);
  return interval_ms_;
}

size_t CounterHistory::size() const {
  std::lock_guard lock(mu_);
  return rows_.size();
}

uint64_t CounterHistory::received() const {
  std::lock_guard lock(mu_);
  return received_;
}

std::vector<CounterSampleRow> CounterHistory::Since(uint64_t after_seq) const {
  std::lock_guard lock(mu_);
  std::vector<CounterSampleRow> out;
  for (const auto& r : rows_)
    if (r.seq > after_seq) out.push_back(r);
  return out;
}

bool CounterHistory::Latest(CounterSampleRow* out) const {
  std::lock_guard lock(mu_);
  if (rows_.empty()) return false;
  *out = rows_.back();
  return true;
}

int CounterHistory::Find(const std::string& name) const {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < descriptors_.size(); ++i)
    if (descriptors_[i].name == name) return static_cast<int>(i);
  return -1;
}

bool Describes(const CounterDescriptor& d, protocol::NetcfCounter c) {
  const protocol::CounterInfo& info = protocol::Spec(c).info;
  return d.category == info.category && d.name == info.name;
}

int CounterHistory::Find(protocol::NetcfCounter c) const {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < descriptors_.size(); ++i)
    if (Describes(descriptors_[i], c)) return static_cast<int>(i);
  return -1;
}

}  // namespace xrpm::client
