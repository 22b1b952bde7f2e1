// xrpm_gui_frame_bench: CPU time of one monitor frame (ImGui::NewFrame -> App::Frame ->
// ImGui::Render; no GPU draw, no window) with a big snapshot open, and the memory that snapshot
// and its analysis cost, to size the largest snapshot that stays browsable.
//
//   xrpm_gui_frame_bench [--objects N] [--refs-per-object R] [--frames F] [--filter TEXT]
//
// In one run: the baseline — the same views with a 10,000-object heap of the same shape — then
// a generated game-shaped heap of N objects (default 1,000,000; R total references per object,
// default 3) generated and analysed exactly as the GUI does it (AppSession on its worker
// thread). For each: frames of the Types view sorted by retained bytes and filtered, the frame
// right after a filter change (re-filter + re-sort), the Instances view of the type with the
// most instances, and the Dominator tree. Frame times are this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), so other processes on the shared machine do not inflate them.
// Reports mean / p50 / p95 / max, the ratio of the big heap's mean to the baseline's, generate
// and analysis time, and resident memory per object.
#include <imgui.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app.h"
#include "style.h"
#include "xrpm/app/app_session.h"
#include "xrpm/model/human_format.h"

namespace {
using namespace xrpm;

uint64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long long size = 0, res = 0;
  if (f) {
    if (std::fscanf(f, "%llu %llu", &size, &res) != 2) res = 0;
    std::fclose(f);
  }
  return res * uint64_t(sysconf(_SC_PAGESIZE));
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Stats {
  double mean = 0, p50 = 0, p95 = 0, max = 0;
};

Stats Summarise(std::vector<double> ms) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  for (double v : ms) s.mean += v;
  s.mean /= double(ms.size());
  s.p50 = ms[ms.size() / 2];
  s.p95 = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
  s.max = ms.back();
  return s;
}

double Frame(gui::App& app) {
  const double t0 = ThreadCpuMs();
  ImGui::GetIO().DeltaTime = 1.f / 60.f;
  ImGui::NewFrame();
  app.Frame();
  ImGui::Render();
  return ThreadCpuMs() - t0;
}

Stats Frames(gui::App& app, int n) {
  for (int i = 0; i < 5; ++i) Frame(app);  // settle layout and first-use caches
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) ms.push_back(Frame(app));
  return Summarise(ms);
}

struct Result {
  Stats types, filter_change, instances, dominators;
  uint64_t objects = 0, refs = 0, instances_count = 0, rss = 0;
  int types_vertices = 0;  // what one Types frame drew (proof that it drew the table)
  double generate_s = 0, analysis_s = 0;
};

Result Measure(app::AppSession& ses, gui::App& app, const app::DemoHeapOptions& opts,
               const std::string& filter, int frames) {
  Result r;
  const uint64_t rss0 = ResidentBytes();
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t id = ses.documents().OpenDemo(opts);
  if (!ses.WaitIdle(std::chrono::hours(4))) std::exit(1);
  app::SnapshotDoc* d = ses.documents().doc(id);
  if (!d || !d->analysis) {
    std::fprintf(stderr, "demo heap failed: %s\n", d ? d->problem.c_str() : "closed");
    std::exit(1);
  }
  r.analysis_s = d->analysis_seconds;
  r.generate_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - r.analysis_s;
  r.rss = ResidentBytes() - rss0;
  r.objects = d->snapshot->object_count();
  r.refs = d->snapshot->ref_count();

  app.SetView(gui::View::kTypes);
  d->selection.type_filter = filter;
  r.types = Frames(app, frames);
  r.types_vertices = ImGui::GetDrawData() ? ImGui::GetDrawData()->TotalVtxCount : 0;
  std::vector<double> change;  // a keystroke in the filter box: re-filter and re-sort
  for (int i = 0; i < 40; ++i) {
    d->selection.type_filter = (i % 2) ? filter : filter.substr(0, filter.size() / 2);
    change.push_back(Frame(app));
  }
  r.filter_change = Summarise(change);

  for (const auto& row : d->types->rows)
    if (row.count > r.instances_count) r.instances_count = row.count, d->selection.type = row.type;
  app.SetView(gui::View::kInstances);
  Frame(app);  // the first frame collects and sorts the instances (once per selection)
  r.instances = Frames(app, frames);
  app.SetView(gui::View::kDominators);
  r.dominators = Frames(app, frames);
  ses.documents().Close(id, /*discard=*/true);
  return r;
}

void Print(const char* what, const Stats& s, const Stats& base) {
  std::printf("  %-34s mean %7.3f ms  p50 %7.3f  p95 %7.3f  max %7.3f   %5.2fx baseline\n", what,
              s.mean, s.p50, s.p95, s.max, base.mean > 0 ? s.mean / base.mean : 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  app::DemoHeapOptions big;
  big.objects = 1'000'000;
  big.extra_refs_per_object = 2.0;
  int frames = 300;
  std::string filter = "System";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--objects") && i + 1 < argc)
      big.objects = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--refs-per-object") && i + 1 < argc)
      big.extra_refs_per_object = std::max(0.0, std::stod(argv[++i]) - 1.0);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--objects N] [--refs-per-object R] [--frames F] [--filter TEXT]\n",
                   argv[0]);
      return 2;
    }
  }

  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1500, 920);
  gui::ApplyStyleAndFonts(15.f);
  unsigned char* px;
  int w, h;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);  // what the renderer backend would upload

  char cfg[] = "/tmp/xrpm_gui_bench_XXXXXX";
  if (!mkdtemp(cfg)) return 1;
  app::AppSession ses({cfg, /*persist=*/false, {}});
  gui::App app(ses);

  app::DemoHeapOptions small = big;
  small.objects = 10'000;
  const Result base = Measure(ses, app, small, filter, frames);
  const Result r = Measure(ses, app, big, filter, frames);

  std::printf("monitor frame CPU time (NewFrame -> Render, no GPU), window 1500x920, %d frames\n",
              frames);
  std::printf(
      "heap: %s objects, %s references (%.2f per object); generated in %.2f s, "
      "analysed in %.2f s\n",
      xrpm::FormatCount(r.objects).c_str(), xrpm::FormatCount(r.refs).c_str(),
      double(r.refs) / double(r.objects), r.generate_s, r.analysis_s);
  std::printf("baseline: the same views with a %s-object heap of the same shape\n",
              xrpm::FormatCount(base.objects).c_str());
  Print(("Types, sorted, filter \"" + filter + "\"").c_str(), r.types, base.types);
  std::printf("  (a Types frame draws %d vertices; the baseline's %d)\n", r.types_vertices,
              base.types_vertices);
  Print("Types, frame after a filter change", r.filter_change, base.filter_change);
  Print(("Instances (" + xrpm::FormatCount(r.instances_count) + ")").c_str(), r.instances,
        base.instances);
  Print("Dominator tree", r.dominators, base.dominators);
  std::printf("resident memory of the open snapshot + analysis: %s = %.1f bytes/object\n",
              xrpm::FormatBytes(r.rss).c_str(), double(r.rss) / double(r.objects));
  ImGui::DestroyContext();
  return 0;
}
