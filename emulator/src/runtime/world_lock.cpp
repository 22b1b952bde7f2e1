#include "xrpm/emulator/world_lock.h"

#include <chrono>

namespace xrpm::emulator {

void WorldLock::EnterMutator() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return stops_pending_ == 0 && !stopped_; });
  in_frame_ = true;
}

void WorldLock::LeaveMutator() {
  {
    std::lock_guard<std::mutex> lock(m_);
    in_frame_ = false;
  }
  cv_.notify_all();
}

bool WorldLock::Stop(uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(m_);
  ++stops_pending_;
  bool ok = cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                         [&] { return !in_frame_ && !stopped_; });
  --stops_pending_;
  if (ok) {
    stopped_ = true;
    return true;
  }
  lock.unlock();
  cv_.notify_all();  // the mutator may have been waiting for this stop to go away
  return false;
}

void WorldLock::Resume() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopped_ = false;
  }
  cv_.notify_all();
}

bool WorldLock::stopped() const {
  std::lock_guard<std::mutex> lock(m_);
  return stopped_;
}

}  // namespace xrpm::emulator
