#include "xrpm/analysis/suspects.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>

#include "xrpm/model/human_format.h"

namespace xrpm::analysis {

namespace {

std::string ObjectName(const GraphIndex& g, uint32_t v) {  // "Enemy@1ce056", as the CLI prints
  return g.group_name(g.group_of(v)) + "@" + FormatHexDigits(g.snapshot().object_id[v]);
}

std::string Count(uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// The bytes a suspect retains at least: min_share of the reachable bytes, at least one byte.
uint64_t Threshold(const SuspectOptions& opts, uint64_t reachable_bytes) {
  return std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(opts.min_share * double(reachable_bytes))));
}

// Objects in the dominator subtree of v (v included), each marked in `in_suspect`. Iterative.
uint64_t MarkSubtree(const DominatorChildren& ch, uint32_t v, std::vector<bool>& in_suspect) {
  uint64_t count = 0;
  std::vector<uint32_t> stack{v};
  while (!stack.empty()) {
    const uint32_t x = stack.back();
    stack.pop_back();
    ++count;
    in_suspect[x] = true;
    for (uint32_t c : ch.Children(x)) stack.push_back(c);
  }
  return count;
}

}  // namespace

std::vector<Suspect> FindSuspects(const HeapAnalysis& a, const SuspectOptions& opts,
                                  const Progress& progress, const SuspectInputs& in) {
  std::vector<Suspect> out;
  const GraphIndex& g = a.index;
  const DominatorTree& dom = a.dom;
  const uint64_t total = dom.reachable_bytes();
  if (total == 0) return out;
  const uint64_t threshold = Threshold(opts, total);
  progress.Report("suspects: dominator tree", 0);
  // The dominator children: the caller's, or built for the first object suspect (its subtree
  // and children are counted; a heap with none never needs them).
  std::optional<DominatorChildren> own_children;
  auto children = [&]() -> const DominatorChildren& {
    if (in.children) return *in.children;
    if (!own_children) own_children = DominatorChildren::BuildUnsorted(dom);
    return *own_children;
  };
  // The nodes retaining at least `threshold` (their dominators do too), found in one pass over
  // the retained sizes and ordered by dominator, then largest first (LargerFirst): a node's
  // big children, all the descent reads, are one range of it. Few at the default share; at
  // most every node (O(N log N), like sorting every child list) at a tiny one.
  std::vector<uint32_t> big;
  for (uint32_t v = 0; v < g.node_count(); ++v)
    if (dom.retained(v) >= threshold) big.push_back(v);
  std::sort(big.begin(), big.end(), [&](uint32_t x, uint32_t y) {
    return dom.idom(x) != dom.idom(y) ? dom.idom(x) < dom.idom(y)
                                      : DominatorChildren::LargerFirst(dom, x, y);
  });
  auto big_children = [&](uint32_t v) -> std::span<const uint32_t> {
    const auto b = std::lower_bound(big.begin(), big.end(), v,
                                    [&](uint32_t node, uint32_t d) { return dom.idom(node) < d; });
    const auto e = std::upper_bound(b, big.end(), v,
                                    [&](uint32_t d, uint32_t node) { return d < dom.idom(node); });
    return {b, e};
  };

  // ---- big objects ----
  auto bigger = [&](uint32_t x, uint32_t y) {  // heap order: largest retained first
    return dom.retained(x) != dom.retained(y) ? dom.retained(x) < dom.retained(y) : x > y;
  };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(bigger)> starts(bigger);
  auto push_big = [&](uint32_t parent, uint32_t except, uint32_t skip_group) {
    for (const uint32_t c : big_children(parent))
      if (c != except && g.group_of(c) != skip_group) starts.push(c);
  };
  push_big(dom.virtual_root(), kNoIndex, kNoIndex);
  std::optional<PathFinder> finder;  // 4 B/object: made for the first object suspect
  std::optional<RootPathForest> own_forest;
  const RootPathForest* forest = in.forest;
  auto path_to_root = [&](uint32_t v) {
    if (g.has_reverse()) {
      if (!finder) finder.emplace(g);
      return finder->ShortestPathToRoot(v, progress);
    }
    if (!forest) forest = &own_forest.emplace(RootPathForest::Build(g, progress));
    return forest->PathTo(v);
  };
  std::vector<bool> in_suspect(g.node_count(), false);  // retained by an object suspect
  while (!starts.empty() && out.size() < opts.max_suspects) {
    uint32_t v = starts.top();
    starts.pop();
    while (true) {                                             // descend to the accumulation point
      const std::span<const uint32_t> kids = big_children(v);  // the largest child, if big
      if (kids.empty()) break;
      const uint32_t c = kids[0];
      const bool keeps_most =
          double(dom.retained(c)) >= opts.accumulation_share * double(dom.retained(v));
      if (!keeps_most || g.group_of(c) == g.group_of(v)) break;
      push_big(v, c, kNoIndex);
      v = c;
    }
    push_big(v, kNoIndex, g.group_of(v));  // a run of v's own type belongs to this suspect

    Suspect s;
    s.kind = Suspect::Kind::kObject;
    s.group = g.group_of(v);
    s.node = v;
    s.retained_bytes = dom.retained(v);
    s.share = double(s.retained_bytes) / double(total);
    const DominatorChildren& ch = children();
    s.count = MarkSubtree(ch, v, in_suspect);
    std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> by_group;  // count, bytes
    for (uint32_t c : ch.Children(v)) {
      auto& [n, b] = by_group[g.group_of(c)];
      ++n;
      b += dom.retained(c);
    }
    for (auto& [grp, nb] : by_group) {
      if (nb.second > s.top_child_bytes ||
          (nb.second == s.top_child_bytes && grp < s.top_child_group)) {
        s.top_child_group = grp;
        s.top_child_count = nb.first;
        s.top_child_bytes = nb.second;
      }
    }
    s.reason = "one " + ObjectName(g, v) + " retains " + FormatPercent(s.share) +
               " of the reachable heap (" + xrpm::FormatBytes(s.retained_bytes) + " in " +
               Count(s.count, "object") + ")";
    if (s.top_child_group != kNoIndex)
      s.reason += "; most of it in " + std::to_string(s.top_child_count) + " " +
                  g.group_name(s.top_child_group) + " (" + xrpm::FormatBytes(s.top_child_bytes) +
                  ")";
    s.path = path_to_root(v);
    out.push_back(std::move(s));
  }

  // ---- big types made of small objects ----
  // Chosen first, then their instances' paths merged all at once (on several threads).
  const size_t first_type_suspect = out.size();
  std::vector<std::span<const uint32_t>> instance_sets;
  for (const uint32_t grp : a.types.ByRetained()) {
    const TypeStat& st = a.types[grp];
    if (st.retained_bytes < threshold || instance_sets.size() >= opts.max_suspects) break;
    if (st.reachable_count < 2) continue;
    uint64_t biggest = 0, explained = 0;
    for (uint32_t v : g.Instances(grp)) {
      biggest = std::max(biggest, dom.retained(v));
      explained += in_suspect[v];
    }
    if (biggest >= threshold) continue;  // one instance explains it: an object suspect
    // Mostly kept alive by one of the object suspects (the elements of its array): said already.
    if (double(explained) >= opts.accumulation_share * double(st.reachable_count)) continue;
    Suspect s;
    s.kind = Suspect::Kind::kType;
    s.group = grp;
    s.count = st.reachable_count;
    s.retained_bytes = st.retained_bytes;
    s.share = double(st.retained_bytes) / double(total);
    s.reason = std::to_string(st.reachable_count) + " " + g.group_name(grp) + " retain " +
               FormatPercent(s.share) + " of the reachable heap (" +
               xrpm::FormatBytes(st.retained_bytes) + "), none more than " +
               xrpm::FormatBytes(biggest) + " alone";
    out.push_back(std::move(s));
    instance_sets.push_back(g.Instances(grp));
  }
  if (instance_sets.empty()) return out;
  std::optional<PathMerger> own_merger;
  PathMerger* merger = in.merger;
  if (!merger) {
    if (!forest) forest = &own_forest.emplace(RootPathForest::Build(g, progress));
    merger = &own_merger.emplace(g, *forest);
  }
  std::vector<MergedPaths> holders =
      merger->MergeEach(instance_sets, &dom, opts.max_paths, opts.threads);
  for (size_t i = 0; i < holders.size(); ++i)
    out[first_type_suspect + i].holders = std::move(holders[i]);
  return out;
}

