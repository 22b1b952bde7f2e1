// SessionLog (session_log.h).
// Thread-safety: UI thread only.
#include "xrpm/app/session_log.h"

namespace xrpm::app {
namespace {
constexpr size_t kMaxLog = 500;
}  // namespace

void SessionLog::Add(LogEntry::Level level, std::string text) {
  if (level == LogEntry::kError) last_error_ = text;
  entries_.push_back(LogEntry{level, Now(), std::move(text)});
  while (entries_.size() > kMaxLog) entries_.pop_front();
}

double SessionLog::Now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace xrpm::app
