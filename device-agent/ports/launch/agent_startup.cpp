// The agent's side of the start-up handshake: see agent_startup.h.
#include "agent_startup.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xrpm {
namespace launch {

void WriteAgentStatus(const char* fd_env, const std::string& line) {
  const char* fd_text = std::getenv(fd_env);
  if (!fd_text) return;
  const int fd = std::atoi(fd_text);
  unsetenv(fd_env);
  if (fd <= 2) return;  // never the program's own stdin, stdout or stderr
  const std::string out = line + "\n";
  ssize_t ignored = write(fd, out.data(), out.size());
  (void)ignored;
  close(fd);
}

void FailAgentStartup(const char* fd_env, const std::string& why) {
  std::fprintf(stderr, "xrpm-agent: %s\n", why.c_str());
  WriteAgentStatus(fd_env, "error " + why);
  std::fflush(stderr);
  std::_Exit(2);
}

std::vector<std::string> ProcessArguments() {
  std::vector<std::string> args;
  FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return args;
  std::string all;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && all.size() < (1u << 20)) all.append(buf, n);
  std::fclose(f);
  for (size_t pos = 0; pos < all.size();) {
    args.emplace_back(all.c_str() + pos);
    pos += args.back().size() + 1;
  }
  return args;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string FirstFileWithExtension(const std::vector<std::string>& args,
                                   std::initializer_list<const char*> extensions) {
  for (const std::string& arg : args) {
    if (arg.empty() || arg[0] == '-') continue;
    for (const char* ext : extensions) {
      const size_t n = std::strlen(ext);
      if (arg.size() <= n) continue;
      bool same = true;
      for (size_t i = 0; i < n && same; ++i)
        same = std::tolower(static_cast<unsigned char>(arg[arg.size() - n + i])) ==
               std::tolower(static_cast<unsigned char>(ext[i]));
      if (same) return BaseName(arg);
    }
  }
  return "";
}

}  // namespace launch
}  // namespace xrpm
