#include "xrpm/app/doc_analysis.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <span>
#include <system_error>

#include "xrpm/analysis/heap_report.h"
#include "xrpm/analysis/index_budget.h"
#include "xrpm/app/glyph_set.h"

namespace xrpm::app {
namespace {

// Bridges the engine's Progress (phase name + fraction) to the worker's TaskContext.
Progress MakeProgress(TaskContext& ctx, std::string* phase) {
  Progress p;
  p.cancel = ctx.cancel_flag();
  p.on_progress = [&ctx, phase](std::string_view name, double fraction) {
    if (name != *phase) {
      *phase = std::string(name);
      ctx.SetPhase(*phase, 1000);
    }
    ctx.SetProgress(static_cast<uint64_t>(std::clamp(fraction, 0.0, 1.0) * 1000));
  };
  return p;
}

void Finish(std::vector<RootGroup>& groups, const analysis::DominatorTree& dom,
            const analysis::GraphIndex& g) {
  for (auto& grp : groups) {
    std::vector<uint32_t> nodes;
    nodes.reserve(grp.records.size());
    for (uint32_t r : grp.records) {
      const uint32_t v = g.root_node(r);
      if (v != kNoIndex) nodes.push_back(v);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    grp.objects = nodes.size();
    for (uint32_t v : nodes) grp.retained += dom.retained(v);
    auto retained_of = [&](uint32_t r) {
      const uint32_t v = g.root_node(r);
      return v == kNoIndex ? uint64_t{0} : dom.retained(v);
    };
    std::stable_sort(grp.records.begin(), grp.records.end(),
                     [&](uint32_t a, uint32_t b) { return retained_of(a) > retained_of(b); });
  }
  std::stable_sort(groups.begin(), groups.end(), [](const RootGroup& a, const RootGroup& b) {
    return a.retained != b.retained ? a.retained > b.retained : a.records.size() > b.records.size();
  });
}

RootsOverview GroupRoots(const Snapshot& s, const analysis::GraphIndex& g,
                         const analysis::DominatorTree& dom) {
  RootsOverview o;
  std::map<std::pair<uint8_t, uint8_t>, size_t> kind_at;
  std::map<uint32_t, size_t> static_at;
  for (uint32_t r = 0; r < s.root_count(); ++r) {
    if (g.root_node(r) == kNoIndex) ++o.dangling;
    const auto key = std::make_pair(s.root_kind[r], s.root_flags[r]);
    auto [it, fresh] = kind_at.try_emplace(key, o.by_kind.size());
    if (fresh) o.by_kind.push_back({RootKind(key.first), key.second, kNoIndex, {}, 0, 0});
    o.by_kind[it->second].records.push_back(r);
    if (s.root_kind_of(r) == RootKind::kStatic) {
      const uint32_t c = g.root_container_type(r);
      auto [st, f2] = static_at.try_emplace(c, o.statics.size());
      if (f2) o.statics.push_back({RootKind::kStatic, 0, c, {}, 0, 0});
      o.statics[st->second].records.push_back(r);
    }
  }
  Finish(o.by_kind, dom, g);
  Finish(o.statics, dom, g);
  return o;
}

}  // namespace

std::shared_ptr<const DocAnalysis> AnalyseDoc(std::shared_ptr<const Snapshot> snap,
                                              TaskContext& ctx, DocIndex index) {
  const auto t0 = std::chrono::steady_clock::now();
  auto a = std::make_shared<DocAnalysis>();  // members are built in place: the forest and the
  a->snapshot = std::move(snap);             // summaries point into the index
  std::string phase;
  const Progress progress = MakeProgress(ctx, &phase);
  const Snapshot& s = *a->snapshot;

  if (index == DocIndex::kAuto)
    index = analysis::CsrsFit(s.object_count(), s.ref_count(), 2, kDocWorkBytesPerObject,
                              AvailableMemoryBytes())
                ? DocIndex::kFull
                : DocIndex::kLean;
  a->lean_index = index == DocIndex::kLean;
  a->heap = analysis::HeapAnalysis::Indexed(
      s, {.index = {.reverse = !a->lean_index, .forward = !a->lean_index}}, progress);
  const analysis::GraphIndex& g = a->heap.index;

  // The dominator tree and type statistics here; the inspections, the plain root-path forest,
  // the suspects' path memo and the sorted child lists beside them (heap_report.h), or after
  // them on the lean index: a heap that needs it has no memory for both at once. Progress
  // is shown for the dominator tree and type statistics (the phase is the worker's one line).
  const unsigned threads = a->lean_index ? 1 : 0;
  analysis::SuspectOptions suspect_options;  // the defaults, for the memo and the suspects
  suspect_options.threads = threads;
  analysis::SharedPasses p = analysis::RunSharedPasses(
      a->heap,
      {.threads = threads, .suspects = suspect_options, .plain_forest = true, .children = true},
      progress);
  a->inspections = std::move(p.inspections);
  a->children = std::move(p.children);
  a->totals = analysis::Totals(a->heap);
  a->retained_by_type.resize(s.type_count());
  for (uint32_t t = 0; t < s.type_count(); ++t)
    a->retained_by_type[t] = a->heap.types[g.group_of_type(t)].retained_bytes;

  ctx.SetPhase("Leak suspects");
  a->suspects = analysis::FindSuspects(
      a->heap, suspect_options, progress,
      {.children = &a->children, .merger = p.paths.merger.get(), .forest = p.paths.forest.get()});
  a->path_forest = std::move(p.paths.forest);  // the merger points to it: neither moves
  a->merger = std::move(p.paths.merger);
  a->merger_bytes.store(a->merger->MemoryBytes(), std::memory_order_relaxed);
  // The views read a few child lists at a time: on a heap that needed the lean index, the
  // lists' offsets (4 bytes per object) make way for the per-type order.
  if (a->lean_index) a->children.DropOffsets(a->heap.dom);
  a->by_retained = analysis::RetainedOrder::Build(g, a->heap.dom, threads, progress);
  ctx.SetPhase("Roots");
  progress.ThrowIfCancelled();
  a->roots = GroupRoots(s, g, a->heap.dom);
  a->summary = analysis::Summarize(a->heap);
  ctx.SetPhase("Allocation sites and ages");
  progress.ThrowIfCancelled();
  a->origins = ComputeDocOrigins(s);
  a->glyphs = NonAsciiCodePoints(s);
  a->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  a->StartMemoisingAhead();
  return a;
}

std::vector<uint32_t> RootRecordsOf(const DocAnalysis& a, uint32_t v) {
  std::vector<uint32_t> out;
  const Snapshot& s = *a.snapshot;
  for (uint32_t r = 0; r < s.root_count(); ++r)
    if (a.index().root_node(r) == v) out.push_back(r);
  return out;
}

void DocAnalysis::StartMemoisingAhead() {
  auto memoise = [this] {
    struct Done {
      std::atomic<bool>& flag;
      ~Done() {
        flag.store(true, std::memory_order_release);
        flag.notify_all();
      }
    } done{memoised_ahead};
    // Types below this merge in milliseconds from scratch; a chunk holds the mutex for a few.
    constexpr size_t kFewInstances = 100'000, kChunk = 1 << 16;
    const analysis::GraphIndex& g = index();
    std::vector<uint32_t> groups;
    for (uint32_t grp = 0; grp < g.group_count(); ++grp)
      if (g.Instances(grp).size() >= kFewInstances) groups.push_back(grp);
    std::stable_sort(groups.begin(), groups.end(), [&](uint32_t x, uint32_t y) {
      return g.Instances(x).size() > g.Instances(y).size();
    });
    const size_t budget = merger_bytes.load(std::memory_order_relaxed) + 2 * size_t{g.node_count()};
    for (const uint32_t grp : groups) {
      const std::span<const uint32_t> instances = g.Instances(grp);
      for (size_t i = 0; i < instances.size(); i += kChunk) {
        const std::lock_guard lock(merger_mutex);
        if (stop_ahead.load(std::memory_order_relaxed) ||
            merger_bytes.load(std::memory_order_relaxed) > budget)
          return;
        merger->Memoise(instances.subspan(i, std::min(kChunk, instances.size() - i)), stop_ahead);
        merger_bytes.store(merger->MemoryBytes(), std::memory_order_relaxed);
      }
    }
  };
  // Only time is at stake: a click memoises whatever is missing itself. So a thread that does
  // not start, or memory that runs out on the way, ends this and nothing else.
  try {
    ahead = std::thread([memoise] {
      try {
        memoise();
      } catch (const std::exception&) {
      }
    });
  } catch (const std::system_error&) {
    memoised_ahead.store(true, std::memory_order_release);
  }
}

DocAnalysis::~DocAnalysis() {
  stop_ahead.store(true, std::memory_order_relaxed);
  if (ahead.joinable()) ahead.join();
}

analysis::MergedPaths DocAnalysis::MergeHolders(uint32_t group, size_t max_paths) const {
  const std::lock_guard lock(merger_mutex);
  analysis::MergedPaths out = merger->Merge(index().Instances(group), &dom(), max_paths, 0);
  merger_bytes.store(merger->MemoryBytes(), std::memory_order_relaxed);
  return out;
}

size_t DocAnalysis::MemoryBytes() const {
  const size_t n = heap.index.node_count();
  return heap.index.MemoryBytes() + heap.dom.MemoryBytes() + children.MemoryBytes() +
         n * 4 /* forest */ + merger_bytes.load(std::memory_order_relaxed) +
         by_retained.MemoryBytes() + retained_by_type.size() * 8;
}

}  // namespace xrpm::app
