// Test helper: what /proc says of a process ("self" or a pid): a /proc/PID/status figure in
// KiB (VmRSS, RssAnon: 0 when absent or unreadable) and how many descriptors it has open, for
// tests that check memory and descriptors stay flat or that a piece of code brought nothing in.
//
// Thread-safety: reentrant.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace xrpm::testing {

inline uint64_t StatusKiB(const std::string& pid, const std::string& field) {
  std::ifstream in("/proc/" + pid + "/status");
  const std::string key = field + ":";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size()));
  return 0;
}
inline uint64_t StatusKiB(pid_t pid, const std::string& field) {
  return StatusKiB(std::to_string(pid), field);
}

inline size_t OpenFiles(const std::string& pid) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::directory_iterator fds("/proc/" + pid + "/fd", ec);
  return ec ? 0 : static_cast<size_t>(std::distance(fds, fs::directory_iterator()));
}
inline size_t OpenFiles(pid_t pid) {
  return OpenFiles(std::to_string(pid));
}

}  // namespace xrpm::testing
