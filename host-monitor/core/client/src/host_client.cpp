// HostClient public API: thread-safe accessors and commands posted to the network thread.
#include "xrpm/client/host_client.h"

#include <chrono>

#include "host_client_impl.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::client {

CaptureInfo MakeCaptureInfo(const DeviceInfo& d, const CaptureStats& s) {
  CaptureInfo c;
  c.device = d;
  c.capture_id = s.capture_id;
  c.captured_at_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  c.batches = s.batches;
  c.wire_bytes = s.wire_bytes;
  c.pause_us = s.pause_us;
  c.gc_us = s.gc_us;
  c.walk_us = s.walk_us;
  c.walk_after_pause_us = s.walk_after_pause_us;
  c.stop_wait_us = s.stop_wait_us;
  c.stall_us = s.stall_us;
  c.agent_peak_bytes = s.agent_peak_bytes;
  c.elapsed_us = static_cast<uint64_t>(s.elapsed_s * 1e6);
  return c;
}

HostClient::HostClient(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

HostClient::~HostClient() {
  Disconnect();
}

void HostClient::Connect() {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (m.state == ConnectionState::kConnecting || m.state == ConnectionState::kConnected) return;
  }
  if (m.thread.joinable()) m.thread.join();  // a previous, finished connection
  m.stop = false;
  m.handshaken = false;
  m.history.Clear();
  {
    std::lock_guard lock(m.mu);
    m.state = ConnectionState::kConnecting;
    m.last_error.clear();
    m.commands.clear();
    m.device = DeviceInfo{};
    ++m.generation;
  }
  m.thread = std::thread([&m] { m.Run(); });
}

bool HostClient::WaitConnected(uint32_t timeout_ms, std::string* error) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  m.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                [&] { return m.state != ConnectionState::kConnecting; });
  if (m.state == ConnectionState::kConnected) return true;
  if (error)
    *error = m.state == ConnectionState::kConnecting
                 ? "still connecting after " + std::to_string(timeout_ms) + " ms"
             : m.last_error.empty() ? std::string("not connected")
                                    : m.last_error;
  return false;
}

void HostClient::Disconnect() {
  Impl& m = *impl_;
  m.stop = true;
  if (m.thread.joinable()) m.thread.join();
}

ConnectionState HostClient::state() const {
  std::lock_guard lock(impl_->mu);
  return impl_->state;
}

std::string HostClient::last_error() const {
  std::lock_guard lock(impl_->mu);
  return impl_->last_error;
}

DeviceInfo HostClient::device() const {
  std::lock_guard lock(impl_->mu);
  return impl_->device;
}

uint64_t HostClient::DeviceClockMs() const {
  std::lock_guard lock(impl_->mu);
  if (impl_->device.boot_ms == 0) return 0;
  const auto since = std::chrono::steady_clock::now() - impl_->welcome_at;
  return impl_->device.boot_ms +
         static_cast<uint64_t>(
             std::chrono::duration_cast<std::chrono::milliseconds>(since).count());
}

uint64_t HostClient::generation() const {
  std::lock_guard lock(impl_->mu);
  return impl_->generation;
}

void HostClient::SubscribeCounters(uint32_t interval_ms) {
  std::lock_guard lock(impl_->mu);
  impl_->commands.push_back(CmdSubscribe{interval_ms});
}

const CounterHistory& HostClient::counters() const {
  return impl_->history;
}

bool HostClient::WaitCounterSamples(uint64_t count, uint32_t timeout_ms) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  return m.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return m.history.received() >= count || m.state == ConnectionState::kClosed ||
           m.state == ConnectionState::kFailed;
  }) && m.history.received() >= count;
}

