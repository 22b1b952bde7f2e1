// xrpm_analysis_bench: the analysis engine on a synthetic heap against Boost Graph.
//
//   xrpm_analysis_bench [--objects N] [--refs-per-object R] [--threads T] [--shuffled-ids]
//                       [--no-boost] [--seed S] [--repeat K] [--index full|forward|lean]
//
// Builds a snapshot of N objects with about R*N references (heap-like: most references point
// to objects allocated nearby, the rest anywhere; a few large arrays; ~N/1000 roots, some weak),
// then times in one run: GraphIndex::Build, DominatorTree::Compute (DFS + Lengauer–Tarjan +
// retained sizes), TypeStats::Compute (retained per type), and Boost's
// lengauer_tarjan_dominator_tree on a compressed_sparse_row_graph of the same flow graph (same
// virtual root). Checks that both give the same immediate dominators. Prints wall times (the
// dominators' by phase too), the ratio against Boost, memory per object and peak RSS. Figures go
// in docs/PERFORMANCE.md.
//
// --index chooses the GraphIndex the analysis runs on: `full` (forward and reverse CSR, type
// instance lists: what `xrpm report` and the monitor build), `forward` (no reverse CSR, no
// instance lists: all the dominators need), `lean` (no CSR at all: the dominators resolve the
// snapshot's references as they go; the least memory).
#include <sys/resource.h>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/type_stats.h"
#include "xrpm/model/snapshot.h"

// Boost 1.74's bidirectional CSR graph lacks degree(), which the BidirectionalGraph concept
// check of lengauer_tarjan_dominator_tree asks for (it never calls it).
namespace boost {
template <class Vertex, class EdgeIndex>
EdgeIndex degree(Vertex v,
                 const compressed_sparse_row_graph<bidirectionalS, no_property, no_property,
                                                   no_property, Vertex, EdgeIndex>& g) {
  return out_degree(v, g) + in_degree(v, g);
}
}  // namespace boost

namespace {

using namespace xrpm;
using namespace xrpm::analysis;
using namespace xrpm::bench;

struct Args {
  uint64_t objects = 10'000'000;
  double refs_per_object = 3.0;
  unsigned threads = 2;
  bool shuffled_ids = false;
  bool boost = true;
  uint64_t seed = 1;
  int repeat = 1;  // runs of each timed step; the fastest counts (the machine is shared)
  std::string index = "full";
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (s == "--objects")
      a.objects = std::strtoull(next(), nullptr, 10);
    else if (s == "--refs-per-object")
      a.refs_per_object = std::strtod(next(), nullptr);
    else if (s == "--threads")
      a.threads = unsigned(std::strtoul(next(), nullptr, 10));
    else if (s == "--shuffled-ids")
      a.shuffled_ids = true;
    else if (s == "--no-boost")
      a.boost = false;
    else if (s == "--seed")
      a.seed = std::strtoull(next(), nullptr, 10);
    else if (s == "--repeat")
      a.repeat = std::max(1, std::atoi(next()));
    else if (s == "--index" && i + 1 < argc &&
             (!std::strcmp(argv[i + 1], "full") || !std::strcmp(argv[i + 1], "forward") ||
              !std::strcmp(argv[i + 1], "lean")))
      a.index = next();
    else {
      std::fprintf(stderr,
                   "usage: xrpm_analysis_bench [--objects N] [--refs-per-object R] [--threads T] "
                   "[--shuffled-ids] [--no-boost] [--seed S] [--repeat K] "
                   "[--index full|forward|lean]\n");
      std::exit(2);
    }
  }
  return a;
}

