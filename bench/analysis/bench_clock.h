// Wall-clock and memory readings shared by the analysis benchmarks (header-only).
//
// Thread-safety: reentrant (reads the clock and /proc of this process).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

namespace xrpm::bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}
// CPU time of the whole process so far (every thread, user + system).
inline double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
inline double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}
inline double CurrentRssMiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return double(resident) * 4096.0 / (1 << 20);
}

}  // namespace xrpm::bench