void HostClient::SubscribeFrames(uint32_t sample_bytes) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (sample_bytes != 0) {
    // From now on only this subscription's messages count (earlier ones may still arrive).
    ++m.frame_subscription;
    m.frames.frames_received = 0;
    m.frames.frame_totals = FrameTotals::kExact;  // until its FramesStarted says otherwise
  }
  m.commands.push_back(CmdFrames{sample_bytes, m.frame_subscription});
  m.frames.requested = sample_bytes != 0;
  m.frames.started = false;
  m.frames.error.clear();
}

FramesStatus HostClient::frames_status() const {
  std::lock_guard lock(impl_->mu);
  return impl_->frames;
}

void HostClient::TakeFrames(FrameRecording* into) {
  FrameRecording delta;
  {
    std::lock_guard lock(impl_->mu);
    delta.subscription = impl_->frame_delta.subscription;
    std::swap(delta, impl_->frame_delta);
    impl_->frame_delta.subscription = delta.subscription;
    impl_->frame_delta.app = delta.app;
    impl_->frame_delta.frame_totals = delta.frame_totals;
  }
  into->Append(std::move(delta));
}

bool HostClient::WaitFrames(uint64_t count, uint32_t timeout_ms) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  auto done = [&] {
    return m.frames.frames_received >= count || !m.frames.error.empty() ||
           m.state == ConnectionState::kClosed || m.state == ConnectionState::kFailed;
  };
  return m.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), done) &&
         m.frames.frames_received >= count;
}

bool HostClient::WaitGameCaptureRequest(uint32_t timeout_ms, MarkerRow* out) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  auto done = [&] {
    return !m.capture_requests.empty() || m.state == ConnectionState::kClosed ||
           m.state == ConnectionState::kFailed;
  };
  m.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
  if (m.capture_requests.empty()) return false;
  *out = std::move(m.capture_requests.front());
  m.capture_requests.pop_front();
  return true;
}

uint64_t HostClient::game_capture_requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->capture_requests_received;
}

bool HostClient::StartCapture(std::string* error, const CaptureOptions& opts) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  if (m.state != ConnectionState::kConnected) {
    if (error) *error = "not connected" + (m.last_error.empty() ? "" : ": " + m.last_error);
    return false;
  }
  if (m.capture_active) {
    if (error) *error = "a capture is already running";
    return false;
  }
  // An agent without the capability would ignore the field and induce its own collection.
  if (opts.join_induced_gc_ms != 0 && !(m.device.capabilities & wire::CAP_JOIN_INDUCED_GC)) {
    if (error)
      *error = "the agent (" + m.device.runtime_name +
               ") cannot join another tool's collection: it induces its own (only the .NET "
               "port can; an older agent cannot)";
    return false;
  }
  if (opts.join_induced_gc_ms > protocol::kMaxJoinInducedGcMs) {
    if (error)
      *error = "joining waits at most " + std::to_string(protocol::kMaxJoinInducedGcMs / 1000) +
               " s for another tool's collection";
    return false;
  }
  m.capture_active = true;
  m.result.reset();
  m.progress = CaptureProgress{};
  m.progress.phase = CapturePhase::kRequested;
  m.commands.push_back(CmdCapture{opts});
  ++m.generation;
  return true;
}

void HostClient::CancelCapture() {
  std::lock_guard lock(impl_->mu);
  if (impl_->capture_active) impl_->commands.push_back(CmdCancel{});
}

CaptureProgress HostClient::capture_progress() const {
  std::lock_guard lock(impl_->mu);
  return impl_->progress;
}

bool HostClient::WaitCapture(uint32_t timeout_ms, CaptureResult* out) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  if (!m.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                     [&] { return !m.capture_active && m.result.has_value(); }))
    return false;
  *out = std::move(*m.result);
  m.result.reset();
  return true;
}

std::optional<CaptureResult> HostClient::TakeCaptureResult() {
  std::lock_guard lock(impl_->mu);
  if (impl_->capture_active || !impl_->result) return std::nullopt;
  std::optional<CaptureResult> r = std::move(impl_->result);
  impl_->result.reset();
  return r;
}

}  // namespace xrpm::client
