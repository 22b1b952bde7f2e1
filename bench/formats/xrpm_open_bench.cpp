// xrpm_open_bench: the time to open .xrpm files, the files taken in turn (A, B, A, B, ...) in
// one process so that every file sees the same machine load; best and median of RUNS each, the
// ratio of every file's best to the first file's, and what the model's object contents take
// (a capture with values against the same capture with --no-values).
//
//   xrpm_open_bench RUNS THREADS BASELINE.xrpm OTHER.xrpm...
//
// Each open is ReadXrpmFile with THREADS threads (0: one per core), which includes the object
// contents check (CheckFields); the check is also timed apart (one thread), once per file after
// the runs. CPU time (all threads, user + system) is reported beside wall time: on a shared
// machine it is the steadier of the two.
// Output: one key=value line per file, then one "ratio" line per other file.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../analysis/bench_clock.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/object_fields.h"

using namespace xrpm;

namespace {

using bench::Clock;
using bench::CpuSeconds;
using bench::Seconds;

double Best(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

struct FileRuns {
  std::string path;
  std::vector<double> secs, cpu;
  double check_s = 0;
  uint64_t objects = 0, refs = 0, contents_bytes = 0, value_bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: xrpm_open_bench RUNS THREADS BASELINE.xrpm OTHER.xrpm...\n");
    return 2;
  }
  const int runs = std::max(1, std::atoi(argv[1]));
  formats::XrpmReadOptions o;
  o.threads = static_cast<unsigned>(std::atoi(argv[2]));
  std::vector<FileRuns> files;
  for (int i = 3; i < argc; ++i) files.push_back({argv[i]});
  try {
    for (FileRuns& f : files) (void)formats::ReadXrpmFile(f.path, o);  // warm the page cache
    for (int r = 0; r < runs; ++r)
      for (FileRuns& f : files) {
        const double c0 = CpuSeconds();
        const Clock::time_point t0 = Clock::now();
        formats::XrpmContents c = formats::ReadXrpmFile(f.path, o);
        f.secs.push_back(Seconds(t0));
        f.cpu.push_back(CpuSeconds() - c0);
        if (r + 1 < runs) continue;
        const Clock::time_point k0 = Clock::now();
        const std::string problem = CheckFields(c.snapshot);
        f.check_s = Seconds(k0);
        if (!problem.empty()) throw std::runtime_error(f.path + ": " + problem);
        f.objects = c.snapshot.object_count();
        f.refs = c.snapshot.ref_count();
        const HeapFieldsSummary sum = Summarize(c.snapshot.fields);
        f.contents_bytes = sum.model_bytes;
        f.value_bytes = sum.value_bytes;
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrpm_open_bench: %s\n", e.what());
    return 1;
  }
  for (const FileRuns& f : files)
    std::printf(
        "file=%s runs=%d threads=%u best_ms=%.1f median_ms=%.1f cpu_best_ms=%.1f "
        "cpu_median_ms=%.1f check_1thread_ms=%.1f objects=%llu refs=%llu contents_MB=%.1f "
        "values_MB=%.1f contents_B_per_object_beyond_values=%.2f\n",
        f.path.c_str(), runs, o.threads, Best(f.secs) * 1e3, Median(f.secs) * 1e3,
        Best(f.cpu) * 1e3, Median(f.cpu) * 1e3, f.check_s * 1e3,
        static_cast<unsigned long long>(f.objects), static_cast<unsigned long long>(f.refs),
        static_cast<double>(f.contents_bytes) / 1e6, static_cast<double>(f.value_bytes) / 1e6,
        f.objects ? static_cast<double>(f.contents_bytes - f.value_bytes) / f.objects : 0.0);
  for (size_t i = 1; i < files.size(); ++i)
    std::printf(
        "ratio %s / %s: best %.3f median %.3f cpu_best %.3f cpu_median %.3f\n",
        files[i].path.c_str(), files[0].path.c_str(), Best(files[i].secs) / Best(files[0].secs),
        Median(files[i].secs) / Median(files[0].secs), Best(files[i].cpu) / Best(files[0].cpu),
        Median(files[i].cpu) / Median(files[0].cpu));
  return 0;
}
