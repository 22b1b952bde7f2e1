#include "xrpm/analysis/graph_index.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "xrpm/model/fork_join.h"
#include "xrpm/model/type_name.h"

namespace xrpm::analysis {

namespace {
constexpr std::string_view kPhaseResolve = "index: resolving references";
constexpr std::string_view kPhaseReverse = "index: reverse references";
}  // namespace

GraphIndex GraphIndex::Build(const Snapshot& snap, const GraphIndexOptions& opts,
                             const Progress& progress) {
  if (snap.object_count() >= kNoIndex - 1)
    throw std::length_error("heap too large to index: " + std::to_string(snap.object_count()) +
                            " objects (the limit is 4294967293)");
  if (snap.ref_count() >= kNoIndex)
    throw std::length_error("heap too large to index: " + std::to_string(snap.ref_count()) +
                            " references (the limit is 4294967294)");
  for (size_t i = 0; i < snap.object_count(); ++i)
    if (snap.object_type[i] >= snap.type_count())
      throw std::invalid_argument("object " + std::to_string(i) + " has type index " +
                                  std::to_string(snap.object_type[i]) + " but the snapshot has " +
                                  std::to_string(snap.type_count()) + " types");
  const unsigned threads = ResolveThreads(opts.threads);
  GraphIndex g;
  g.snap_ = &snap;
  g.n_ = static_cast<uint32_t>(snap.object_count());
  progress.Report("index: object ids", 0);
  g.resolver_ = IdResolver::Build(snap.object_id.span(), threads, progress);
  if (opts.forward) {
    g.ResolveEdges(threads, progress);
    if (opts.reverse) g.BuildReverse(threads, progress);  // else In() is empty
  }
  g.ResolveRoots();
  g.GroupTypes(opts.instances);
  progress.Report("index: done", 1);
  return g;
}

void GraphIndex::ResolveEdges(unsigned threads, const Progress& progress) {
  const Snapshot& s = *snap_;
  const size_t n = n_, e = s.ref_count();
  out_.resize(e);
  out_off_.resize(size_t{n} + 1);
  auto bounds = WeightedBounds(n, threads, [&](size_t i) { return s.ref_begin(i); });
  std::atomic<uint64_t> dangling{0};
  std::atomic<bool> stop{false};
  RunChunks(bounds, [&](size_t chunk, size_t begin, size_t end) {
    uint64_t local = 0;
    // Blocks of objects up to the next multiple of 1,024 (so every multiple of 16,384, where
    // progress is reported, starts one): their references lie in one run, resolved together.
    for (size_t i = begin; i < end;) {
      const size_t block_end = std::min(end, (i | 0x3FF) + 1);
      if ((i & 0x3FFF) == 0) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (chunk == 0) {
          try {
            progress.Report(kPhaseResolve, double(i - begin) / double(end - begin));
          } catch (...) {
            stop = true;
            throw;
          }
        } else if (progress.cancelled()) {
          return;
        }
      }
      const uint64_t first = s.ref_begin(i), last = s.ref_end[block_end - 1];
      resolver_.FindMany({s.refs.data() + first, last - first}, out_.data() + first);
      for (; i < block_end; ++i) {
        uint32_t valid = 0;
        for (uint64_t k = s.ref_begin(i), ke = s.ref_end[i]; k < ke; ++k)
          valid += out_[k] != kNoIndex;
        local += (s.ref_end[i] - s.ref_begin(i)) - valid;
        out_off_[i + 1] = valid;
      }
    }
    dangling += local;
  });
  progress.ThrowIfCancelled();
  dangling_refs_ = dangling;
  for (size_t i = 0; i < n; ++i) out_off_[i + 1] += out_off_[i];
  if (dangling_refs_) {  // squeeze out the dangling entries, keeping record order
    size_t w = 0;
    for (size_t k = 0; k < e; ++k)
      if (out_[k] != kNoIndex) out_[w++] = out_[k];
    out_.resize(w);
    out_.shrink_to_fit();
  }
}

