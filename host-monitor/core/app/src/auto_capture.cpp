#include "xrpm/app/auto_capture.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <thread>

#include "xrpm/app/capture_output.h"
#include "xrpm/app/capture_status.h"
#include "xrpm/app/trigger_feed.h"
#include "xrpm/model/human_parse.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::app {
namespace {

using Clock = std::chrono::steady_clock;
using Event = AutoCaptureEvent;
constexpr uint32_t kPollMs = 50;
constexpr uint32_t kCounterIntervalMs = 250;

// One connection's worth of feeding the triggers: frames and markers taken here (the run owns
// the subscription), counters and requests through TriggerFeed.
struct Feed {
  client::HostClient& c;
  analysis::CaptureTriggers& trig;
  TriggerFeed live;

  void Poll(double now_s) {
    if (trig.options().NeedsFrames()) {
      FrameRecording delta;  // dropped after the triggers saw it: memory stays flat
      c.TakeFrames(&delta);
      for (const FrameRow& f : delta.frames) trig.OnFrame(f, now_s);
      for (const MarkerRow& m : delta.markers) trig.OnMarker(m);
    }
    live.FromClient(c, trig);
  }
};

bool Lost(const client::HostClient& c) {
  const auto s = c.state();
  return s == client::ConnectionState::kClosed || s == client::ConnectionState::kFailed;
}

}  // namespace

bool ParseTriggers(const TriggerText& t, analysis::CaptureTriggerOptions* out, std::string* error) {
  analysis::CaptureTriggerOptions o;
  o.game_requests = t.game_requests;
  std::string why;
  if (!t.every.empty() && !ParseDuration(t.every, &o.every_s, &why)) {
    *error = "--every: " + why;
    return false;
  }
  if (!t.on_growth.empty() && !ParseByteSize(t.on_growth, &o.growth_bytes, &why)) {
    *error = "--on-growth: " + why;
    return false;
  }
  if (!t.on_gc_pause.empty()) {
    char* end = nullptr;
    const double ms = std::strtod(t.on_gc_pause.c_str(), &end);
    if (end == t.on_gc_pause.c_str() || *end != 0 || !(ms >= 0) || ms > 1e6) {
      *error = "--on-gc-pause: expected milliseconds (a number >= 0, such as 16 or 2.5), found '" +
               t.on_gc_pause + "'";
      return false;
    }
    o.gc_pause_ms = ms;
  }
  o.marker = t.on_marker;
  if (o.every_s == 0 && o.growth_bytes == 0 && o.gc_pause_ms < 0 && o.marker.empty() &&
      !o.game_requests) {
    *error =
        "nothing would trigger a capture: give --every, --on-growth, --on-gc-pause or "
        "--on-marker, or let the game ask (without --ignore-game-requests)";
    return false;
  }
  *out = std::move(o);
  return true;
}

bool CheckAutoCaptureOptions(const AutoCaptureOptions& o, std::string* error) {
  OutputTemplate t;
  if (!t.Parse(o.output, error)) {
    *error = "-o '" + o.output + "': " + *error;
    return false;
  }
  if (!t.numbered() && o.keep != 1 && o.max_captures != 1) {
    *error = "-o '" + o.output +
             "': several captures need {n} in the file name (e.g. 'run-{n}.xrpm'), or --keep 1 "
             "to overwrite one file";
    return false;
  }
  return true;
}