size_t PrepareTypeSuspectPaths(const GraphIndex& g, const RootPathForest& forest,
                               PathMerger& merger, const SuspectOptions& opts,
                               const std::atomic<bool>& stop) {
  const Snapshot& s = g.snapshot();
  std::vector<uint64_t> bytes(g.group_count(), 0), count(g.group_count(), 0);
  uint64_t total = 0;
  for (uint32_t v = 0; v < g.node_count(); ++v) {
    if (!forest.reachable(v)) continue;
    total += s.object_size[v];
    bytes[g.group_of(v)] += s.object_size[v];
    ++count[g.group_of(v)];
  }
  if (total == 0) return 0;
  // FindSuspects' threshold: the dominator tree's reachable bytes are these (the same strong
  // roots reach the same objects).
  const uint64_t threshold = Threshold(opts, total);
  std::vector<uint32_t> likely;
  for (uint32_t grp = 0; grp < g.group_count(); ++grp)
    if (bytes[grp] >= threshold && count[grp] >= 2) likely.push_back(grp);
  std::sort(likely.begin(), likely.end(), [&](uint32_t x, uint32_t y) {
    return bytes[x] != bytes[y] ? bytes[x] > bytes[y] : x < y;
  });
  if (likely.size() > opts.max_suspects) likely.resize(opts.max_suspects);
  size_t done = 0;
  for (const uint32_t grp : likely) {
    const std::span<const uint32_t> instances = g.Instances(grp);
    const size_t n = merger.Memoise(instances, stop);
    done += n;
    if (n < instances.size()) break;
  }
  return done;
}