void GraphIndex::BuildReverse(unsigned threads, const Progress& progress) {
  const uint32_t n = n_;
  in_off_.resize(size_t{n} + 1);
  in_.resize(out_.size());
  // Each chunk owns a range of targets and scans every edge: no atomics, in-lists sorted by source.
  auto bounds = EvenBounds(n, threads, 1 << 16);
  std::atomic<bool> stop{false};
  auto scan = [&](size_t chunk, size_t lo, size_t hi, auto&& on_edge) {
    const uint32_t span = static_cast<uint32_t>(hi - lo);
    for (uint32_t v = 0; v < n; ++v) {
      if ((v & 0xFFFF) == 0) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (chunk == 0) {
          try {
            progress.Report(kPhaseReverse, double(v) / n);
          } catch (...) {
            stop = true;
            throw;
          }
        } else if (progress.cancelled()) {
          return;
        }
      }
      for (uint32_t k = out_off_[v], ke = out_off_[v + 1]; k < ke; ++k) {
        const uint32_t t = out_[k];
        if (t - static_cast<uint32_t>(lo) < span) on_edge(v, t);
      }
    }
  };
  RunChunks(bounds, [&](size_t chunk, size_t lo, size_t hi) {
    scan(chunk, lo, hi, [&](uint32_t, uint32_t t) { ++in_off_[t + 1]; });
  });
  progress.ThrowIfCancelled();
  for (size_t i = 0; i < n; ++i) in_off_[i + 1] += in_off_[i];
  // Fill with in_off_[t] as the cursor; afterwards in_off_[t] is t's end = (t+1)'s begin.
  RunChunks(bounds, [&](size_t chunk, size_t lo, size_t hi) {
    scan(chunk, lo, hi, [&](uint32_t v, uint32_t t) { in_[in_off_[t]++] = v; });
  });
  progress.ThrowIfCancelled();
  for (size_t t = n; t > 0; --t) in_off_[t] = in_off_[t - 1];
  in_off_[0] = 0;
}

