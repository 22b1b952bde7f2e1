#include "xrpm/emulator/stat_file.h"

#include <cstdio>
#include <vector>

#include "xrpm/model/atomic_file.h"

namespace xrpm::emulator {

std::string FormatStatTable(const agent::RuntimePort& port) {
  const size_t n = port.CounterCount();
  std::vector<agent::CounterValue> values(n);
  port.SampleCounters(values.data(), n);
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-45s %14s %12s %10s %12s %12s %12s\n", "counter", "total",
                "last datum", "n", "mean", "min", "max");
  out += line;
  for (size_t i = 0; i < n; ++i) {
    agent::CounterInfo info = port.DescribeCounter(i);
    const agent::CounterValue& v = values[i];
    if (v.n == 0) {
      std::snprintf(line, sizeof line, "%-45s %14lld %12s %10s %12s %12s %12s\n", info.name,
                    static_cast<long long>(v.total), "-", "-", "-", "-", "-");
    } else {
      std::snprintf(line, sizeof line, "%-45s %14lld %12lld %10llu %12.0f %12lld %12lld\n",
                    info.name, static_cast<long long>(v.total), static_cast<long long>(v.last),
                    static_cast<unsigned long long>(v.n), v.mean, static_cast<long long>(v.min),
                    static_cast<long long>(v.max));
    }
    out += line;
  }
  return out;
}

void WriteStatFile(const agent::RuntimePort& port, const std::string& path) {
  AtomicFile f(path);
  f.Write(FormatStatTable(port));
  f.Commit();
}

}  // namespace xrpm::emulator
