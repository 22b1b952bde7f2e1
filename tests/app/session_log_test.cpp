// The session's log (SessionLog, session_log.h): errors become the status bar's last error until
// cleared, and the log keeps its most recent entries only.
#include "xrpm/app/session_log.h"

#include <gtest/gtest.h>

#include <string>

namespace xrpm::app {
namespace {

TEST(SessionLog, AnErrorIsTheLastErrorUntilCleared) {
  SessionLog log;
  log.Add(LogEntry::kInfo, "Opened a.gclog");
  EXPECT_EQ(log.last_error(), "");
  log.Add(LogEntry::kError, "Could not open b.gclog");
  log.Add(LogEntry::kWarning, "Analysis of a.gclog cancelled");
  EXPECT_EQ(log.last_error(), "Could not open b.gclog");
  ASSERT_EQ(log.entries().size(), 3u);
  EXPECT_EQ(log.entries()[1].level, LogEntry::kError);
  EXPECT_GE(log.entries()[2].time_s, log.entries()[0].time_s);
  log.ClearError();
  EXPECT_EQ(log.last_error(), "");
  EXPECT_EQ(log.entries().size(), 3u) << "clearing the error keeps the log";
}

TEST(SessionLog, KeepsTheMostRecentEntries) {
  SessionLog log;
  for (int i = 0; i < 600; ++i) log.Add(LogEntry::kInfo, "line " + std::to_string(i));
  ASSERT_EQ(log.entries().size(), 500u);
  EXPECT_EQ(log.entries().front().text, "line 100");
  EXPECT_EQ(log.entries().back().text, "line 599");
}

}  // namespace
}  // namespace xrpm::app
