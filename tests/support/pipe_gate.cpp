// PipeGate: see pipe_gate.h.
#include "pipe_gate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

namespace xrpm::testing {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

PipeGate::PipeGate(std::string path) : path_(std::move(path)) {
  if (mkfifo(path_.c_str(), 0600) != 0) {
    error_ = "mkfifo " + path_ + ": " + strerror(errno);
    return;
  }
  // Non-blocking: opening the reading end of a FIFO that has no writer yet would block.
  fd_ = open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    error_ = "open " + path_ + ": " + strerror(errno);
    return;
  }
  // The smallest capacity (one page): the writer blocks after writing a page.
  if (fcntl(fd_, F_SETPIPE_SZ, 4096) < 0) error_ = "F_SETPIPE_SZ " + path_ + ": " + strerror(errno);
}

PipeGate::~PipeGate() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
}

bool PipeGate::WaitForWriter(uint32_t timeout_ms, const std::function<bool()>& alive) {
  if (fd_ < 0) return false;
  const int64_t end = NowMs() + timeout_ms;
  for (;;) {
    // Before any writer opened the FIFO, poll() reports nothing (Linux reports POLLHUP only
    // after a writer came and went); bytes waiting are the signal that the program got there.
    int waiting = 0;
    if (ioctl(fd_, FIONREAD, &waiting) == 0 && waiting > 0) return true;
    const int64_t left = end - NowMs();
    if (left <= 0 || !alive()) return false;
    pollfd p{fd_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left < 100 ? left : 100));
    if (r < 0 && errno != EINTR) return false;
  }
}

bool PipeGate::Drain(uint32_t timeout_ms, std::string* out) {
  if (fd_ < 0) return false;
  const int64_t end = NowMs() + timeout_ms;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n > 0) {
      out->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return true;  // the writer closed the file (it had opened it: bytes came first)
    if (errno != EAGAIN && errno != EINTR) return false;
    const int64_t left = end - NowMs();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    poll(&p, 1, static_cast<int>(left < 1000 ? left : 1000));
  }
}

}  // namespace xrpm::testing
