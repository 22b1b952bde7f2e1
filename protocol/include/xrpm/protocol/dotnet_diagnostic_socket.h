// The name of a CoreCLR process's diagnostics socket, as the launcher's attach
// (device-agent/ports/dotnet) and the monitor's list of local .NET processes (app) read it:
// "dotnet-diagnostic-{pid}-{key}-socket" in the process's TMPDIR, where {key} is the process's
// start time as /proc/{pid}/stat gives it (field 22, clock ticks since boot; the runtime's
// "disambiguation key"). A socket whose key is not its process's start time was left by an earlier
// process that had the same PID (one killed before it could remove it): connecting to it fails,
// and it must not make a process that is not .NET look like one.
//
// Thread-safety: plain functions on values.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace xrpm {
namespace protocol {

struct DiagnosticSocketName {
  pid_t pid = 0;
  uint64_t key = 0;
};

// Parses a socket's file name; false when it is not one (no key, not digits, too large).
inline bool ParseDiagnosticSocketName(const std::string& name, DiagnosticSocketName* out) {
  static const char kPrefix[] = "dotnet-diagnostic-";
  static const char kSuffix[] = "-socket";
  const size_t pre = sizeof kPrefix - 1, suf = sizeof kSuffix - 1;
  if (name.size() <= pre + suf || name.compare(0, pre, kPrefix) != 0 ||
      name.compare(name.size() - suf, suf, kSuffix) != 0)
    return false;
  const size_t end = name.size() - suf;
  uint64_t pid = 0;
  size_t i = pre;
  for (; i < end && name[i] >= '0' && name[i] <= '9'; ++i) {
    pid = pid * 10 + static_cast<uint64_t>(name[i] - '0');
    if (pid > 0x3FFFFFFF) return false;
  }
  if (i == pre || i >= end || name[i] != '-') return false;
  uint64_t key = 0;
  const size_t key_at = ++i;
  for (; i < end && name[i] >= '0' && name[i] <= '9'; ++i) {
    if (key > (UINT64_MAX - 9) / 10) return false;
    key = key * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  if (i == key_at || i != end) return false;
  out->pid = static_cast<pid_t>(pid);
  out->key = key;
  return true;
}

// The start time (field 22) in the text of /proc/{pid}/stat; 0 when it is not there. The command
// name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
inline uint64_t StartKeyFromStat(const std::string& stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  size_t at = close + 1;
  for (int field = 3; field <= 22; ++field) {
    while (at < stat.size() && stat[at] == ' ') ++at;
    if (at >= stat.size()) return 0;
    if (field == 22) {
      uint64_t v = 0;
      size_t digits = 0;
      for (; at < stat.size() && stat[at] >= '0' && stat[at] <= '9'; ++at, ++digits) {
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + static_cast<uint64_t>(stat[at] - '0');
      }
      return digits ? v : 0;
    }
    while (at < stat.size() && stat[at] != ' ') ++at;
  }
  return 0;
}

// The start key of running process `pid` (its /proc/{pid}/stat); 0 when it cannot be read.
inline uint64_t ProcessStartKey(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  return StartKeyFromStat(std::string(buf, n));
}

// Whether a socket named `name` belongs to the process now running as its PID (not one left by
// an earlier process with that PID); true when the start key cannot be read (then the socket
// is tried, and a stale one fails to connect).
inline bool DiagnosticSocketIsCurrent(const DiagnosticSocketName& name) {
  const uint64_t key = ProcessStartKey(name.pid);
  return key == 0 || key == name.key;
}

}  // namespace protocol
}  // namespace xrpm
