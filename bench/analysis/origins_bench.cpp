// xrpm_origins_bench: what allocation origins cost in the model and how fast the three-capture
// leak filter answers, each against a baseline measured in the same run.
//
//   xrpm_origins_bench [--objects N] [--repeat K] [--threads T]
//
// Builds three captures of the simulated leaking game (tests/support/leak_game.h) at frames
// 3000, 6000 and 9000, each of about N objects (mostly long-lived textures, a leak of N/20
// objects per 3000 frames, 1,000 particles a frame), then reports
//   1. model: Snapshot::MemoryBytes with and without the origins (columns + site tables), per
//      object; baseline: the snapshot without origins (ratio);
//   2. leak filter: GraphIndex::Build(C) + RootPathForest::Build + FindLeaks, best of K, on C
//      and on C with sites and frames scattered at random (many groups); baselines: the type
//      histogram of C (`xrpm types`, one pass over the objects) and GraphIndex::Build alone,
//      same run.
// Figures go in docs/PERFORMANCE.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "bench_clock.h"
#include "leak_game.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/leak_filter.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/model/type_histogram.h"

namespace {

using namespace xrpm;
using namespace xrpm::analysis;
using namespace xrpm::bench;

Snapshot WithoutOrigins(Snapshot s) {
  s.origins.reset();
  s.object_alloc_frame = {};
  s.object_alloc_site = {};
  s.ShrinkToFit();
  return s;
}

template <class F>
double Best(int repeat, F&& f) {
  double best = 1e30;
  for (int k = 0; k < repeat; ++k) {
    const Clock::time_point t = Clock::now();
    f();
    best = std::min(best, Seconds(t));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t objects = 1000000;
  int repeat = 3;
  unsigned threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--objects" && i + 1 < argc) {
      objects = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: xrpm_origins_bench [--objects N] [--repeat K] [--threads T]\n");
      return 2;
    }
  }
  // C (frame 9000) holds 0.9 N textures, 2 x 9000 x p leaked objects (p per spawn, a spawn every
  // frame, p chosen so that the leak is ~0.1 N at C) and 2,001 particle objects.
  testing::LeakGameShape shape;
  shape.leak_every = 1;
  shape.leak_per_spawn = static_cast<uint32_t>(std::max<uint64_t>(1, objects / 10 / 2 / 9000));
  shape.particles = 1000;
  const uint64_t leaked_c = 2ull * 9000 * shape.leak_per_spawn;
  shape.textures = static_cast<uint32_t>(objects > leaked_c + 2005 ? objects - leaked_c - 2005 : 1);

  Clock::time_point t = Clock::now();
  Snapshot a = testing::LeakGameCapture(3000, shape);
  Snapshot b = testing::LeakGameCapture(6000, shape);
  Snapshot c = testing::LeakGameCapture(9000, shape);
  for (Snapshot* s : {&a, &b, &c}) s->ShrinkToFit();  // as a capture's snapshot is
  std::printf("captures: %s / %s / %s objects, %zu references in C (generated in %.2f s)\n",
              std::to_string(a.object_count()).c_str(), std::to_string(b.object_count()).c_str(),
              std::to_string(c.object_count()).c_str(), c.ref_count(), Seconds(t));

  // 1. Model cost.
  const Snapshot plain = WithoutOrigins(c);
  const double n = double(c.object_count());
  const double with_b = double(c.MemoryBytes()), without_b = double(plain.MemoryBytes());
  std::printf(
      "model: %.2f B/object with origins, %.2f without: origins cost %.2f B/object "
      "(target <= 8), ratio %.3f\n",
      with_b / n, without_b / n, (with_b - without_b) / n, with_b / without_b);

  // 2. Leak filter against the type histogram and the index build: on C as the game makes it
  // (a few big groups), and on C with every object's site and frame scattered at random over
  // 5,000 sites and frames 0..9000 (a third of the heap in the window, tens of thousands of
  // (type, site) groups, each with its merged paths: the worst case for grouping).
  Snapshot scattered = c;
  {
    std::mt19937_64 rng(7);
    for (uint32_t k = 0; k < 5000; ++k) {
      scattered.origins->methods.push_back("Synthetic.Method" + std::to_string(k));
      scattered.origins->sites.push_back(
          {{static_cast<uint32_t>(scattered.origins->methods.size() - 1), 2}});
    }
    for (size_t i = 0; i < scattered.object_count(); ++i) {
      scattered.object_alloc_site[i] = static_cast<uint32_t>(4 + rng() % 5000);
      scattered.object_alloc_frame[i] = static_cast<uint32_t>(rng() % 9000);
    }
  }
  const double hist_s = Best(repeat, [&] {
    volatile size_t rows = ComputeTypeHistogram(c).size();
    (void)rows;
  });
  const double index_s = Best(repeat, [&] {
    GraphIndex g = GraphIndex::Build(c, {.threads = threads});
    volatile uint32_t nodes = g.node_count();
    (void)nodes;
  });
  std::printf("baselines: type histogram of C %.3f s, index build of C %.3f s\n", hist_s, index_s);
  for (const Snapshot* cs : {&c, &scattered}) {
    double parts[3] = {1e30, 0, 0}, best = 1e30;
    LeakReport r;
    for (int k = 0; k < repeat; ++k) {
      Clock::time_point s = Clock::now();
      const Clock::time_point start = s;
      GraphIndex g = GraphIndex::Build(*cs, {.threads = threads});
      const double index_part = Seconds(s);
      s = Clock::now();
      RootPathForest forest = RootPathForest::Build(g);
      const double forest_part = Seconds(s);
      s = Clock::now();
      r = FindLeaks(a, b, g, forest);
      const double filter_part = Seconds(s);
      if (Seconds(start) < best) {
        best = Seconds(start);
        parts[0] = index_part;
        parts[1] = forest_part;
        parts[2] = filter_part;
      }
    }
    std::printf(
        "leak filter on %s C: %.3f s (target <= 1 s) = index %.3f + paths forest %.3f + "
        "filter, groups and merged paths %.3f; %zu groups, %llu objects; ratio %.1f to the type "
        "histogram, %.2f to the index build\n",
        cs == &c ? "the game's" : "a scattered", best, parts[0], parts[1], parts[2],
        r.groups.size(), static_cast<unsigned long long>(r.count), best / hist_s, best / index_s);
  }
  std::printf("peak RSS %.0f MiB\n", PeakRssMiB());
  return 0;
}
