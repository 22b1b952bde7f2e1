// SessionLog: what happened in the monitor's session, in plain words, one line per event, with
// the time since the session started. Every part of the session (app_session.h) writes to the
// one log; the Log panel lists it, the status bar shows the last error, scripts assert on both.
// It keeps the last 500 entries.
//
// Thread-safety: not thread-safe; UI thread only (worker tasks log from their completions,
// which run on the UI thread).
#pragma once

#include <chrono>
#include <deque>
#include <string>

namespace xrpm::app {

struct LogEntry {
  enum Level { kInfo, kWarning, kError } level = kInfo;
  double time_s = 0;  // seconds since the session started
  std::string text;
};

class SessionLog {
 public:
  // Appends an entry; an error also becomes last_error().
  void Add(LogEntry::Level level, std::string text);
  const std::deque<LogEntry>& entries() const { return entries_; }
  // The last error message, cleared by ClearError (shown in the status bar).
  const std::string& last_error() const { return last_error_; }
  void ClearError() { last_error_.clear(); }
  // Seconds since the session started (the clock of the entries and of auto capture).
  double Now() const;

 private:
  std::deque<LogEntry> entries_;
  std::string last_error_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace xrpm::app
