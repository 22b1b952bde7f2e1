#include "xrpm/client/counter_csv.h"

#include <cstdio>

#include "xrpm/model/atomic_file.h"

namespace xrpm::client {
namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string Num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

const char* CounterCsvHeader() {
  return "host_s,boot_ms,seq,category,counter,unit,total,last,n,mean,min,max";
}

void WriteCounterCsv(const std::string& path, const std::vector<CounterDescriptor>& d,
                     const std::vector<CounterSampleRow>& rows) {
  AtomicFile f(path);
  f.Write(std::string(CounterCsvHeader()) + "\n");
  for (const auto& r : rows)
    for (size_t i = 0; i < r.values.size() && i < d.size(); ++i) {
      const CounterReading& v = r.values[i];
      f.Write(Num(r.host_s) + "," + std::to_string(r.boot_ms) + "," + std::to_string(r.seq) + "," +
              CsvField(d[i].category) + "," + CsvField(d[i].name) + "," + CsvField(d[i].unit) +
              "," + std::to_string(v.total) + "," + std::to_string(v.last) + "," +
              std::to_string(v.n) + "," + Num(v.mean) + "," + std::to_string(v.min) + "," +
              std::to_string(v.max) + "\n");
    }
  f.Commit();
}

}  // namespace xrpm::client
