// Test helper: drives an app::DeviceLink as the monitor's frame loop does (Poll every 5 ms, a UI
// frame) until it has connected or failed, or `timeout_ms` passed; returns the phase it reached.
//
// Thread-safety: the thread that owns the link.
#pragma once

#include <chrono>
#include <thread>

#include "xrpm/app/device_link.h"

namespace xrpm::testing {

inline app::DeviceLink::Phase PollUntilSettled(app::DeviceLink& link, int timeout_ms = 60000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (link.phase() != app::DeviceLink::Phase::kConnected &&
         link.phase() != app::DeviceLink::Phase::kFailed &&
         std::chrono::steady_clock::now() < deadline) {
    link.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a UI frame, not a guess
  }
  return link.phase();
}

}  // namespace xrpm::testing
