#include "shared/record_frames.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "shared/common.h"
#include "xrpm/model/diagnostics.h"

namespace xrpm::cli {
namespace {

// Keeps the first `n` frame rows (all when n is 0 or more are not there) and the samples of
// those frames (samples arrive in frame order). O(rows + samples).
void KeepFirstFrames(FrameRecording& r, uint64_t n) {
  if (n == 0 || r.frames.size() <= n) return;
  r.frames.resize(n);
  const uint64_t last = r.frames.back().frame;
  std::erase_if(r.samples, [last](const SampleRow& s) { return s.frame > last; });
}

}  // namespace

void AddFramesRecordOptions(CLI::App& cmd, FramesRecordOptions& o, bool sampling) {
  AddConnectOptions(cmd, o.connect);
  cmd.get_option("--connect")->required(false);
  cmd.add_option_function<double>(
         "--duration",
         [&o](double s) {
           o.duration_s = s;
           o.duration_given = true;
         },
         "Seconds to record (default 10; with --count: a time limit, none unless given)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--count", o.count, "Stop once N frames have been received")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  if (sampling)
    cmd.add_option("--sample-bytes", o.sample_bytes,
                   "Sample one allocation per N bytes allocated (on average; the agent accepts "
                   "64 B .. 64 MiB)")
        ->capture_default_str();
  CLI::Option* file = cmd.add_option(
      "file", o.file, "A recording saved with -o, read in place of --connect (same output)");
  for (const char* live : {"--connect", "--token", "--connect-timeout", "--peer-timeout",
                           "--duration", "--sample-bytes"})
    if (CLI::Option* opt = cmd.get_option_no_throw(live)) file->excludes(opt);
  cmd.add_option("-o,--output", o.out,
                 "Save the whole recording (frames, collections, markers, samples with stacks "
                 "and tags) to this .xrpm file (atomically)");
  cmd.callback([&o] {
    if (o.file.empty() && o.connect.endpoint.empty() && o.diff.empty())
      throw CLI::RequiredError("--connect HOST:PORT or a recording FILE");
  });
}

namespace {

FramesRecorded RecordLive(const FramesRecordOptions& o, const char* verb) {
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
  const bool limited = o.TimeLimited();
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.duration_s));
  for (;;) {
    uint32_t wait_ms = 250;
    if (limited) {
      const double left_ms = std::chrono::duration<double, std::milli>(end - Clock::now()).count();
      if (left_ms <= 0) break;
      wait_ms = static_cast<uint32_t>(std::min<double>(wait_ms, left_ms + 1));
    }
    c->WaitFrames(o.count ? o.count : UINT64_MAX, wait_ms);
    const client::FramesStatus st = c->frames_status();
    if (!st.error.empty()) fail("the agent refused: " + st.error);
    if (c->state() != client::ConnectionState::kConnected) break;
    if (o.count && st.frames_received >= o.count) break;
    if (tty)
      std::fprintf(stderr, "\r\033[K%s: %s frames", verb, FormatCount(st.frames_received).c_str());
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  c->TakeFrames(&out.rec);
  KeepFirstFrames(out.rec, o.count);
  if (out.rec.frames.empty()) {
    if (c->state() != client::ConnectionState::kConnected)
      fail("connection lost: " + c->last_error());
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", o.duration_s);
    fail("no frames received in " + std::string(secs) + " s");
  }
  out.rec.app = c->device().app_name;
  return out;
}

}  // namespace

FramesRecorded RecordFrames(const FramesRecordOptions& o, const char* verb) {
  FramesRecorded got;
  if (o.file.empty()) {
    got = RecordLive(o, verb);
  } else {
    got = formats::LoadRecordingFile(o.file);
    KeepFirstFrames(got.rec, o.count);
  }
  if (!o.out.empty()) formats::SaveRecordingFile(got, o.out);
  return got;
}

}  // namespace xrpm::cli
