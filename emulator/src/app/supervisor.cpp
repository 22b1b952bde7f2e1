#include "supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace xrpm::emulator {

Supervisor::Supervisor() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0)
    throw std::runtime_error("pthread_sigmask failed");
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  event_fd_ = eventfd(0, EFD_CLOEXEC);
  if (signal_fd_ < 0 || event_fd_ < 0)
    throw std::runtime_error(std::string("signalfd/eventfd: ") + std::strerror(errno));
}

Supervisor::~Supervisor() {
  if (signal_fd_ >= 0) close(signal_fd_);
  if (event_fd_ >= 0) close(event_fd_);
}

void Supervisor::NotifyFinished() {
  uint64_t one = 1;
  ssize_t r = write(event_fd_, &one, sizeof one);
  (void)r;
}

Supervisor::Reason Supervisor::Wait(double duration_s, const std::function<void()>& status) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto next_status = start + std::chrono::seconds(1);
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(duration_s));
  for (;;) {
    auto now = Clock::now();
    if (duration_s > 0 && now >= deadline) return Reason::kDuration;
    if (now >= next_status) {
      if (status) status();
      next_status += std::chrono::seconds(1);
      continue;
    }
    auto until = next_status;
    if (duration_s > 0 && deadline < until) until = deadline;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {event_fd_, POLLIN, 0}};
    int n = poll(fds, 2, static_cast<int>(ms));
    if (n < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (n <= 0) continue;
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info;
      if (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info))
        signal_ = static_cast<int>(info.ssi_signo);
      return Reason::kSignal;
    }
    if (fds[1].revents & POLLIN) return Reason::kFinished;
  }
}

}  // namespace xrpm::emulator