// A heap-shaped random snapshot. Ids are addresses in allocation order (a device walks its heap
// in address order), or shuffled to force the hashed id resolver.
Snapshot MakeHeap(const Args& a) {
  std::mt19937_64 rng(a.seed);
  const uint64_t n = a.objects;
  Snapshot s;
  s.AddSection({.name = "bench.exe"});
  const uint32_t types = 2000;
  for (uint32_t t = 0; t < types; ++t) s.AddType(t + 1, "Bench.Type" + std::to_string(t), 0);
  // The ids in address order: the snapshot's own column when objects come in that order, so that
  // generating needs no memory beyond the snapshot's (a 250 M-object heap); a separate array and
  // a permutation only for shuffled ids.
  std::vector<ObjectId> shuffled_id;
  std::vector<uint64_t> order;
  if (a.shuffled_ids)
    shuffled_id.resize(n);
  else
    s.object_id.resize(n);
  ObjectId* id = a.shuffled_ids ? shuffled_id.data() : s.object_id.data();
  ObjectId addr = 0x10000000;
  for (uint64_t i = 0; i < n; ++i) id[i] = addr += 16 + 8 * (rng() % 8);
  if (a.shuffled_ids) {
    order.resize(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    s.object_id.reserve(n);
  }
  s.object_type.reserve(n);
  s.object_size.reserve(n);
  s.ref_end.reserve(n);
  s.refs.reserve(uint64_t(double(n) * a.refs_per_object * 1.02) + 16);
  std::geometric_distribution<int> degree(1.0 / (1.0 + a.refs_per_object));
  std::vector<ObjectId> refs;
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t i = a.shuffled_ids ? order[k] : k;
    refs.clear();
    int d = degree(rng);
    if (rng() % 100000 == 0) d = 1000 + int(rng() % 5000);  // a few big arrays
    for (int j = 0; j < d; ++j) {
      uint64_t t;
      if (rng() % 10 < 7)  // nearby (allocated together), mostly younger objects
        t = i + 1 + rng() % 64;
      else
        t = rng() % n;
      if (t >= n) t = rng() % n;
      refs.push_back(id[t]);
    }
    const uint32_t type = uint32_t(
        std::min<uint64_t>(types - 1, uint64_t(std::exp2(double(rng() % 1100) / 100.0)) - 1));
    if (a.shuffled_ids) s.object_id.push_back(id[i]);
    s.object_type.push_back(type);
    s.object_size.push_back(12 + uint32_t(rng() % 200));
    s.refs.append(refs.data(), refs.data() + refs.size());
    s.ref_end.push_back(s.refs.size());
  }
  for (uint64_t r = 0; r < std::max<uint64_t>(1, n / 1000); ++r) {
    const uint64_t i = rng() % n;
    const uint8_t flags = rng() % 20 == 0 ? kRootWeak : 0;
    s.AddRoot(id[i], static_cast<RootKind>(rng() % 6), flags,
              rng() % 6 == 4 ? 1 + rng() % types : 0);
  }
  s.AddRoot(id[0], RootKind::kStatic, 0, 1);
  s.CloseSectionRanges();
  s.ShrinkToFit();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = Parse(argc, argv);
  auto t0 = Clock::now();
  Snapshot snap = MakeHeap(a);
  const double gen_s = Seconds(t0);
  const double n = double(snap.object_count());
  std::printf("heap: %zu objects, %zu references, %zu roots, %s ids (generated in %.2f s)\n",
              snap.object_count(), snap.ref_count(), snap.root_count(),
              a.shuffled_ids ? "shuffled" : "address-ordered", gen_s);
  std::printf("snapshot: %.1f MiB (%.1f B/object)\n", snap.MemoryBytes() / 1048576.0,
              snap.MemoryBytes() / n);
  const double rss_snapshot = CurrentRssMiB();

  GraphIndex g;
  double index_s = 1e9;
  for (int r = 0; r < a.repeat; ++r) {
    g = GraphIndex();
    t0 = Clock::now();
    GraphIndexOptions o{.threads = a.threads};
    if (a.index != "full") o.reverse = o.instances = false;
    if (a.index == "lean") o.forward = false;
    g = GraphIndex::Build(snap, o);
    index_s = std::min(index_s, Seconds(t0));
  }
  std::printf(
      "index build:      %7.3f s  (%s, %u threads; %.1f MiB = %.1f B/object, %.1f B/reference; "
      "%s resolver; %llu dangling)\n",
      index_s, a.index.c_str(), a.threads, g.MemoryBytes() / 1048576.0, g.MemoryBytes() / n,
      double(g.MemoryBytes()) / double(std::max<uint64_t>(1, g.edge_count())), "address-bucket",
      (unsigned long long)g.dangling_refs());

  DominatorTree dom;
  double dom_s = 1e9, dom_cpu = 1e9;
  // The dominators' phases, timed from their progress reports (the last run's).
  std::vector<std::pair<std::string, double>> phases;
  Clock::time_point phase_start;
  Progress timer{.on_progress = [&](std::string_view phase, double) {
    if (!phases.empty() && phases.back().first == phase) return;
    const Clock::time_point now = Clock::now();
    if (!phases.empty()) phases.back().second = Seconds(phase_start);
    phases.emplace_back(std::string(phase), 0.0);
    phase_start = now;
  }};
  for (int r = 0; r < a.repeat; ++r) {
    dom = DominatorTree();
    phases.clear();
    t0 = Clock::now();
    const double c0 = CpuSeconds();
    dom = DominatorTree::Compute(g, timer, a.threads);
    dom_s = std::min(dom_s, Seconds(t0));
    dom_cpu = std::min(dom_cpu, CpuSeconds() - c0);
  }
  std::printf(
      "dominators+retained: %7.3f s, CPU %.3f s  (%llu reachable; working set %.1f B/object, "
      "result %.1f B/object)\n",
      dom_s, dom_cpu, (unsigned long long)dom.reachable_count(), dom.work_peak_bytes() / n,
      dom.MemoryBytes() / n);
  std::printf("  phases:");
  for (const auto& [phase, seconds] : phases)
    if (phase != "dominators: done") std::printf(" %s %.3f s;", phase.c_str() + 12, seconds);
  std::printf("\n");

  TypeStats types;
  double types_s = 1e9;
  for (int r = 0; r < a.repeat; ++r) {
    t0 = Clock::now();
    types = TypeStats::Compute(g, dom);
    types_s = std::min(types_s, Seconds(t0));
  }
  std::printf("type retained:    %7.3f s\n", types_s);
  const double rss_ours = PeakRssMiB();
  std::printf(
      "extra memory beyond the snapshot: index %.1f B/object + dominators peak %.1f "
      "B/object (peak RSS %.0f MiB, snapshot alone %.0f MiB)\n",
      g.MemoryBytes() / n, dom.work_peak_bytes() / n, rss_ours, rss_snapshot);
  std::printf("ours total (index + dominators + type retained): %.3f s\n",
              index_s + dom_s + types_s);
  if (!a.boost) return 0;

  // Boost: the same flow graph (objects + virtual root with edges to the strong roots).
  using BGraph = boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property,
                                                    boost::no_property, boost::no_property,
                                                    uint32_t, uint32_t>;
  t0 = Clock::now();
  const uint32_t root = g.node_count();
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(g.edge_count() + g.StrongRoots().size());
  for (uint32_t v = 0; v < g.node_count(); ++v)
    g.ForEachOut(v, [&](uint32_t w) { edges.emplace_back(v, w); });
  for (uint32_t r : g.StrongRoots()) edges.emplace_back(root, r);
  BGraph bg(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), root + 1);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(edges);
  const double boost_build_s = Seconds(t0);
  std::printf("boost graph build: %6.3f s (not compared)\n", boost_build_s);

  // The full overload, with dfnum = max for unvisited vertices as its documentation requires:
  // the short overload starts dfnum at 0, so an unreachable predecessor (garbage pointing into
  // the live heap) looks like the entry and corrupts the result (fixed in later Boost versions).
  const uint32_t null_v = boost::graph_traits<BGraph>::null_vertex();
  std::vector<uint32_t> bidom;
  double boost_s = 1e9, boost_cpu = 1e9;
  for (int r = 0; r < a.repeat; ++r) {
    t0 = Clock::now();
    const double c0 = CpuSeconds();
    bidom.assign(root + 1, null_v);
    std::vector<uint32_t> dfnum(root + 1, UINT32_MAX), parent(root + 1, null_v),
        by_dfnum(root + 1, null_v);
    auto index = get(boost::vertex_index, bg);
    boost::lengauer_tarjan_dominator_tree(
        bg, root, index, boost::make_iterator_property_map(dfnum.begin(), index),
        boost::make_iterator_property_map(parent.begin(), index), by_dfnum,
        boost::make_iterator_property_map(bidom.begin(), index));
    boost_s = std::min(boost_s, Seconds(t0));
    boost_cpu = std::min(boost_cpu, CpuSeconds() - c0);
  }
  const double rss_boost = PeakRssMiB();

  uint64_t mismatches = 0;
  for (uint32_t v = 0; v < g.node_count(); ++v) {
    const uint32_t want = dom.reachable(v) ? dom.idom(v) : null_v;
    if (bidom[v] != want && mismatches < 5)
      std::printf("mismatch at %u: ours %u boost %u\n", v, want, bidom[v]);
    mismatches += bidom[v] != want;
  }
  std::printf(
      "boost lengauer_tarjan_dominator_tree: %7.3f s, CPU %.3f s (peak RSS %.0f MiB); idom "
      "mismatches: %llu\n",
      boost_s, boost_cpu, rss_boost, (unsigned long long)mismatches);
  std::printf(
      "ratio: boost LT / ours (dominators+retained) = %.2fx wall, %.2fx CPU; boost LT / ours "
      "(dominators+retained+type retained) = %.2fx wall\n",
      boost_s / dom_s, boost_cpu / dom_cpu, boost_s / (dom_s + types_s));
  return mismatches ? 1 : 0;
}
