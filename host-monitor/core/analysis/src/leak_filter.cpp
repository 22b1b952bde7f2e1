#include "xrpm/analysis/leak_filter.h"

#include <algorithm>
#include <unordered_map>

#include "xrpm/analysis/site_stats.h"

namespace xrpm::analysis {
namespace {

std::string Name(const LeakNames& n, int i) {
  return std::string(n[i]);
}

// The boot-relative clock of a capture (its first section's start), when it has one.
std::optional<uint64_t> CaptureClock(const Snapshot& s) {
  if (s.sections.empty()) return std::nullopt;
  return s.sections.front().start_ms;
}

}  // namespace

std::string CheckLeakCaptures(const Snapshot& a, const Snapshot& b, const Snapshot& c,
                              const LeakNames& names) {
  const Snapshot* s[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i)
    if (!s[i]->has_origins())
      return Name(names, i) +
             " has no allocation sites and ages (its runtime or agent did not record them, or "
             "it was read from a format that cannot hold them: .gclog, IBM classic, .gcdump); "
             "the leak filter needs all three captures with origins, as captured or saved as "
             ".xrpm";
  for (int i = 0; i < 2; ++i) {
    const uint64_t f = s[i]->origins->capture_frame, g = s[i + 1]->origins->capture_frame;
    if (f > g)
      return "the captures are not in order: " + Name(names, i) + " was captured at frame " +
             std::to_string(f) + ", after " + Name(names, i + 1) + " (frame " + std::to_string(g) +
             "); give them oldest first (captures of different runs of the game cannot be "
             "compared)";
  }
  for (int i = 0; i < 2; ++i) {
    const Snapshot &x = *s[i], &y = *s[i + 1];
    if (x.capture && y.capture) {
      // The same game on the same runtime (the endpoint may be spelled differently by
      // different hosts, and each capture is a new connection: neither identifies a run).
      const DeviceInfo &d = x.capture->device, &e = y.capture->device;
      const bool app = d.app_name != e.app_name;
      if (app || d.runtime_name != e.runtime_name)
        return Name(names, i) + " and " + Name(names, i + 1) +
               " are not from one run of the game: their " + (app ? "app" : "runtime") +
               " differs ('" + (app ? d.app_name : d.runtime_name) + "' vs '" +
               (app ? e.app_name : e.runtime_name) + "')";
    }
    const std::optional<uint64_t> p = CaptureClock(x), q = CaptureClock(y);
    if (p && q && *p > *q)
      return Name(names, i) + " and " + Name(names, i + 1) +
             " are not from one run of the game: the device clock went backwards (" +
             std::to_string(*p) + " ms, then " + std::to_string(*q) +
             " ms) while the frame "
             "counter did not";
  }
  return {};
}

LeakReport FindLeaks(const Snapshot& a, const Snapshot& b, const GraphIndex& g,
                     const RootPathForest& forest, const LeakOptions& opts, const LeakNames& names,
                     const Progress& progress) {
  const Snapshot& c = g.snapshot();
  if (std::string why = CheckLeakCaptures(a, b, c, names); !why.empty()) throw LeakFilterError(why);
  LeakReport r;
  r.window_first = a.origins->capture_frame;
  r.window_end = b.origins->capture_frame;
  r.c_frame = c.origins->capture_frame;
  r.sample_bytes = c.origins->sample_bytes;
  r.sampled = r.sample_bytes > 0;
  progress.Report("leaks: selecting", 0);

  // 1. Select the window's reachable objects and key them by (type group, site).
  const uint32_t n = g.node_count();
  const size_t n_sites = c.origins->sites.size();
  std::unordered_map<uint64_t, uint32_t> group_of_key;
  std::vector<LeakGroup> groups;
  PodVector<uint32_t> selected, selected_group;
  for (uint32_t v = 0; v < n; ++v) {
    if (!c.origin_known(v) || c.object_alloc_site[v] >= n_sites) {
      ++r.unknown_count;
      continue;
    }
    const uint64_t f = c.object_alloc_frame[v];
    if (f < r.window_first) {
      ++r.before_count;
      continue;
    }
    if (f >= r.window_end) {
      ++r.after_count;
      continue;
    }
    const uint32_t size = c.object_size[v];
    if (!forest.reachable(v)) {
      ++r.unreachable_count;
      r.unreachable_bytes += size;
      continue;
    }
    const uint32_t type_group = g.group_of(v), site = c.object_alloc_site[v];
    auto [it, fresh] = group_of_key.try_emplace(uint64_t(type_group) << 32 | site,
                                                static_cast<uint32_t>(groups.size()));
    if (fresh) {
      LeakGroup& ng = groups.emplace_back();
      ng.group = type_group;
      ng.type = g.group_name(type_group);
      ng.site = site;
    }
    LeakGroup& lg = groups[it->second];
    const double w = OriginWeight(c, size);
    ++lg.count;
    lg.bytes += size;
    lg.est_count += w;
    lg.est_bytes += w * size;
    selected.push_back(v);
    selected_group.push_back(it->second);
  }
  progress.Report("leaks: grouping", 0.5);

  // 2. Objects per group (a counting sort keeps them ascending).
  for (LeakGroup& lg : groups) {
    lg.objects.reserve(lg.count);
    r.count += lg.count;
    r.bytes += lg.bytes;
  }
  for (size_t k = 0; k < selected.size(); ++k)
    groups[selected_group[k]].objects.push_back(selected[k]);

  // 3. Largest first; keep max_groups.
  std::sort(groups.begin(), groups.end(), [](const LeakGroup& x, const LeakGroup& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.count != y.count) return x.count > y.count;
    if (x.type != y.type) return x.type < y.type;
    return x.site < y.site;
  });
  if (opts.max_groups && groups.size() > opts.max_groups) {
    r.other_groups = groups.size() - opts.max_groups;
    groups.resize(opts.max_groups);
  }

  // 4. What holds each group in C.
  progress.Report("leaks: merging paths", 0.75);
  PathMerger merger(g, forest);
  for (LeakGroup& lg : groups) lg.paths = merger.Merge(lg.objects, nullptr, opts.max_paths);
  r.groups = std::move(groups);
  return r;
}

}  // namespace xrpm::analysis
