// Helpers shared by the capture tests: a log sink the agent writes into (tests wait for lines
// with a timeout instead of sleeping), .gclog text of a snapshot, and an agent fixture.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "xrpm/agent/agent.h"
#include "xrpm/client/host_client.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

class LogSink {
 public:
  std::function<void(const std::string&)> fn() {
    return [this](const std::string& line) {
      std::lock_guard lock(mu_);
      lines_.push_back(line);
      cv_.notify_all();
    };
  }
  // Waits for a line containing `text`; returns it ("" on timeout).
  std::string WaitFor(const std::string& text, uint32_t timeout_ms = 20000) {
    std::unique_lock lock(mu_);
    std::string found;
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
      for (const auto& l : lines_)
        if (l.find(text) != std::string::npos) {
          found = l;
          return true;
        }
      return false;
    });
    return found;
  }
  // Waits until `count` lines contain `text`; returns how many do (< count on timeout).
  size_t WaitCount(const std::string& text, size_t count, uint32_t timeout_ms = 20000) {
    return WaitCountWhere([&](const std::string& l) { return l.find(text) != std::string::npos; },
                          count, timeout_ms);
  }
  // The same for lines that `match`.
  size_t WaitCountWhere(const std::function<bool(const std::string&)>& match, size_t count,
                        uint32_t timeout_ms = 20000) {
    std::unique_lock lock(mu_);
    size_t n = 0;
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
      n = 0;
      for (const auto& l : lines_) n += match(l);
      return n >= count;
    });
    return n;
  }
  // Waits until the agent retired capture `id`: its one closing line, "capture ID done: ...",
  // "capture ID stopped..." (a host that disconnected first, even after the capture's end
  // reached it) or "capture ID failed: ...". Returns whether it came.
  bool WaitCaptureRetired(uint64_t id, uint32_t timeout_ms = 20000) {
    const std::string p = "capture " + std::to_string(id) + " ";
    return WaitCountWhere(
               [&](const std::string& l) {
                 return l.rfind(p + "done:", 0) == 0 || l.rfind(p + "stopped", 0) == 0 ||
                        l.rfind(p + "failed:", 0) == 0;
               },
               1, timeout_ms) == 1;
  }
  // Waits until `count` hosts were logged disconnected ("host ADDR disconnected"; not a
  // capture's "cancelled: the host disconnected"). `prefix`: what a process puts before the
  // agent's lines ("xrpm-agent: " on a launcher's stderr).
  size_t WaitHostsDisconnected(size_t count, uint32_t timeout_ms = 20000,
                               const std::string& prefix = "") {
    return WaitCountWhere(
        [&](const std::string& l) {
          return l.rfind(prefix + "host ", 0) == 0 && l.find(" disconnected") != std::string::npos;
        },
        count, timeout_ms);
  }
  std::string All() {
    std::lock_guard lock(mu_);
    std::string s;
    for (const auto& l : lines_) s += l + "\n";
    return s;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// Waits (bounded) for the agent's outcome line of capture `id`, logged after its stats took the
// capture in and the job was retired: "capture N stopped ...", "... done ..." or
// "... failed ..."; returns it ("" on timeout).
inline std::string WaitCaptureOutcome(LogSink& log, const std::string& id,
                                      uint32_t timeout_ms = 30000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (size_t lines = log.WaitCount("", 0, 0);;) {
    for (const char* outcome : {" stopped", " done", " failed"}) {
      std::string line = log.WaitFor("capture " + id + outcome, 0);
      if (!line.empty()) return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "";
    lines = log.WaitCount("", lines + 1, static_cast<uint32_t>(left.count()));  // the next line
  }
}

// "" when equal, else the first differing line of each ("line 12: 'o 1 2 3' vs 'o 1 2 4'").
// (gtest's own string diff is quadratic: far too slow for whole dumps.)
inline std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t pa = 0, pb = 0, line = 1;
  while (pa < a.size() || pb < b.size()) {
    const size_t ea = std::min(a.find('\n', pa), a.size());
    const size_t eb = std::min(b.find('\n', pb), b.size());
    const std::string la = a.substr(pa, ea - pa), lb = b.substr(pb, eb - pb);
    if (la != lb || (pa >= a.size()) != (pb >= b.size()))
      return "line " + std::to_string(line) + ": '" + (pa < a.size() ? la : "<end>") + "' vs '" +
             (pb < b.size() ? lb : "<end>") + "'";
    pa = ea + 1;
    pb = eb + 1;
    ++line;
  }
  return "";
}

inline std::string GclogText(const Snapshot& s) {
  std::string out;
  formats::WriteNetcf(s, [&](std::string_view b) { out.append(b); });
  return out;
}

// An agent on 127.0.0.1 and a free port, serving `runtime`, logging into `log`.
inline std::unique_ptr<agent::Agent> StartAgent(agent::RuntimePort& runtime, LogSink& log,
                                                agent::AgentOptions opt = {}) {
  opt.port = 0;
  opt.log = log.fn();
  auto a = std::make_unique<agent::Agent>(runtime, std::move(opt));
  std::string error;
  if (!a->Start(&error)) return nullptr;
  return a;
}

inline std::string Endpoint(const agent::Agent& a) {
  return "127.0.0.1:" + std::to_string(a.port());
}

// Connects and waits for the handshake; false (with the reason in the test log) otherwise.
inline bool Connected(client::HostClient& c, uint32_t timeout_ms = 20000) {
  c.Connect();
  std::string error;
  const bool ok = c.WaitConnected(timeout_ms, &error);
  if (!ok) ADD_FAILURE() << "cannot connect: " << error;
  return ok;
}

// Runs one capture to its end (any outcome).
inline client::CaptureResult CaptureOnce(client::HostClient& c, uint32_t timeout_ms = 60000) {
  std::string error;
  client::CaptureResult r;
  if (!c.StartCapture(&error)) {
    r.error = error;
    return r;
  }
  if (!c.WaitCapture(timeout_ms, &r)) r.error = "no end of capture within the timeout";
  return r;
}

}  // namespace xrpm::testing
