#include "batch_queue.h"

#include <chrono>

namespace xrpm {
namespace agent {

bool BatchQueue::Push(std::string bytes, size_t fixed_bytes, uint64_t* stalled_us) {
  const size_t n = bytes.capacity();
  std::unique_lock<std::mutex> lock(mu_);
  if (fixed_bytes == kBuffersUnchanged) fixed_bytes = fixed_;
  if (fixed_bytes < fixed_) {  // buffers given back: before the wait, they make room too
    memory_->Release(fixed_ - fixed_bytes);
    fixed_ = fixed_bytes;
  }
  auto fits = [&] {
    const size_t held = memory_->unacked();
    if (cancelled() || held <= fixed_) return true;  // no message held: one always fits
    const size_t grow = fixed_bytes > fixed_ ? fixed_bytes - fixed_ : 0;
    if (held + grow + n > limit_) return false;
    return !resumed_ || held - fixed_ + n <= resumed_limit_;
  };
  if (!fits()) {
    ++waits_;
    const auto t0 = std::chrono::steady_clock::now();
    cv_.wait(lock, fits);
    if (stalled_us)
      *stalled_us += std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
  }
  if (cancelled()) return false;
  // Only Push adds (under mu_): the messages held after this one are at most what is held now
  // plus `n` (the network thread may release some meanwhile).
  const size_t held_now = memory_->unacked();
  const size_t messages = (held_now > fixed_ ? held_now - fixed_ : 0) + n;
  if (messages > messages_peak_) messages_peak_ = messages;
  if (fixed_bytes > fixed_) {
    memory_->Add(fixed_bytes - fixed_);
    fixed_ = fixed_bytes;
  }
  memory_->Add(n);
  if (fixed_ > fixed_peak_) fixed_peak_ = fixed_;
  q_.push_back(std::move(bytes));
  return true;
}

void BatchQueue::Resume() {
  std::lock_guard<std::mutex> lock(mu_);
  resumed_ = true;
}

void BatchQueue::LowerResumedLimit(size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (limit < resumed_limit_) resumed_limit_ = limit;
}

size_t BatchQueue::resumed_limit() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resumed_limit_;
}

size_t BatchQueue::messages_peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return messages_peak_;
}

size_t BatchQueue::buffers_peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fixed_peak_;
}

uint64_t BatchQueue::waits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_;
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
