// Processes as /proc shows them, for the tests of snapshot walks (a copy-on-write child of a
// runtime, held stopped by a port's test hook): a process's state and parent, its children,
// the first stopped process below a launcher, whether a process is gone.
//
// Thread-safety: stateless.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace xrpm::testing {

// The state letter and parent of /proc/PID/stat; false when there is no such process.
inline bool ReadStat(pid_t pid, char* state, pid_t* ppid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  return static_cast<bool>(rest >> *state >> *ppid);
}

inline std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    char state;
    pid_t ppid;
    if (ReadStat(std::stoi(name), &state, &ppid) && ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

// A stopped (state 'T') process among the children and grandchildren of `root`, polled until
// `timeout_ms`: a snapshot child exists only once the capture's collection ran. -1 when none.
inline pid_t WaitForStoppedGrandchild(pid_t root, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    for (pid_t child : ChildrenOf(root))
      for (pid_t grandchild : ChildrenOf(child)) {
        char state;
        pid_t ppid;
        if (ReadStat(grandchild, &state, &ppid) && state == 'T') return grandchild;
      }
    ::usleep(10000);  // polling a condition, not timing: each try only costs time
  }
  return -1;
}

// No such process (exited and reaped).
inline bool Gone(pid_t pid) {
  char state;
  pid_t ppid;
  return !ReadStat(pid, &state, &ppid);
}

}  // namespace xrpm::testing
