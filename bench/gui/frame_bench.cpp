// xrpm_gui_frame_bench: CPU time of one monitor frame (ImGui::NewFrame -> App::Frame ->
// ImGui::Render; no GPU draw, no window) with a big snapshot open, and the memory that snapshot
// and its analysis cost, to size the largest snapshot that stays browsable.
//
//   xrpm_gui_frame_bench [--objects N] [--refs-per-object R] [--frames F] [--filter TEXT]
//                        [--index auto|full|lean]
//
// In one run: the baseline — the same views with a 10,000-object heap of the same shape — then
// a generated game-shaped heap of N objects (default 1,000,000; R total references per object,
// default 3) generated and analysed exactly as the GUI does it (AppSession on its worker
// thread). For each: frames of the Types view sorted by retained bytes and filtered, the frame
// right after a filter change (re-filter + re-sort), the Instances view of the type with the
// most instances, and the Dominator tree. Frame times are this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), so other processes on the shared machine do not inflate them.
// Reports mean / p50 / p95 / max, the ratio of the big heap's mean to the baseline's, generate
// and analysis time, and resident memory per object. Then the time from a click to its answer
// (wall time: a frame, or a frame and the worker's task it starts): the Instances of the largest
// type listed and sorted, an object inspected with its path from a root and its referrers
// (found by a scan on the lean index), and the Dominator tree opened; and the process's peak
// resident memory. `--index` picks the index the analysis builds (default: by the memory
// available, as the monitor does).
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

