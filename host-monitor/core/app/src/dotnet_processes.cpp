// DotnetProcesses: diagnostics sockets by name, live PIDs and their programs' names.
#include "xrpm/app/dotnet_processes.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "xrpm/protocol/dotnet_diagnostic_socket.h"

namespace xrpm::app {
namespace {

bool Alive(pid_t pid) {
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

int64_t MtimeNs(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

bool EndsWithDll(const std::string& s) {
  if (s.size() < 4) return false;
  std::string ext = s.substr(s.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".dll";
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

pid_t DiagnosticSocketPid(const std::string& name) {
  protocol::DiagnosticSocketName parsed;
  return protocol::ParseDiagnosticSocketName(name, &parsed) ? parsed.pid : 0;
}

std::vector<std::string> DefaultSocketDirs() {
  std::vector<std::string> dirs;
  auto add = [&](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  };
  if (const char* tmp = std::getenv("TMPDIR")) add(tmp);
  add("/tmp");
  return dirs;
}

std::string DotnetProcessName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  if (!in) return "";
  std::string all;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    all.append(buf, static_cast<size_t>(in.gcount()));
    if (all.size() > (1u << 16)) break;
  }
  std::vector<std::string> args;
  for (size_t at = 0; at < all.size();) {
    args.emplace_back(all.c_str() + at);
    at += args.back().size() + 1;
  }
  if (args.empty()) return "";
  for (size_t i = 1; i < args.size(); ++i)
    if (!args[i].empty() && args[i][0] != '-' && EndsWithDll(args[i])) return BaseName(args[i]);
  return BaseName(args[0]);
}

std::vector<DotnetProcess> ListDotnetProcesses(const std::vector<std::string>& dirs) {
  std::map<pid_t, std::pair<int64_t, std::string>> newest;
  const pid_t self = getpid();
  for (const std::string& dir : dirs) {
    DIR* d = opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = readdir(d)) {
      protocol::DiagnosticSocketName name;
      if (!protocol::ParseDiagnosticSocketName(e->d_name, &name)) continue;
      const pid_t pid = name.pid;
      if (pid <= 0 || pid == self || !Alive(pid)) continue;
      if (!protocol::DiagnosticSocketIsCurrent(name)) continue;  // an earlier process's
      const std::string path = dir + "/" + e->d_name;
      const int64_t mtime = MtimeNs(path);
      auto it = newest.find(pid);
      if (it == newest.end() || mtime > it->second.first) newest[pid] = {mtime, path};
    }
    closedir(d);
  }
  std::vector<DotnetProcess> out;
  for (const auto& [pid, socket] : newest) {
    std::string name = DotnetProcessName(pid);
    out.push_back({pid, name.empty() ? "?" : name, socket.second});
  }
  return out;
}

}  // namespace xrpm::app
