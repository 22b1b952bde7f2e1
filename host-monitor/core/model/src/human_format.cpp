#include "xrpm/model/human_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace xrpm {

std::string FormatBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v < 10    ? "%.2f %s"
                : v < 100 ? "%.1f %s"
                          : "%.0f %s",
                v, kUnits[u]);
  return buf;
}

std::string FormatSignedBytes(int64_t bytes) {
  if (bytes == 0) return "0 B";
  uint64_t mag = bytes < 0 ? uint64_t(0) - uint64_t(bytes) : uint64_t(bytes);
  return (bytes < 0 ? "-" : "+") + FormatBytes(mag);
}

std::string FormatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatSignedCount(int64_t n) {
  if (n == 0) return "0";
  uint64_t mag = n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n);
  return (n < 0 ? "-" : "+") + FormatCount(mag);
}

std::string FormatShortCount(double n) {
  char buf[32];
  double a = std::fabs(n);
  if (a < 1000)
    std::snprintf(buf, sizeof buf, a == std::floor(a) ? "%.0f" : "%.1f", n);
  else if (a < 1e6)
    std::snprintf(buf, sizeof buf, "%.1f k", n / 1e3);
  else if (a < 1e9)
    std::snprintf(buf, sizeof buf, "%.2f M", n / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f G", n / 1e9);
  return buf;
}

std::string FormatDuration(double s) {
  char buf[32];
  if (s < 0.001)
    std::snprintf(buf, sizeof buf, "%.0f \u00b5s", s * 1e6);
  else if (s < 1.0)
    std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000.0);
  else if (s < 60.0)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600.0)
    std::snprintf(buf, sizeof buf, "%d m %02d s", int(s / 60), int(std::fmod(s, 60.0)));
  else
    std::snprintf(buf, sizeof buf, "%d h %02d m", int(s / 3600), int(std::fmod(s, 3600.0) / 60));
  return buf;
}

std::string FormatPercent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", f * 100.0);
  return buf;
}

std::string FormatHex(uint64_t v, int min_digits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64,
                min_digits < 0    ? 0
                : min_digits > 16 ? 16
                                  : min_digits,
                v);
  return buf;
}

std::string FormatHexDigits(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

}  // namespace xrpm