double WallMs(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// VmHWM of /proc/self/status: the process's peak resident memory.
uint64_t PeakResidentBytes() {
  FILE* f = std::fopen("/proc/self/status", "r");
  unsigned long long kib = 0;
  char line[256];
  while (f && std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) break;
  if (f) std::fclose(f);
  return kib * 1024;
}

// Wall time from a click (what `click` sets up) to the frame that answers it: frames drawn
// until `answered()`, the worker's completions applied between them.
template <class Click, class Answered>
double ClickToAnswerMs(app::AppSession& ses, gui::App& app, Click&& click, Answered&& answered) {
  const auto t0 = std::chrono::steady_clock::now();
  click();
  Frame(app);
  while (!answered()) {
    if (!ses.WaitIdle(std::chrono::hours(1))) std::exit(1);
    Frame(app);
  }
  return WallMs(t0);
}

struct Result {
  Stats types, filter_change, instances, dominators;
  double instances_click_ms = 0, holders_ms = 0, inspect_click_ms = 0, dominators_click_ms = 0;
  bool lean_index = false;
  uint64_t inspected_referrers = 0, snapshot_bytes = 0, analysis_bytes = 0, rss_before = 0;
  uint64_t objects = 0, refs = 0, instances_count = 0, rss = 0;
  int types_vertices = 0;  // what one Types frame drew (proof that it drew the table)
  double generate_s = 0, analysis_s = 0, ahead_s = 0;
};

Result Measure(app::AppSession& ses, gui::App& app, const app::DemoHeapOptions& opts,
               const std::string& filter, int frames) {
  Result r;
  const uint64_t rss0 = ResidentBytes();
  r.rss_before = rss0;
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
  // The largest types' paths are memoised on a thread of their own once the analysis is done
  // (a click on one then only tallies them): the clicks below come after it, as a user's would
  // some seconds after the views appear.
  const auto ahead0 = std::chrono::steady_clock::now();
  d->analysis->WaitMemoisedAhead();
  r.ahead_s = WallMs(ahead0) / 1000;
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

  r.lean_index = d->analysis->lean_index;
  r.snapshot_bytes = d->snapshot->MemoryBytes();
  r.analysis_bytes = d->analysis->MemoryBytes();
  int64_t largest = -1;
  for (const auto& row : d->types->rows)
    if (row.count > r.instances_count) r.instances_count = row.count, largest = row.type;
  // The Instances view's first frame collects and sorts the instances (once per selection).
  const app::InstanceListView& list = app.views().instances.list;
  const uint64_t rebuilds = list.rebuilds();  // rebuilt (and sorted when it must) in one frame
  r.instances_click_ms = ClickToAnswerMs(
      ses, app,
      [&] {
        d->selection.type = largest;
        app.SetView(gui::View::kInstances);
      },
      [&] { return list.rebuilds() > rebuilds; });
  // The paths holding them fill their pane later, merged on the worker.
  const auto holders0 = std::chrono::steady_clock::now();
  if (!ses.WaitIdle(std::chrono::hours(1))) std::exit(1);
  r.holders_ms = r.instances_click_ms + WallMs(holders0);
  r.instances = Frames(app, frames);
  // The object the largest type's instances hang from most (its first instance's dominator,
  // or the instance itself): its path, contents and referrers.
  const app::DocAnalysis& a = *d->analysis;
  const uint32_t first = a.index().Instances(a.index().group_of_type(uint32_t(largest)))[0];
  const uint32_t inspected =
      a.dom().idom(first) < a.dom().node_count() ? a.dom().idom(first) : first;
  r.inspect_click_ms = ClickToAnswerMs(
      ses, app,
      [&] {
        d->selection.object = inspected;
        app.SetView(gui::View::kInspector);
      },
      [&] { return d->details && d->details->node == inspected; });
  r.inspected_referrers = d->details->in.size();
  int drawn = 0;  // a tab's contents are drawn from the frame after the one that selects it
  r.dominators_click_ms = ClickToAnswerMs(
      ses, app, [&] { app.SetView(gui::View::kDominators); }, [&] { return ++drawn == 2; });
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
  app::DocIndex index = app::DocIndex::kAuto;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--objects") && i + 1 < argc)
      big.objects = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--refs-per-object") && i + 1 < argc)
      big.extra_refs_per_object = std::max(0.0, std::stod(argv[++i]) - 1.0);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else if (!std::strcmp(argv[i], "--index") && i + 1 < argc && !std::strcmp(argv[i + 1], "full"))
      ++i, index = app::DocIndex::kFull;
    else if (!std::strcmp(argv[i], "--index") && i + 1 < argc && !std::strcmp(argv[i + 1], "lean"))
      ++i, index = app::DocIndex::kLean;
    else if (!std::strcmp(argv[i], "--index") && i + 1 < argc && !std::strcmp(argv[i + 1], "auto"))
      ++i, index = app::DocIndex::kAuto;
    else {
      std::fprintf(stderr,
                   "usage: %s [--objects N] [--refs-per-object R] [--frames F] [--filter TEXT] "
                   "[--index auto|full|lean]\n",
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
  ses.documents().set_index_choice(index);

  app::DemoHeapOptions small = big;
  small.objects = 10'000;
  const Result base = Measure(ses, app, small, filter, frames);
  const Result r = Measure(ses, app, big, filter, frames);

  std::printf("monitor frame CPU time (NewFrame -> Render, no GPU), window 1500x920, %d frames\n",
              frames);
  std::printf(
      "heap: %s objects, %s references (%.2f per object); generated in %.2f s, "
      "analysed in %.2f s; the largest types' paths memoised %.2f s later\n",
      xrpm::FormatCount(r.objects).c_str(), xrpm::FormatCount(r.refs).c_str(),
      double(r.refs) / double(r.objects), r.generate_s, r.analysis_s, r.ahead_s);
  std::printf("baseline: the same views with a %s-object heap of the same shape\n",
              xrpm::FormatCount(base.objects).c_str());
  Print(("Types, sorted, filter \"" + filter + "\"").c_str(), r.types, base.types);
  std::printf("  (a Types frame draws %d vertices; the baseline's %d)\n", r.types_vertices,
              base.types_vertices);
  Print("Types, frame after a filter change", r.filter_change, base.filter_change);
  Print(("Instances (" + xrpm::FormatCount(r.instances_count) + ")").c_str(), r.instances,
        base.instances);
  Print("Dominator tree", r.dominators, base.dominators);
  std::printf("click to answer (wall; the baseline's in brackets), %s index:\n",
              r.lean_index ? "lean" : "full");
  std::printf("  Instances of the largest type, listed and sorted  %9.1f ms  (%.1f)\n",
              r.instances_click_ms, base.instances_click_ms);
  std::printf("  ... and the paths holding them merged              %9.1f ms  (%.1f)\n",
              r.holders_ms, base.holders_ms);
  std::printf("  an object inspected: path, contents, %s referrers  %9.1f ms  (%.1f)\n",
              xrpm::FormatCount(r.inspected_referrers).c_str(), r.inspect_click_ms,
              base.inspect_click_ms);
  std::printf("  Dominator tree opened                              %9.1f ms  (%.1f)\n",
              r.dominators_click_ms, base.dominators_click_ms);
  std::printf("resident memory of the open snapshot + analysis: %s = %.1f bytes/object\n",
              xrpm::FormatBytes(r.rss).c_str(), double(r.rss) / double(r.objects));
  std::printf("of which the snapshot %.1f bytes/object, the analysis kept %.1f bytes/object\n",
              double(r.snapshot_bytes) / double(r.objects),
              double(r.analysis_bytes) / double(r.objects));
  const uint64_t peak = PeakResidentBytes();
  std::printf(
      "peak resident memory of the process: %s = %.1f bytes/object (%.1f beyond what it "
      "held before the heap)\n",
      xrpm::FormatBytes(peak).c_str(), double(peak) / double(r.objects),
      double(peak - r.rss_before) / double(r.objects));
  ImGui::DestroyContext();
  return 0;
}
