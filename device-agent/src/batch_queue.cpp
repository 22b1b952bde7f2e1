#include "batch_queue.h"

#include <chrono>

namespace xrpm {
namespace agent {

bool BatchQueue::Push(std::string bytes, size_t fixed_bytes, uint64_t* stalled_us) {
  const size_t n = bytes.capacity();
  std::unique_lock<std::mutex> lock(mu_);
  auto fits = [&] {
    const size_t held = memory_->unacked();
    const size_t grow = fixed_bytes > fixed_ ? fixed_bytes - fixed_ : 0;
    return cancelled() || held <= fixed_ || held + grow + n <= limit_;
  };
  if (!fits()) {
    const auto t0 = std::chrono::steady_clock::now();
    cv_.wait(lock, fits);
    if (stalled_us)
      *stalled_us += std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
  }
  if (cancelled()) return false;
  if (fixed_bytes > fixed_) {
    memory_->Add(fixed_bytes - fixed_);
    fixed_ = fixed_bytes;
  }
  memory_->Add(n);
  q_.push_back(std::move(bytes));
  return true;
}

void BatchQueue::ReleaseFixed() {
  std::lock_guard<std::mutex> lock(mu_);
  memory_->Release(fixed_);
  fixed_ = 0;
}

void BatchQueue::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
}

bool BatchQueue::Pop(std::string* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (q_.empty()) return false;
  *out = std::move(q_.front());
  q_.pop_front();
  return true;
}

bool BatchQueue::closed_and_empty() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_ && q_.empty();
}

void BatchQueue::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  Drain();
}

void BatchQueue::Drain() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& s : q_) memory_->Release(s.capacity());
  q_.clear();
}

}  // namespace agent
}  // namespace xrpm