std::vector<Suspect> FindGrowthSuspects(const HeapDiff& diff, const HeapAnalysis& last,
                                        const SuspectOptions& opts, const Progress& progress) {
  std::vector<Suspect> out;
  if (diff.sources.size() < 2) return out;
  std::optional<RootPathForest> forest;
  const uint64_t total = last.dom.reachable_bytes();
  for (const TypeSeries& r : diff.rows) {
    if (out.size() >= opts.max_suspects) break;
    if (!r.grows_steadily || (r.retained_delta <= 0 && r.shallow_delta <= 0)) continue;
    const uint32_t grp = last.index.FindGroup(r.name);
    if (grp == kNoIndex) continue;
    if (!forest) forest = RootPathForest::Build(last.index, progress);
    Suspect s;
    s.kind = Suspect::Kind::kGrowingType;
    s.group = grp;
    s.count = r.at.back().count;
    s.retained_bytes = r.at.back().retained_bytes;
    s.share = total ? double(s.retained_bytes) / double(total) : 0;
    s.count_growth = r.count_delta;
    s.retained_growth = r.retained_delta;
    s.shallow_growth = r.shallow_delta;
    s.holders = MergeShortestPaths(last.index, *forest, &last.dom, grp, opts.max_paths);
    s.reason = r.name + " grew from " + std::to_string(r.at.front().count) + " to " +
               Count(r.at.back().count, "instance") + " over " +
               std::to_string(diff.sources.size()) + " snapshots (retained " +
               (r.retained_delta >= 0 ? "+" : "-") +
               xrpm::FormatBytes(static_cast<uint64_t>(std::llabs(r.retained_delta))) + ", now " +
               xrpm::FormatBytes(s.retained_bytes) + ")";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace xrpm::analysis
