#include "cli_frames.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli_common.h"
#include "xrpm/core/diagnostics.h"

namespace xrpm::cli {

void AddFramesRecordOptions(CLI::App& cmd, FramesRecordOptions& o, bool sampling) {
  AddConnectOptions(cmd, o.connect);
  cmd.add_option("--duration", o.duration_s, "Seconds to record")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  if (sampling)
    cmd.add_option("--sample-bytes", o.sample_bytes,
                   "Sample one allocation per N bytes allocated (on average; the agent accepts "
                   "64 B .. 64 MiB)")
        ->capture_default_str();
}

FramesRecorded RecordFrames(const FramesRecordOptions& o, const char* verb) {
  auto c = ConnectForCli(o.connect);
  FramesRecorded out;
  out.endpoint = c->device().endpoint;
  auto fail = [&](const std::string& why) {
    throw InputError(Diagnostic{o.connect.endpoint, 0, "frames", why});
  };
  if (!(c->device().capabilities & 8))  // wire::CAP_FRAMES
    fail("the agent at " + out.endpoint + " does not report frames (" + c->device().runtime_name +
         ")");
  c->SubscribeFrames(o.sample_bytes);
  const bool tty = StderrIsTerminal();
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.duration_s));
  while (Clock::now() < end) {
    c->WaitFrames(
        UINT64_MAX,
        static_cast<uint32_t>(std::min<double>(
            250, std::chrono::duration<double, std::milli>(end - Clock::now()).count() + 1)));
    const client::FramesStatus st = c->frames_status();
    if (!st.error.empty()) fail("the agent refused: " + st.error);
    if (c->state() != client::ConnectionState::kConnected) break;
    if (tty)
      std::fprintf(stderr, "\r\033[K%s: %s frames", verb, Thousands(st.frames_received).c_str());
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  c->TakeFrames(&out.rec);
  if (out.rec.frames.empty()) {
    if (c->state() != client::ConnectionState::kConnected)
      fail("connection lost: " + c->last_error());
    fail("no frames received in " + std::to_string(o.duration_s) + " s");
  }
  out.rec.app = c->device().app_name;
  return out;
}

}  // namespace xrpm::cli
