// xrpm_gui_frame_bench: CPU time of one monitor frame (ImGui::NewFrame -> App::Frame ->
// ImGui::Render; no GPU draw, no window) with a big snapshot open, and the memory that
// snapshot costs, to size the largest snapshot that stays browsable.
//
//   xrpm_gui_frame_bench [--objects N] [--frames F] [--filter TEXT]
//
// In one run: the baseline (an empty window), then a generated game-shaped heap of N objects
// (default 1,000,000) loaded and analysed exactly as the GUI does it (AppSession on its worker
// thread), then frames of the Types view sorted by retained bytes and filtered, of the
// Instances view of the largest type, and the frame that re-sorts after a filter change.
// Reports mean / p50 / p95 / max per frame, the ratio against the baseline, load and analysis
// time, and resident memory per object.
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app.h"
#include "style.h"
#include "xrpm/core/session/app_session.h"
#include "xrpm/core/session/human_format.h"

namespace {
using Clock = std::chrono::steady_clock;
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
  const auto t0 = Clock::now();
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = 1.f / 60.f;
  ImGui::NewFrame();
  app.Frame();
  ImGui::Render();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Stats Frames(gui::App& app, int n) {
  for (int i = 0; i < 5; ++i) Frame(app);  // settle layout, first-use caches
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) ms.push_back(Frame(app));
  return Summarise(ms);
}

void Print(const char* what, const Stats& s, double baseline) {
  std::printf("%-44s mean %7.3f ms  p50 %7.3f  p95 %7.3f  max %7.3f  (%.2fx baseline)\n", what,
              s.mean, s.p50, s.p95, s.max, baseline > 0 ? s.mean / baseline : 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t objects = 1'000'000;
  int frames = 300;
  std::string filter = "System";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--objects") && i + 1 < argc)
      objects = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--objects N] [--frames F] [--filter TEXT]\n", argv[0]);
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
  session::AppSession ses({cfg, /*persist=*/false, {}});
  gui::App app(ses);

  const Stats base = Frames(app, frames);
  std::printf("frame CPU time, %d frames each, window 1500x920\n", frames);
  Print("baseline: empty window", base, base.mean);

  const uint64_t rss0 = ResidentBytes();
  const auto t0 = Clock::now();
  const uint32_t id = ses.OpenDemo({objects, 1, 0});
  if (!ses.WaitIdle(std::chrono::hours(2))) return 1;
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  session::SnapshotDoc* d = ses.doc(id);
  if (!d || d->state != session::DocState::kReady) {
    std::fprintf(stderr, "demo heap failed: %s\n", d ? d->problem.c_str() : "closed");
    return 1;
  }
  const uint64_t rss1 = ResidentBytes();
  std::printf("snapshot: %s objects, %s refs; generate + analyse %.2f s (analysis %.2f s)\n",
              session::FormatCount(d->snapshot->object_count()).c_str(),
              session::FormatCount(d->snapshot->ref_count()).c_str(), load_s, d->analysis_seconds);
  std::printf("resident memory: +%s for the snapshot and its analysis = %.1f bytes/object\n",
              session::FormatBytes(rss1 - rss0).c_str(),
              double(rss1 - rss0) / double(d->snapshot->object_count()));

  app.SetView(gui::View::kTypes);
  d->selection.type_filter = filter;
  Print(("Types view, sorted, filter \"" + filter + "\"").c_str(), Frames(app, frames), base.mean);

  // The frame that re-filters and re-sorts (a keystroke in the filter box).
  std::vector<double> change;
  for (int i = 0; i < 20; ++i) {
    d->selection.type_filter = (i % 2) ? filter : filter.substr(0, filter.size() / 2);
    change.push_back(Frame(app));
  }
  Print("Types view, frame after a filter change", Summarise(change), base.mean);

  // Instances of the type with the most instances.
  uint32_t top = 0;
  uint64_t most = 0;
  for (const auto& r : d->types->rows)
    if (r.count > most) most = r.count, top = r.type;
  d->selection.type = top;
  app.SetView(gui::View::kInstances);
  Frame(app);  // the first frame collects and sorts the instances
  Print(("Instances view, " + session::FormatCount(most) + " instances").c_str(),
        Frames(app, frames), base.mean);

  ImGui::DestroyContext();
  return 0;
}