void GraphIndex::ResolveRoots() {
  const Snapshot& s = *snap_;
  const size_t r_count = s.root_count();
  root_node_.resize(r_count, kNoIndex);
  root_container_.resize(r_count, kNoIndex);
  strong_bits_.resize((size_t{n_} + 63) / 64, 0);

  // Raw type id -> type index, per section (a static's container is named by raw id).
  std::vector<std::unordered_map<TypeId, uint32_t>> ids_by_section(
      std::max<size_t>(1, s.sections.size()));
  for (uint32_t t = 0; t < s.types.size(); ++t) {
    uint32_t sec = s.types[t].section < ids_by_section.size() ? s.types[t].section : 0;
    ids_by_section[sec].emplace(s.types[t].id, t);  // keeps the first on duplicates
  }
  size_t sec = 0;
  PodVector<uint64_t> weak_nodes;
  for (size_t r = 0; r < r_count; ++r) {
    while (sec + 1 < s.sections.size() && r >= s.sections[sec].roots_end) ++sec;
    const uint32_t v = resolver_.Find(s.root_object[r]);
    root_node_[r] = v;
    if (s.root_kind_of(r) == RootKind::kStatic) {
      auto& ids = ids_by_section[std::min(sec, ids_by_section.size() - 1)];
      if (auto it = ids.find(s.root_container[r]); it != ids.end()) root_container_[r] = it->second;
    }
    if (v == kNoIndex) {
      ++dangling_roots_;
      continue;
    }
    if (s.root_flags[r] & kRootWeak) {
      weak_nodes.push_back(v);
      continue;
    }
    strong_record_.push_back(uint64_t{v} << 32 | r);
    strong_bits_[v >> 6] |= uint64_t{1} << (v & 63);
  }
  // Per node its best-ranked record first: sort by (node, rank, record), keep one per node.
  auto rank = [&](uint64_t e) {
    return RootRank(s.root_kind_of(uint32_t(e)), s.root_flags[uint32_t(e)]);
  };
  std::sort(strong_record_.begin(), strong_record_.end(), [&](uint64_t a, uint64_t b) {
    if ((a >> 32) != (b >> 32)) return a < b;
    const uint8_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  strong_record_.resize(static_cast<size_t>(
      std::unique(strong_record_.begin(), strong_record_.end(),
                  [](uint64_t a, uint64_t b) { return (a >> 32) == (b >> 32); }) -
      strong_record_.begin()));
  // The nodes in the order of their best record's (rank, record).
  PodVector<uint64_t> order;
  order.reserve(strong_record_.size());
  for (uint64_t e : strong_record_) order.push_back(uint64_t{rank(e)} << 32 | uint32_t(e));
  std::sort(order.begin(), order.end());
  strong_roots_.reserve(order.size());
  for (uint64_t o : order) strong_roots_.push_back(root_node_[uint32_t(o)]);
  std::sort(weak_nodes.begin(), weak_nodes.end());
  for (size_t i = 0; i < weak_nodes.size(); ++i)
    if ((i == 0 || weak_nodes[i] != weak_nodes[i - 1]) && !IsStrongRoot(weak_nodes[i]))
      ++weak_only_roots_;
}

uint8_t RootRank(RootKind kind, uint8_t flags) {
  if (flags & kRootConservative) return 6;
  switch (kind) {
    case RootKind::kStatic:
      return 0;
    case RootKind::kHandle:
      return 1;
    case RootKind::kLocal:
      return 2;
    case RootKind::kFinalizer:
      return 3;
    case RootKind::kGcSpecific:
      return 4;
    case RootKind::kInternal:
      return 5;
  }
  return 5;
}

uint32_t GraphIndex::StrongRootRecord(uint32_t v) const {
  auto it = std::lower_bound(strong_record_.begin(), strong_record_.end(), uint64_t{v} << 32);
  if (it == strong_record_.end() || (*it >> 32) != v) return kNoIndex;
  return static_cast<uint32_t>(*it);
}

void GraphIndex::GroupTypes(bool instances) {
  const Snapshot& s = *snap_;
  std::unordered_map<std::string_view, uint32_t> by_name;
  group_of_type_.resize(s.types.size());
  for (size_t t = 0; t < s.types.size(); ++t) {
    auto [it, fresh] = by_name.emplace(s.types[t].name, static_cast<uint32_t>(group_names_.size()));
    if (fresh) group_names_.push_back(&s.types[t].name);
    group_of_type_[t] = it->second;
  }
  const size_t groups = group_names_.size();
  group_off_.resize(groups + 1, 0);
  for (uint32_t v = 0; v < n_; ++v) ++group_off_[group_of(v) + 1];
  for (size_t g = 0; g < groups; ++g) group_off_[g + 1] += group_off_[g];
  if (!instances) return;
  by_group_.resize(size_t{n_});
  for (uint32_t v = 0; v < n_; ++v) by_group_[group_off_[group_of(v)]++] = v;
  for (size_t g = groups; g > 0; --g) group_off_[g] = group_off_[g - 1];
  if (groups) group_off_[0] = 0;
}

uint32_t GraphIndex::OutCount(uint32_t v) const {
  if (has_forward()) return out_off_[v + 1] - out_off_[v];
  uint32_t count = 0;
  ForEachOut(v, [&](uint32_t) { ++count; });
  return count;
}

std::vector<uint32_t> GraphIndex::OutList(uint32_t v) const {
  if (has_forward()) {
    const std::span<const uint32_t> out = Out(v);
    return {out.begin(), out.end()};
  }
  std::vector<uint32_t> out;
  ForEachOut(v, [&](uint32_t w) { out.push_back(w); });
  return out;
}

std::vector<uint32_t> GraphIndex::Referrers(uint32_t v, unsigned threads) const {
  if (has_reverse()) {
    const std::span<const uint32_t> in = In(v);
    return {in.begin(), in.end()};
  }
  const Snapshot& s = *snap_;
  const ObjectId id = s.object_id[v];
  // A reference to an id two objects share resolves to the first of them only.
  if (resolver_.Find(id) != v) return {};
  // The references in equal chunks, compared in a flat loop; a hit's source is the first object
  // whose references end after it (ref_end is sorted): hits are few, the search per hit cheap.
  const uint64_t e = s.ref_count();
  const std::vector<size_t> bounds = EvenBounds(e, ResolveThreads(threads), size_t{1} << 16);
  std::vector<std::vector<uint64_t>> hits(bounds.size() - 1);
  RunChunks(bounds, [&](size_t chunk, size_t begin, size_t end) {
    const ObjectId* refs = s.refs.data();
    for (size_t k = begin; k < end; ++k)
      if (refs[k] == id) hits[chunk].push_back(k);
  });
  std::vector<uint32_t> out;
  const uint64_t* ref_end = s.ref_end.data();
  for (const std::vector<uint64_t>& chunk : hits)
    for (const uint64_t k : chunk)
      out.push_back(static_cast<uint32_t>(std::upper_bound(ref_end, ref_end + n_, k) - ref_end));
  return out;
}

uint32_t GraphIndex::FindGroup(std::string_view name) const {
  const std::string canonical = CanonicalTypeName(name);
  for (uint32_t g = 0; g < group_names_.size(); ++g)
    if (*group_names_[g] == canonical) return g;
  for (size_t t = 0; t < snap_->types.size(); ++t)
    if (snap_->types[t].written_name() == name) return group_of_type_[t];
  return kNoIndex;
}

size_t GraphIndex::MemoryBytes() const {
  return resolver_.MemoryBytes() + out_off_.bytes_reserved() + out_.bytes_reserved() +
         in_off_.bytes_reserved() + in_.bytes_reserved() + root_node_.bytes_reserved() +
         root_container_.bytes_reserved() + strong_roots_.bytes_reserved() +
         strong_bits_.bytes_reserved() + strong_record_.bytes_reserved() +
         group_names_.capacity() * sizeof(void*) + group_of_type_.bytes_reserved() +
         group_off_.bytes_reserved() + by_group_.bytes_reserved();
}

}  // namespace xrpm::analysis
