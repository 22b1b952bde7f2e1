// Child processes for the runtime ports' benchmarks (bench/mono, bench/dotnet): a program run with
// pipes on stdin, stdout and stderr whose lines are waited for with a timeout, the median of a
// series, the agent's endpoint from its "listening on" line and a host client connected to it.
// Benchmarks only: a polling reader (5 ms) is fine there, never in tests
// (tests/support/subprocess.h).
//
// Thread-safety: one thread drives each Child.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "xrpm/client/host_client.h"

namespace xrpm::bench {

// A child with pipes on stdin, stdout and stderr; lines read with a timeout.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string out_buf, err_buf;

  explicit Child(const std::vector<std::string>& argv) {
    int pi[2], po[2], pe[2];
    if (pipe(pi) || pipe(po) || pipe(pe)) return;
    pid = fork();
    if (pid == 0) {
      dup2(pi[0], 0);
      dup2(po[1], 1);
      dup2(pe[1], 2);
      for (int fd : {pi[0], pi[1], po[0], po[1], pe[0], pe[1]}) close(fd);
      std::vector<char*> a;
      for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
      a.push_back(nullptr);
      execvp(a[0], a.data());
      _exit(127);
    }
    close(pi[0]);
    close(po[1]);
    close(pe[1]);
    in = pi[1];
    out = po[0];
    err = pe[0];
    fcntl(out, F_SETFL, O_NONBLOCK);
    fcntl(err, F_SETFL, O_NONBLOCK);
  }
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
    for (int fd : {in, out, err})
      if (fd >= 0) close(fd);
  }
  static void Pump(int fd, std::string* buf) {
    char b[4096];
    ssize_t n;
    while ((n = read(fd, b, sizeof b)) > 0) buf->append(b, static_cast<size_t>(n));
  }
  // Waits until stdout (or stderr) holds a line containing `text`; returns the whole line and
  // drops it and everything before it ("" on timeout).
  std::string WaitLine(const std::string& text, bool on_err, int timeout_s = 300) {
    std::string& buf = on_err ? err_buf : out_buf;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      Pump(out, &out_buf);
      Pump(err, &err_buf);
      const size_t at = buf.find(text);
      if (at != std::string::npos) {
        const size_t eol = buf.find('\n', at);
        if (eol != std::string::npos) {
          const size_t bol = buf.rfind('\n', at);
          const size_t from = bol == std::string::npos ? 0 : bol + 1;
          std::string line = buf.substr(from, eol - from);
          buf.erase(0, eol + 1);
          return line;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return "";
  }
  void Send(const std::string& line) {
    const std::string l = line + "\n";
    if (write(in, l.data(), l.size()) < 0) std::perror("write");
  }
  int Wait() {
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// A host client connected to the agent at `endpoint` (its handshake within 30 s; a peer
// silent for peer_timeout_ms, 0: the client's default, is gone); null, with *error, when it
// did not connect.
inline std::unique_ptr<client::HostClient> ConnectClient(const std::string& endpoint,
                                                         std::string* error,
                                                         uint32_t peer_timeout_ms = 0) {
  client::ClientOptions o;
  o.endpoint = endpoint;
  if (peer_timeout_ms) o.peer_timeout_ms = peer_timeout_ms;
  auto c = std::make_unique<client::HostClient>(o);
  c->Connect();
  if (!c->WaitConnected(30000, error)) return nullptr;
  return c;
}

// The agent's "127.0.0.1:PORT" from its "xrpm-agent: listening on 127.0.0.1:PORT" line.
inline std::string EndpointOf(const std::string& line) {
  const size_t at = line.find("127.0.0.1:");
  if (at == std::string::npos) return "";
  std::string e = line.substr(at);
  return e.substr(0, e.find(' '));
}

}  // namespace xrpm::bench
