// netcf_bench: the NETCF reader/writer benchmark driver (a plain main; each measurement runs in
// its own process so getrusage's peak RSS belongs to that measurement alone).
//
//   netcf_bench gen N SEED OUT         write a realistic canonical dump of N objects
//   netcf_bench parse FILE [THREADS]   load it; print time, MB/s, objects/s, peak RSS
//   netcf_bench write FILE OUT         load it, then time writing it back (atomic file)
//   netcf_bench xrpm-write FILE X G    load the .gclog FILE, then time writing it as .xrpm (X) and
//                                      as .gclog (G), one after the other: the same-run ratio
//   netcf_bench xrpm-open X [THREADS]  open the .xrpm X; print time, peak RSS against the model
//
// Output is one line of key=value pairs for run_bench.sh to collect.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../analysis/bench_clock.h"
#include "netcf_gen.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/atomic_file.h"

using namespace xrpm;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using bench::CpuSeconds;

long MaxRssKb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

uint64_t FileBytes(const char* path) {
  uint64_t bytes = 0;
  if (FILE* f = std::fopen(path, "rb")) {
    std::fseek(f, 0, SEEK_END);
    bytes = static_cast<uint64_t>(std::ftell(f));
    std::fclose(f);
  }
  return bytes;
}

int Usage() {
  std::fprintf(stderr,
               "usage: netcf_bench gen N SEED OUT | parse FILE [THREADS] | write FILE OUT |\n"
               "       xrpm-write FILE OUT.xrpm OUT.gclog | xrpm-open FILE.xrpm [THREADS]\n");
  return 2;
}

Snapshot Load(const char* path, unsigned threads, double& seconds, double& cpu, long& rss_before,
              long& rss_after) {
  Diagnostics d;
  formats::ReadOptions ro;
  ro.threads = threads;
  rss_before = MaxRssKb();
  const double c0 = CpuSeconds();
  const double t0 = Now();
  Snapshot s = formats::ReadNetcfFile(path, d, ro);
  seconds = Now() - t0;
  cpu = CpuSeconds() - c0;
  rss_after = MaxRssKb();
  if (!d.empty())
    std::fprintf(stderr, "netcf_bench: %llu diagnostics, first: %s\n",
                 static_cast<unsigned long long>(d.total()), d.kept().front().ToString().c_str());
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string mode = argv[1];
  try {
    if (mode == "gen" && argc == 5) {
      const uint64_t n = std::strtoull(argv[2], nullptr, 10);
      AtomicFile f(argv[4]);
      testing::WriteGameHeap(n, std::strtoull(argv[3], nullptr, 10),
                             [&](std::string_view b) { f.Write(b); });
      f.Commit();
      std::printf("bytes=%llu objects=%llu\n", static_cast<unsigned long long>(f.bytes_written()),
                  static_cast<unsigned long long>(n));
      return 0;
    }
    if (mode == "parse" && (argc == 3 || argc == 4)) {
      double secs, cpu;
      long before, after;
      Snapshot s = Load(argv[2], argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 0, secs,
                        cpu, before, after);
      uint64_t bytes = 0;
      if (FILE* f = std::fopen(argv[2], "rb")) {
        std::fseek(f, 0, SEEK_END);
        bytes = static_cast<uint64_t>(std::ftell(f));
        std::fclose(f);
      }
      const double peak = static_cast<double>(after - before) * 1024.0;
      const double model = static_cast<double>(s.MemoryBytes());
      const double budget =
          48.0 * static_cast<double>(s.object_count()) + 8.0 * static_cast<double>(s.ref_count());
      std::printf(
          "parse_s=%.3f parse_cpu_s=%.3f bytes=%llu objects=%zu refs=%zu roots=%zu MBps=%.0f "
          "Mobjps=%.2f "
          "peak_rss_delta_MB=%.1f peak_per_object=%.1f peak_vs_budget=%.2f model_MB=%.1f\n",
          secs, cpu, static_cast<unsigned long long>(bytes), s.object_count(), s.ref_count(),
          s.root_count(), static_cast<double>(bytes) / secs / 1e6,
          static_cast<double>(s.object_count()) / secs / 1e6, peak / 1e6,
          peak / static_cast<double>(s.object_count()), peak / budget, model / 1e6);
      return 0;
    }
    if (mode == "write" && argc == 4) {
      double secs, cpu;
      long before, after;
      Snapshot s = Load(argv[2], 0, secs, cpu, before, after);
      const double c0 = CpuSeconds();
      const double t0 = Now();
      formats::WriteNetcfFile(s, argv[3]);
      const double w = Now() - t0;
      const double wcpu = CpuSeconds() - c0;
      uint64_t bytes = 0;
      if (FILE* f = std::fopen(argv[3], "rb")) {
        std::fseek(f, 0, SEEK_END);
        bytes = static_cast<uint64_t>(std::ftell(f));
        std::fclose(f);
      }
      std::printf("write_s=%.3f write_cpu_s=%.3f bytes=%llu MBps=%.0f Mobjps=%.2f\n", w, wcpu,
                  static_cast<unsigned long long>(bytes), static_cast<double>(bytes) / w / 1e6,
                  static_cast<double>(s.object_count()) / w / 1e6);
      return 0;
    }
    if (mode == "xrpm-write" && argc == 5) {
      double secs, cpu;
      long before, after;
      Snapshot s = Load(argv[2], 0, secs, cpu, before, after);
      auto timed = [&](auto&& write, const char* path, const char* key) {
        const double c0 = CpuSeconds();
        const double t0 = Now();
        write(path);
        const double w = Now() - t0;
        std::printf("%s_s=%.3f %s_cpu_s=%.3f %s_bytes=%llu ", key, w, key, CpuSeconds() - c0, key,
                    static_cast<unsigned long long>(FileBytes(path)));
        return w;
      };
      const double x =
          timed([&](const char* p) { formats::WriteXrpmFile(s, p); }, argv[3], "xrpm_write");
      const double g =
          timed([&](const char* p) { formats::WriteNetcfFile(s, p); }, argv[4], "gclog_write");
      std::printf(
          "write_ratio=%.3f size_ratio=%.3f\n", x / g,
          static_cast<double>(FileBytes(argv[3])) / static_cast<double>(FileBytes(argv[4])));
      return 0;
    }
    if (mode == "xrpm-open" && (argc == 3 || argc == 4)) {
      formats::XrpmReadOptions o;
      o.threads = argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 0;
      const long before = MaxRssKb();
      const double c0 = CpuSeconds();
      const double t0 = Now();
      formats::XrpmContents c = formats::ReadXrpmFile(argv[2], o);
      const double secs = Now() - t0;
      const double cpu = CpuSeconds() - c0;
      const double peak = static_cast<double>(MaxRssKb() - before) * 1024.0;
      const double model = static_cast<double>(c.snapshot.MemoryBytes());
      std::printf(
          "open_s=%.3f open_cpu_s=%.3f bytes=%llu objects=%zu refs=%zu peak_rss_delta_MB=%.1f "
          "model_MB=%.1f peak_vs_model=%.3f\n",
          secs, cpu, static_cast<unsigned long long>(FileBytes(argv[2])), c.snapshot.object_count(),
          c.snapshot.ref_count(), peak / 1e6, model / 1e6, peak / model);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netcf_bench: %s\n", e.what());
    return 1;
  }
  return Usage();
}