AutoCaptureResult RunAutoCapture(const AutoCaptureOptions& o, const std::atomic<bool>& stop,
                                 const std::function<void(const AutoCaptureEvent&)>& on_event) {
  AutoCaptureResult res;
  OutputTemplate tmpl;
  if (!CheckAutoCaptureOptions(o, &res.error)) return res;
  tmpl.Parse(o.output, &res.error);
  CaptureFileRing ring(o.keep);
  analysis::CaptureTriggers trig(o.triggers);
  const auto t0 = Clock::now();
  auto now = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  auto done = [&] {
    return stop.load() || (o.duration_s > 0 && now() >= o.duration_s) ||
           (o.max_captures > 0 && res.saved >= o.max_captures);
  };
  auto event = [&](Event e) {
    e.at_s = now();
    on_event(e);
  };
  client::ClientOptions co = o.client;
  co.counter_history = 64;     // only the newest level is read
  co.max_frame_rows = 100000;  // taken every poll; a bound if a poll is late
  bool first = true;
  double backoff_s = 0.25;

  while (!done()) {
    auto c = std::make_unique<client::HostClient>(co);
    c->Connect();
    std::string err;
    bool connected = false;
    while (!stop.load()) {
      if (c->WaitConnected(200, &err)) {
        connected = true;
        break;
      }
      if (c->state() != client::ConnectionState::kConnecting) break;
    }
    if (!connected) {
      if (first) {
        res.error = "cannot connect to " + co.endpoint + ": " + (err.empty() ? "stopped" : err);
        return res;
      }
      // The device is still away: try again later, in slices so that a stop is prompt.
      const auto until = Clock::now() + std::chrono::duration<double>(backoff_s);
      while (!done() && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      backoff_s = std::min(backoff_s * 2, o.reconnect_max_s);
      continue;
    }
    if (!first) ++res.reconnects;
    first = false;
    backoff_s = 0.25;
    const client::DeviceInfo dev = c->device();
    event({.kind = Event::Kind::kConnected, .text = dev.app_name + " at " + dev.endpoint});
    trig.OnConnected();
    if (o.triggers.NeedsCounters()) c->SubscribeCounters(kCounterIntervalMs);
    if (o.triggers.NeedsFrames()) c->SubscribeFrames(protocol::kMaxSampleBytes);
    Feed feed{*c, trig, {}};

    while (!done()) {
      if (Lost(*c)) {
        event({.kind = Event::Kind::kLost, .text = c->last_error()});
        break;
      }
      if (o.triggers.NeedsFrames()) {
        const std::string refused = c->frames_status().error;
        if (!refused.empty()) {
          res.error =
              "the agent refused the frames that --on-marker and --on-gc-pause need: " + refused;
          return res;
        }
      }
      feed.Poll(now());
      const auto fire = trig.Due(now());
      if (!fire) {
        // Wait for the next game request, the timer or the next poll, whichever is first.
        const double wait_s = std::min(trig.SecondsUntilTimer(now()), kPollMs / 1000.0);
        MarkerRow req;
        if (c->WaitGameCaptureRequest(static_cast<uint32_t>(wait_s * 1000), &req))
          trig.OnGameRequest(req);
        continue;
      }
      trig.OnCaptureStarted(now());
      Event e{.kind = Event::Kind::kFailed, .n = res.saved + 1, .trigger = *fire};
      if (!c->StartCapture(&e.text, o.capture)) {
        trig.OnCaptureEnded(now());
        ++res.failed;
        event(std::move(e));
        continue;
      }
      client::CaptureResult r;
      const double deadline = now() + o.capture_timeout_s;
      while (!c->WaitCapture(kPollMs, &r)) {
        feed.Poll(now());
        if (stop.load() || now() > deadline) {
          c->CancelCapture();
          c->WaitCapture(5000, &r);
          r.ok = false;
          r.error = stop.load() ? "stopped"
                                : "no complete capture within " +
                                      std::to_string(static_cast<int>(o.capture_timeout_s)) + " s";
          break;
        }
      }
      trig.OnCaptureEnded(now());
      if (!r.ok) {
        ++res.failed;
        e.text = r.error;
        event(std::move(e));
        continue;
      }
      e.stats = r.stats;
      e.pause = CapturePauseText(r.snapshot.get(), r.stats.pause_us);
      if (r.snapshot->capture) {
        e.last_marker = r.snapshot->capture->last_marker;
        e.marker_age_us = r.snapshot->capture->marker_age_us;
      }
      try {
        e.file = SaveCapture(*r.snapshot, e.n, *fire, tmpl, ring, &e.removed);
      } catch (const std::exception& ex) {
        ++res.failed;
        e.text = ex.what();
        event(std::move(e));
        continue;
      }
      r.snapshot.reset();
      ++res.saved;
      e.kind = Event::Kind::kCaptured;
      event(std::move(e));
    }
    c->Disconnect();
  }
  res.ok = true;
  res.coalesced = trig.coalesced();
  return res;
}

}  // namespace xrpm::app
