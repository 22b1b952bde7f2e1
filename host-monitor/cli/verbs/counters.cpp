// `xrpm counters --connect HOST:PORT [--interval MS] [--duration S] [--csv F]`: samples the
// device's live counters for a while, prints the final table (like the NETCF Remote
// Performance Monitor: total, per-second rate, n, mean, min, max) and optionally writes every
// sample to CSV (one row per counter per sample, written atomically).
#include <cmath>
#include <cstdio>
#include <thread>

#include "shared/common.h"
#include "shared/connect.h"
#include "shared/verb.h"
#include "xrpm/client/counter_csv.h"

namespace xrpm::cli {
namespace verb_counters {

struct Opts {
  ConnectOptions connect;
  uint32_t interval_ms = 100;
  double duration_s = 5;
  std::string csv;
  bool json = false;
};

std::string Num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

int Run(const Opts& o) {
  const size_t expected = static_cast<size_t>(o.duration_s * 1000 / o.interval_ms) + 16;
  auto c = ConnectForCli(o.connect, expected);
  c->SubscribeCounters(o.interval_ms);
  const bool tty = StderrIsTerminal();
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(o.duration_s));
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_until(
        std::min(end, std::chrono::steady_clock::now() + std::chrono::milliseconds(250)));
    if (c->state() != client::ConnectionState::kConnected) break;
    if (tty)
      std::fprintf(stderr, "\r\033[Ksampling every %u ms: %s samples", c->counters().interval_ms(),
                   FormatCount(c->counters().received()).c_str());
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  const auto d = c->counters().descriptors();
  const auto rows = c->counters().Since(0);
  if (c->state() != client::ConnectionState::kConnected && rows.empty()) {
    std::fprintf(stderr, "xrpm counters: %s\n", c->last_error().c_str());
    return kExitBadInput;
  }
  if (rows.empty()) {
    std::fprintf(stderr, "xrpm counters: no samples received in %.1f s\n", o.duration_s);
    return kExitBadInput;
  }
  if (!o.csv.empty()) client::WriteCounterCsv(o.csv, d, rows);

  const auto& first = rows.front();
  const auto& last = rows.back();
  // Device time when its clock moved, else the host's receive times.
  const double span_s = last.boot_ms > first.boot_ms
                            ? static_cast<double>(last.boot_ms - first.boot_ms) / 1000.0
                            : last.host_s - first.host_s;
  auto rate = [&](size_t i) {
    return span_s > 0 ? static_cast<double>(last.values[i].total - first.values[i].total) / span_s
                      : 0.0;
  };
  if (o.json) {
    nlohmann::json counters = nlohmann::json::array();
    for (size_t i = 0; i < d.size() && i < last.values.size(); ++i) {
      const auto& v = last.values[i];
      counters.push_back({{"category", d[i].category},
                          {"name", d[i].name},
                          {"unit", d[i].unit},
                          {"total", v.total},
                          {"per_second", rate(i)},
                          {"last", v.last},
                          {"n", v.n},
                          {"mean", v.mean},
                          {"min", v.min},
                          {"max", v.max}});
    }
    PrintJson({{"endpoint", c->device().endpoint},
               {"app", c->device().app_name},
               {"interval_ms", c->counters().interval_ms()},
               {"samples", rows.size()},
               {"seconds", span_s},
               {"counters", counters}});
    return kExitOk;
  }
  std::printf("%s on %s: %zu samples over %.1f s (every %u ms)\n", c->device().app_name.c_str(),
              c->device().endpoint.c_str(), rows.size(), span_s, c->counters().interval_ms());
  std::string category;
  TextTable t({{"counter"},
               {"total", TextTable::Align::kRight},
               {"per s", TextTable::Align::kRight},
               {"n", TextTable::Align::kRight},
               {"mean", TextTable::Align::kRight},
               {"min", TextTable::Align::kRight},
               {"max", TextTable::Align::kRight}});
  for (size_t i = 0; i < d.size() && i < last.values.size(); ++i) {
    if (d[i].category != category) {
      category = d[i].category;
      t.AddRow({category + ":", "", "", "", "", "", ""});
    }
    const auto& v = last.values[i];
    t.AddRow({"  " + d[i].name, std::to_string(v.total), Num(std::round(rate(i) * 10) / 10),
              FormatCount(v.n), Num(v.mean), std::to_string(v.min), std::to_string(v.max)});
  }
  t.Print();
  return kExitOk;
}

VerbRegistration reg{"counters", "Sample the live performance counters of a device agent",
                     [](CLI::App& cmd) -> VerbRun {
                       auto o = std::make_shared<Opts>();
                       AddConnectOptions(cmd, o->connect);
                       cmd.add_option("--interval", o->interval_ms,
                                      "Sampling interval in ms (>= 10)")
                           ->check(CLI::Range(10u, 60000u))
                           ->capture_default_str();
                       cmd.add_option("--duration", o->duration_s, "Seconds to sample")
                           ->check(CLI::PositiveNumber)
                           ->capture_default_str();
                       cmd.add_option("--csv", o->csv, "Write every sample to this CSV file");
                       AddJsonFlag(cmd, o->json);
                       return [o] { return Run(*o); };
                     }};

}  // namespace verb_counters
}  // namespace xrpm::cli
