// DiagnosticsIpc: the AttachProfiler request and response, socket discovery and the client data.
#include "diagnostics_ipc.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wire_bytes.h"
#include "xrpm/protocol/dotnet_diagnostic_socket.h"

namespace xrpm {
namespace dotnet {
namespace ipc {
namespace {

constexpr char kMagic[14] = "DOTNET_IPC_V1";  // and its NUL
constexpr const char* kClientDataFirstLine = "xrpm-attach 1";

// "dotnet-diagnostic-PID-KEY-socket" -> PID; 0 when the name is not one.
int64_t MtimeNs(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

bool EncodeAttachRequest(const AttachRequest& request, std::vector<uint8_t>* out,
                         std::string* error) {
  std::vector<uint16_t> path;
  if (!Utf8ToUtf16(request.library_path, &path)) {
    *error = "the library path is not valid UTF-8 (or holds a NUL): " + request.library_path;
    return false;
  }
  path.push_back(0);
  const size_t size = kHeaderBytes + 4 + 16 + 4 + 2 * path.size() + 4 + request.client_data.size();
  if (size > kMaxMessageBytes) {
    *error = "the attach request would be " + std::to_string(size) + " bytes (at most " +
             std::to_string(kMaxMessageBytes) + ")";
    return false;
  }
  out->clear();
  out->reserve(size);
  for (char c : kMagic) out->push_back(static_cast<uint8_t>(c));
  PutLe16(out, static_cast<uint32_t>(size));
  out->push_back(kCommandSetProfiler);
  out->push_back(kCommandAttachProfiler);
  PutLe16(out, 0);
  PutLe32(out, request.timeout_ms);
  for (uint8_t b : request.clsid) out->push_back(b);
  PutLe32(out, static_cast<uint32_t>(path.size()));
  for (uint16_t u : path) PutLe16(out, u);
  PutLe32(out, static_cast<uint32_t>(request.client_data.size()));
  for (char c : request.client_data) out->push_back(static_cast<uint8_t>(c));
  return true;
}

ParseStatus ParseResponse(const uint8_t* data, size_t size, Response* out, std::string* error,
                          size_t* need) {
  if (need) *need = kHeaderBytes;
  // The magic first, byte by byte: a wrong byte is reported as soon as it arrived.
  for (size_t i = 0; i < sizeof kMagic && i < size; ++i)
    if (data[i] != static_cast<uint8_t>(kMagic[i])) {
      *error = "byte " + std::to_string(i) + ": expected the magic \"DOTNET_IPC_V1\\0\" (" +
               Hex(static_cast<uint8_t>(kMagic[i]), 2) + "), found " + Hex(data[i], 2);
      return ParseStatus::kBad;
    }
  if (size < kHeaderBytes) return ParseStatus::kIncomplete;
  const uint32_t total = GetLe16(data + 14);
  const uint8_t set = data[16], id = data[17];
  if (total < kHeaderBytes + 4) {
    *error = "byte 14: expected a message size of at least " + std::to_string(kHeaderBytes + 4) +
             " (header and HRESULT), found " + std::to_string(total);
    return ParseStatus::kBad;
  }
  if (set != kCommandSetServer) {
    *error = "byte 16: expected the server command set " + Hex(kCommandSetServer, 2) +
             " of a response, found " + Hex(set, 2);
    return ParseStatus::kBad;
  }
  if (id != kResponseOk && id != kResponseError) {
    *error = "byte 17: expected the response id " + Hex(kResponseOk, 2) + " (OK) or " +
             Hex(kResponseError, 2) + " (error), found " + Hex(id, 2);
    return ParseStatus::kBad;
  }
  if (need) *need = total;
  if (size < total) return ParseStatus::kIncomplete;
  out->ok = id == kResponseOk;
  out->hresult = GetLe32(data + kHeaderBytes);
  return ParseStatus::kComplete;
}

std::string DescribeAttachResult(uint32_t hr) {
  switch (hr) {
    case 0:
      return "";
    case kUnknownCommand:
    case kNotSupported:
      return "this runtime does not support attaching a profiler (.NET Core 3.0 or later on "
             "Linux is needed)";
    case kUnknownMagic:
    case kBadEncoding:
      return "the runtime did not understand the attach request (" + Hex(hr, 8) + ")";
    case kNotYetAvailable:
    case kRuntimeUninitialized:
      return "the runtime is still starting: try again in a moment";
    case kProfilerAlreadyActive:
      return "a profiler is already loaded in the process (xrpm's agent, attached or started "
             "with it, or another tool's): the runtime allows one";
    case kProfilerNotAttachable:
      return "the profiler refused to attach";
    default:
      return "the runtime refused the attach (" + Hex(hr, 8) + ")";
  }
}

std::vector<std::string> FindSockets(pid_t pid, const std::vector<std::string>& dirs) {
  std::vector<std::pair<int64_t, std::string>> found;
  for (const std::string& dir : dirs) {
    DIR* d = opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = readdir(d)) {
      protocol::DiagnosticSocketName name;
      if (!protocol::ParseDiagnosticSocketName(e->d_name, &name) || name.pid != pid) continue;
      if (!protocol::DiagnosticSocketIsCurrent(name)) continue;  // an earlier process's
      const std::string path = dir + "/" + e->d_name;
      found.emplace_back(MtimeNs(path), path);
    }
    closedir(d);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(std::move(f.second));
  return paths;
}

std::vector<std::string> SocketDirsOf(pid_t pid) {
  std::vector<std::string> dirs;
  auto add = [&](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  };
  // The process's own TMPDIR: /proc/PID/environ, NUL-separated (readable for our own processes).
  const std::string environ = "/proc/" + std::to_string(pid) + "/environ";
  if (FILE* f = std::fopen(environ.c_str(), "rb")) {
    std::string entry;
    int c;
    size_t read = 0;
    while ((c = std::fgetc(f)) != EOF && ++read < (1u << 20)) {
      if (c != 0) {
        if (entry.size() < 4096) entry.push_back(static_cast<char>(c));
        continue;
      }
      if (entry.compare(0, 7, "TMPDIR=") == 0) add(entry.substr(7));
      entry.clear();
    }
    std::fclose(f);
  }
  if (const char* tmp = std::getenv("TMPDIR")) add(tmp);
  add("/tmp");
  return dirs;
}

bool AttachProfiler(const std::string& socket_path, const AttachRequest& request, int timeout_ms,
                    Response* response, std::string* error) {
  std::vector<uint8_t> message;
  if (!EncodeAttachRequest(request, &message, error)) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) {
    *error = "the socket path is too long: " + socket_path;
    return false;
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error =
        "cannot connect to " + socket_path + ": " + std::strerror(errno) +
        (errno == ECONNREFUSED ? " (nobody listens: a socket left by a process that ended?)" : "");
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto left_ms = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    return static_cast<int>(std::max<int64_t>(0, left));
  };
  for (size_t sent = 0; sent < message.size();) {
    const ssize_t n = send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("sending the attach request: ") + std::strerror(errno);
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  std::vector<uint8_t> in;
  for (;;) {
    size_t need = kHeaderBytes;
    switch (ParseResponse(in.data(), in.size(), response, error, &need)) {
      case ParseStatus::kComplete:
        return true;
      case ParseStatus::kBad:
        *error = "a malformed response from the runtime: " + *error;
        return false;
      case ParseStatus::kIncomplete:
        break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, left_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      *error = "no response from the runtime within " + std::to_string(timeout_ms / 1000) + " s";
      return false;
    }
    uint8_t buf[256];
    const size_t want = std::min(sizeof buf, need - in.size());
    const ssize_t n = recv(fd, buf, want, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = in.empty() ? "the runtime closed the connection without a response (is the "
                            "process exiting?)"
                          : "the runtime closed the connection after " + std::to_string(in.size()) +
                                " bytes of a " + std::to_string(need) + "-byte response";
      return false;
    }
    in.insert(in.end(), buf, buf + n);
  }
}

std::string FormatClientData(const AttachClientData& data) {
  std::string s = std::string(kClientDataFirstLine) + "\noptions=" + data.options + "\n";
  if (!data.token.empty()) s += "token=" + data.token + "\n";
  if (!data.status.empty()) s += "status=" + data.status + "\n";
  return s;
}

bool ParseClientData(const uint8_t* data, size_t size, AttachClientData* out, std::string* error) {
  if (size > kMaxClientData) {
    *error = "the client data is " + std::to_string(size) + " bytes (at most " +
             std::to_string(kMaxClientData) + ")";
    return false;
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    *error = "client data byte " + std::to_string(nul) + ": expected text, found a NUL";
    return false;
  }
  *out = AttachClientData{};
  bool have_options = false, have_token = false, have_status = false;
  size_t at = 0;
  for (size_t line = 1; at < text.size(); ++line) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string l = text.substr(at, end - at);
    const size_t offset = at;
    at = end + 1;
    if (line == 1) {
      if (l != kClientDataFirstLine) {
        *error = "client data line 1: expected \"" + std::string(kClientDataFirstLine) +
                 "\", found \"" + l.substr(0, 40) + "\"";
        return false;
      }
      continue;
    }
    const size_t eq = l.find('=');
    if (eq == std::string::npos) {
      *error = "client data line " + std::to_string(line) + " (byte " + std::to_string(offset) +
               "): expected KEY=VALUE, found \"" + l.substr(0, 40) + "\"";
      return false;
    }
    const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
    bool* seen = key == "options"  ? &have_options
                 : key == "token"  ? &have_token
                 : key == "status" ? &have_status
                                   : nullptr;
    if (!seen || *seen) {
      *error = "client data line " + std::to_string(line) + ": expected options=, token= or " +
               "status= once each, found " + (seen ? "a second " : "") + "\"" + key.substr(0, 40) +
               "=\"";
      return false;
    }
    *seen = true;
    (key == "options" ? out->options : key == "token" ? out->token : out->status) = value;
  }
  if (text.empty() || text.compare(0, std::strlen(kClientDataFirstLine), kClientDataFirstLine)) {
    *error = "client data: expected \"" + std::string(kClientDataFirstLine) + "\" first";
    return false;
  }
  if (!have_options) {
    *error = "client data: expected an options= line, found none";
    return false;
  }
  return true;
}

}  // namespace ipc
}  // namespace dotnet
}  // namespace xrpm
