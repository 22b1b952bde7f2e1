// dotnet-gcdump as the independent reading of a .NET heap for tests/dotnet: where the tool is
// (or why it is not), the program's process id under xrpm-dotnet, and per-type totals of a
// snapshot keyed so that an xrpm capture and a .gcdump of the same collection compare equal.
//
// Keys: the .gcdump names types as PerfView's graph does, not as the runtime does, so both
// sides are reduced to one spelling before they are compared:
//   - a nested type is named by its own name only ("Entry<...>[]" for
//     "Microsoft.CodeAnalysis.ConcurrentCache+Entry<...>[]"): the part before the last '+'
//     outside generic arguments is dropped (inside them both keep "Outer+Inner");
//   - compiler-generated names keep their angle brackets as "[]" ("[]c__DisplayClass0_0");
//     a multi-dimensional array's rank is "<,>"; both become "[]" / "[,]";
//   - arrays larger than 10 KB, 100 KB, 1 MB... get a type of their own, "T[] (Bytes > 10K)":
//     the suffix is dropped (so they count under T[] again);
//   - generic arguments are separated by ", " or "," (spaces are dropped).
// Sizes: an object below the minimum object size (three pointers; only the empty string, 22 B
// on 64-bit) counts the minimum, as the heap lays it out: the profiling API's GetObjectSize2
// says 24 B for it, a .gcdump the unpadded 22 B.
// Two types that reduce to the same key are added together on both sides alike.
//
// Thread-safety: functions of their arguments (the environment and the file system).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "xrpm/model/snapshot.h"
#include "xrpm/protocol/hex_id.h"

namespace xrpm::testing {

// dotnet-gcdump: XRPM_DOTNET_GCDUMP, build/tools (scripts/dotnet_tools.sh), or the PATH; "".
inline std::string FindDotnetGcdump() {
  if (const char* env = std::getenv("XRPM_DOTNET_GCDUMP")) return access(env, X_OK) == 0 ? env : "";
  const std::string installed = std::string(XRPM_DOTNET_TOOLS_DIR) + "/dotnet-gcdump";
  if (access(installed.c_str(), X_OK) == 0) return installed;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/dotnet-gcdump").c_str(), X_OK) == 0)
      return dir + "/dotnet-gcdump";
  return "";
}

// Why dotnet-gcdump is missing, for GTEST_SKIP (the install's own reason when it failed).
inline std::string GcdumpMissingReason() {
  std::ifstream why(std::string(XRPM_DOTNET_TOOLS_DIR) + "/dotnet-gcdump.unavailable");
  std::string reason;
  std::getline(why, reason);
  return "dotnet-gcdump not found" + (reason.empty() ? "" : ": " + reason) +
         " (scripts/dotnet_tools.sh installs it into " XRPM_DOTNET_TOOLS_DIR
         "; or set XRPM_DOTNET_GCDUMP=PATH/dotnet-gcdump)";
}

// The first child of `pid` (xrpm-dotnet's: the program), 0 if none.
inline int FirstChildOf(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  int child = 0;
  f >> child;
  return child;
}

// A type name reduced to the spelling both readings share (the header comment).
inline std::string GcdumpTypeKey(const std::string& name) {
  std::string n = name;
  const size_t bytes_suffix = n.find(" (Bytes > ");
  if (bytes_suffix != std::string::npos && n.back() == ')') n.erase(bytes_suffix);
  std::string out;
  out.reserve(n.size());
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == ' ') continue;
    if (n[i] == '<') {  // "<>" and "<,,>": brackets, as the runtime spells a rank
      size_t j = i + 1;
      while (j < n.size() && n[j] == ',') ++j;
      if (j < n.size() && n[j] == '>') {
        out += '[';
        out.append(n, i + 1, j - i - 1);
        out += ']';
        i = j;
        continue;
      }
    }
    out += n[i];
  }
  int depth = 0;
  size_t cut = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '<' || out[i] == '[') ++depth;
    if (out[i] == '>' || out[i] == ']') --depth;
    if (out[i] == '+' && depth == 0) cut = i + 1;
  }
  return out.substr(cut);
}

struct GcdumpKeyTotals {
  size_t count = 0;
  uint64_t bytes = 0;
  bool operator==(const GcdumpKeyTotals& o) const { return count == o.count && bytes == o.bytes; }
};

// An object's size, at least the minimum object size of `pointer_bytes` pointers (above).
inline uint32_t GcdumpPaddedSize(uint32_t size, uint32_t pointer_bytes) {
  return size < 3 * pointer_bytes ? 3 * pointer_bytes : size;
}

// Objects and bytes (padded to the minimum object size) per GcdumpTypeKey.
inline std::map<std::string, GcdumpKeyTotals> TotalsByGcdumpKey(const Snapshot& s,
                                                                uint32_t pointer_bytes = 8) {
  std::map<std::string, GcdumpKeyTotals> t;
  for (size_t i = 0; i < s.object_count(); ++i) {
    GcdumpKeyTotals& e = t[GcdumpTypeKey(s.type_name_of(i))];
    ++e.count;
    e.bytes += GcdumpPaddedSize(s.object_size[i], pointer_bytes);
  }
  return t;
}

// Up to `limit` objects of type key `key` that differ between the readings: present in one
// only, or of other sizes, by address ("0x7f.. 24 B / 22 B"), for a failure message.
inline std::string GcdumpObjectDifferences(const Snapshot& xrpm, const Snapshot& gcdump,
                                           const std::string& key, size_t limit = 5) {
  std::map<uint64_t, uint32_t> mine, theirs;
  for (size_t i = 0; i < xrpm.object_count(); ++i)
    if (GcdumpTypeKey(xrpm.type_name_of(i)) == key) mine[xrpm.object_id[i]] = xrpm.object_size[i];
  for (size_t i = 0; i < gcdump.object_count(); ++i)
    if (GcdumpTypeKey(gcdump.type_name_of(i)) == key)
      theirs[gcdump.object_id[i]] = gcdump.object_size[i];
  std::string out;
  size_t shown = 0;
  auto show = [&](uint64_t id, const std::string& what) {
    if (shown++ >= limit) return;
    out += "    " + protocol::HexId(id) + " " + what + "\n";
  };
  for (const auto& [id, size] : mine) {
    auto it = theirs.find(id);
    if (it == theirs.end())
      show(id, std::to_string(size) + " B, only in the xrpm capture");
    else if (GcdumpPaddedSize(it->second, 8) != GcdumpPaddedSize(size, 8))
      show(id, std::to_string(size) + " B in the xrpm capture, " + std::to_string(it->second) +
                   " B in the .gcdump");
  }
  for (const auto& [id, size] : theirs)
    if (!mine.count(id)) show(id, std::to_string(size) + " B, only in the .gcdump");
  return out;
}

}  // namespace xrpm::testing
