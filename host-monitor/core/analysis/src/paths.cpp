#include "xrpm/analysis/paths.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "xrpm/model/fork_join.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::analysis {

RootDescription DescribeRoot(const GraphIndex& g, uint32_t record) {
  const Snapshot& s = g.snapshot();
  RootDescription d;
  d.record = record;
  d.kind = s.root_kind_of(record);
  d.flags = s.root_flags[record];
  if (d.kind == RootKind::kStatic) {
    const uint32_t t = g.root_container_type(record);
    if (t != kNoIndex) {
      d.container = s.types[t].name;
    } else if (s.root_container[record] != 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "type 0x%x", s.root_container[record]);
      d.container = buf;
    }
  }
  const uint32_t o = record < s.root_origin.size() ? s.root_origin[record] : kNoIndex;
  if (o < s.root_origins.size()) d.origin = s.root_origins[o];
  d.label = s.fields.label_of_root(record);
  return d;
}

std::string RootLabel(const RootDescription& r) {
  std::string s(RootKindName(r.kind));
  if (!r.label.empty())
    s += " " + r.label;  // names the static's class or the frame itself: no origin needed
  else if (!r.container.empty())
    s += " " + r.container;
  if (r.flags) s += " (" + RootFlagsName(r.flags) + ")";
  if (!r.origin.empty() && r.label.empty()) s += " [" + r.origin + "]";
  return s;
}

std::string HoldingField(const GraphIndex& g, uint32_t holder, uint32_t target) {
  const Snapshot& s = g.snapshot();
  return EdgeName(s, holder, s.object_id[target]);
}

namespace {
// "Type.field", "Type[] [12]", or "Type" when the field is unknown.
void AppendStep(std::string& out, const std::string& type, bool repeated, std::string_view field) {
  out += type;
  if (repeated) out += "+";
  if (field.empty()) return;
  out += field.front() == '[' ? " " : ".";
  out += field;
}
}  // namespace

std::string RootPathText(const GraphIndex& g, const RootPath& p, std::string_view arrow) {
  if (!p.found()) return {};
  std::string s = RootLabel(DescribeRoot(g, p.root_record));
  for (size_t k = p.nodes.size(); k-- > 0;) {
    s += arrow;
    AppendStep(s, g.group_name(g.group_of(p.nodes[k])), false,
               k > 0 ? HoldingField(g, p.nodes[k], p.nodes[k - 1]) : std::string());
  }
  return s;
}

std::string MergedPathLabel(const GraphIndex& g, const MergedPath& p, std::string_view arrow) {
  std::string s(RootKindName(p.root_kind));
  if (!p.root_label.empty())
    s += " " + p.root_label;
  else if (p.root_container != kNoIndex && p.root_container < g.snapshot().type_count())
    s += " " + g.snapshot().types[p.root_container].name;
  if (p.root_conservative) s += " (conservative)";
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const MergedStep& st = p.steps[k];
    s += arrow;
    AppendStep(s, g.group_name(st.group), st.repeated,
               k + 1 < p.steps.size() ? std::string_view(p.steps[k + 1].field) : "");
  }
  return s;
}

// ---- PathFinder ----

PathFinder::PathFinder(const GraphIndex& g) : g_(&g) {
  next_.resize(g.node_count(), kNoIndex);
}

RootPath PathFinder::ShortestPathToRoot(uint32_t v, const Progress& progress) {
  RootPath path;
  if (v >= g_->node_count()) return path;
  if (g_->IsStrongRoot(v)) {
    path.nodes = {v};
    path.root_record = g_->StrongRootRecord(v);
    return path;
  }
  struct Reset {  // clears the marks of everything visited, also when cancelled
    PathFinder* f;
    ~Reset() {
      for (uint32_t x : f->queue_) f->next_[x] = kNoIndex;
      f->queue_.clear();
    }
  } reset{this};
  if (!g_->has_reverse()) {
    // No referrer lists: forward from the roots, seeded best rank first (GraphIndex::
    // StrongRoots), until v is met; next_ holds each visited node's parent (a root: itself).
    for (const uint32_t r : g_->StrongRoots()) {
      next_[r] = r;
      queue_.push_back(r);
    }
    for (size_t head = 0; head < queue_.size() && next_[v] == kNoIndex; ++head) {
      if ((head & 0xFFFF) == 0xFFFF)
        progress.Report("paths: searching", double(head) / g_->node_count());
      const uint32_t x = queue_[head];
      g_->ForEachOut(x, [&](uint32_t w) {
        if (next_[w] != kNoIndex) return;
        next_[w] = x;
        queue_.push_back(w);
      });
    }
    if (next_[v] == kNoIndex) return path;
    uint32_t x = v;
    for (; next_[x] != x; x = next_[x]) path.nodes.push_back(x);
    path.nodes.push_back(x);
    path.root_record = g_->StrongRootRecord(x);
    return path;
  }
  queue_.push_back(v);
  next_[v] = v;
  // Level by level; the first level that holds a root is searched to its end, and its
  // best-ranked root (RootRank; the first met among equals) ends the path.
  const Snapshot& s = g_->snapshot();
  auto rank = [&](uint32_t r) {
    const uint32_t rec = g_->StrongRootRecord(r);
    return RootRank(s.root_kind_of(rec), s.root_flags[rec]);
  };
  uint32_t found = kNoIndex;
  uint8_t found_rank = 0;
  for (size_t head = 0, level_end = 1; head < queue_.size(); ++head) {
    if (head == level_end) {
      if (found != kNoIndex) break;
      level_end = queue_.size();
    }
    if ((head & 0xFFFF) == 0xFFFF)
      progress.Report("paths: searching", double(head) / g_->node_count());
    const uint32_t x = queue_[head];
    for (const uint32_t p : g_->In(x)) {
      if (next_[p] != kNoIndex) continue;
      next_[p] = x;
      queue_.push_back(p);
      if (g_->IsStrongRoot(p)) {
        const uint8_t r = rank(p);
        if (found == kNoIndex || r < found_rank) found = p, found_rank = r;
      }
    }
  }
  if (found == kNoIndex) return path;
  for (uint32_t x = found; x != v; x = next_[x]) path.nodes.push_back(x);
  path.nodes.push_back(v);
  std::reverse(path.nodes.begin(), path.nodes.end());
  path.root_record = g_->StrongRootRecord(found);
  return path;
}

// ---- RootPathForest ----

RootPathForest RootPathForest::Build(const GraphIndex& g, const Progress& progress) {
  std::vector<bool> first;
  return BuildDeferring(g, nullptr, first, progress);
}

RootPathForest RootPathForest::BuildDeferring(const GraphIndex& g,
                                              const std::function<uint32_t(uint32_t)>& deferred,
                                              std::vector<bool>& first, const Progress& progress) {
  RootPathForest f;
  f.g_ = &g;
  f.parent_.resize(g.node_count(), kNoIndex);
  PodVector<uint32_t> queue;
  std::vector<std::pair<uint32_t, uint32_t>> later;  // deferred edges met, in BFS order
  for (const uint32_t r : g.StrongRoots()) {
    f.parent_[r] = kSource;
    queue.push_back(r);
  }
  size_t head = 0, first_end = kNoIndex;
  for (size_t next = 0;;) {
    for (; head < queue.size(); ++head) {
      if ((head & 0xFFFFF) == 0xFFFFF)
        progress.Report("paths: shortest paths from roots", double(head) / g.node_count());
      const uint32_t x = queue[head];
      const uint32_t skip = deferred ? deferred(x) : kNoIndex;
      g.ForEachOut(x, [&](uint32_t w) {
        if (f.parent_[w] != kNoIndex) return;
        if (w == skip) return void(later.emplace_back(x, w));
        f.parent_[w] = x;
        queue.push_back(w);
      });
    }
    if (first_end == kNoIndex) first_end = queue.size();
    if (next == later.size()) break;
    for (; next < later.size(); ++next)
      if (const auto [x, w] = later[next]; f.parent_[w] == kNoIndex) {
        f.parent_[w] = x;
        queue.push_back(w);
      }
  }
  if (deferred) {
    first.assign(g.node_count(), false);
    for (size_t i = 0; i < first_end; ++i) first[queue[i]] = true;
  }
  return f;
}

uint32_t RootPathForest::parent_slot(uint32_t v) const {
  const uint32_t p = v < parent_.size() ? parent_[v] : kNoIndex;
  const Snapshot& s = g_->snapshot();
  if (p == kSource || p == kNoIndex || !s.fields.has_slots()) return kNoSlot;
  // The BFS took p's first reference resolving to v; ids resolve to their first object, so
  // that is p's first reference carrying v's id.
  const ObjectId id = s.object_id[v];
  for (uint64_t k = s.ref_begin(p), ke = s.ref_end[p]; k < ke; ++k)
    if (s.refs[k] == id) return s.fields.ref_slot[k];
  return kNoSlot;
}

RootPath RootPathForest::PathTo(uint32_t v) const {
  RootPath path;
  if (v >= parent_.size() || parent_[v] == kNoIndex) return path;
  uint32_t x = v;
  path.nodes.push_back(x);
  while (parent_[x] != kSource) {
    x = parent_[x];
    path.nodes.push_back(x);
  }
  path.root_record = g_->StrongRootRecord(x);
  return path;
}

// ---- MergeShortestPaths ----

// A named namespace, not an anonymous one: PathMerger::State (external linkage) holds one.
namespace path_trie_detail {

// Trie of path prefixes. A root node stands for a root descriptor (kind, container); below it
// one node per type step.
class PathTrie {
 public:
  struct Node {
    uint32_t parent = kNoIndex;           // kNoIndex for a root node
    uint32_t group = kNoIndex;            // kNoIndex for a root node
    RootKind kind = RootKind::kInternal;  // root nodes
    bool conservative = false;            // root nodes: kRootConservative
    uint32_t container = kNoIndex;        // root nodes: type index of the static's class
    uint32_t label = kNoSlot;             // root nodes: index into root_labels, or kNoSlot
    uint32_t field = kNoSlot;    // the field of the parent step's type holding it, kAnyElement
    uint32_t holder = kNoIndex;  // a type index of the parent step (to name `field`)
  };
  static constexpr uint32_t kAnyElement = kNoSlot - 1;  // every element of an array: "[]"

  uint32_t Root(RootKind kind, bool conservative, uint32_t container, uint32_t container_group,
                uint32_t label) {
    const Key key{uint64_t(conservative) << 40 | uint64_t(kind) << 32 | container_group, label};
    auto [it, fresh] = roots_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
    if (fresh)
      nodes_.push_back(
          {.kind = kind, .conservative = conservative, .container = container, .label = label});
    return it->second;
  }
  uint32_t Child(uint32_t base, uint32_t group, uint32_t field, uint32_t holder) {
    if (nodes_[base].group == group) return base;  // a run of one type collapses into one step
    // Open addressing, linear probing, at most half full: one cache line per lookup mostly.
    if (2 * (child_count_ + 1) > child_slots_.size()) GrowChildren();
    const size_t mask = child_slots_.size() - 1;
    for (size_t i = ChildHash(base, group, field) & mask;; i = (i + 1) & mask) {
      ChildSlot& slot = child_slots_[i];
      if (slot.node == kNoIndex) {
        slot = {base, group, field, static_cast<uint32_t>(nodes_.size())};
        ++child_count_;
        nodes_.push_back({.parent = base, .group = group, .field = field, .holder = holder});
        return slot.node;
      }
      if (slot.base == base && slot.group == group && slot.field == field) return slot.node;
    }
  }
  const Node& operator[](uint32_t i) const { return nodes_[i]; }
  uint32_t size() const { return static_cast<uint32_t>(nodes_.size()); }
  size_t MemoryBytes() const {
    return nodes_.size() * sizeof(Node) + child_slots_.size() * sizeof(ChildSlot) +
           roots_.size() * (sizeof(Key) + 3 * sizeof(void*));
  }

 private:
  struct Key {
    uint64_t a;
    uint32_t b;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.a * 0x9E3779B97F4A7C15ull ^ k.b);
    }
  };
  struct ChildSlot {  // (base, group, field) -> node; node kNoIndex: empty
    uint32_t base = kNoIndex, group = kNoIndex, field = kNoSlot, node = kNoIndex;
  };
  static size_t ChildHash(uint32_t base, uint32_t group, uint32_t field) {
    const uint64_t h = (uint64_t(base) << 32 | group) * 0x9E3779B97F4A7C15ull ^
                       uint64_t(field) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ h >> 29);
  }
  void GrowChildren() {
    PodVector<ChildSlot> old(std::max<size_t>(64, 2 * child_slots_.size()), ChildSlot{});
    old.swap(child_slots_);
    const size_t mask = child_slots_.size() - 1;
    for (const ChildSlot& c : old) {
      if (c.node == kNoIndex) continue;
      size_t i = ChildHash(c.base, c.group, c.field) & mask;
      while (child_slots_[i].node != kNoIndex) i = (i + 1) & mask;
      child_slots_[i] = c;
    }
  }
  PodVector<Node> nodes_;
  std::unordered_map<Key, uint32_t, KeyHash> roots_;
  PodVector<ChildSlot> child_slots_;  // a power of two, or empty
  size_t child_count_ = 0;
};

}  // namespace path_trie_detail

using path_trie_detail::PathTrie;

// What one thread of a Merge counts, per trie node: the runs it saw (the Merge's epoch there)
// and the tally of the instances on that path. Trie node -> index into `tallies` (kNoIndex
// outside a Merge), so that counting an instance is an array access instead of a hash lookup;
// one compact tally per distinct path (a type's instances may lie on 10^5 of them), made a
// MergedPath only for the few shown.
struct MergePart {
  struct Tally {
    uint64_t count, shallow_bytes, retained_bytes;
    uint32_t example, trie_node;
  };
  PodVector<uint32_t> run_epoch;
  PodVector<uint32_t> path_of_trie;
  PodVector<Tally> tallies;
  uint64_t instances = 0, unreachable = 0;

  Tally& TallyOf(uint32_t trie_node, size_t trie_size) {
    if (trie_node >= path_of_trie.size())
      path_of_trie.resize(std::max<size_t>(trie_size, 2 * size_t{trie_node} + 16), kNoIndex);
    uint32_t& slot = path_of_trie[trie_node];
    if (slot == kNoIndex) {  // listed first, so that Clear finds every slot it set
      tallies.push_back({.count = 0,
                         .shallow_bytes = 0,
                         .retained_bytes = 0,
                         .example = kNoIndex,
                         .trie_node = trie_node});
      slot = static_cast<uint32_t>(tallies.size() - 1);
    }
    return tallies[slot];
  }
  void Clear() {
    for (const Tally& t : tallies) path_of_trie[t.trie_node] = kNoIndex;
    tallies.clear();
    instances = unreachable = 0;
  }
  size_t MemoryBytes() const {
    return (run_epoch.size() + path_of_trie.size()) * 4 + tallies.capacity() * sizeof(Tally);
  }
};

// One Merge's working state: what it marks and counts, nothing it shares. A merger keeps one
// for its own Merges; MergeEach gives every further thread its own. A Merge on two threads
// gives each a part and shares the marks.
struct MergeScratch {
  // Per node: the Merge (mark, one byte: 1..255, every node forgotten when it wraps) that last
  // walked it; per trie node, in the parts: the Merge (epoch) that saw a run there. A run is a
  // property of the set merged, not of the trie: a "+" shows where one of this set's own paths
  // has a run, whatever other sets merged before (as a fresh merger would).
  PodVector<uint8_t> walked;
  uint32_t epoch = 0;
  uint8_t mark = 0;
  std::array<MergePart, 2> parts;

  explicit MergeScratch(uint32_t nodes) { walked.resize(nodes, uint8_t{0}); }
  bool RunAt(uint32_t trie_node) const {
    return std::any_of(parts.begin(), parts.end(), [&](const MergePart& p) {
      return trie_node < p.run_epoch.size() && p.run_epoch[trie_node] == epoch;
    });
  }
  void NextEpoch() {
    if (++epoch == 0) {  // wrapped: forget every run, start again at 1
      for (MergePart& p : parts) std::fill(p.run_epoch.begin(), p.run_epoch.end(), 0);
      epoch = 1;
    }
    if (++mark == 0) {  // every 255 Merges: O(N / 255) per Merge
      std::fill(walked.begin(), walked.end(), uint8_t{0});
      mark = 1;
    }
  }
  size_t MemoryBytes() const {
    return walked.size() + parts[0].MemoryBytes() + parts[1].MemoryBytes();
  }
};

struct PathMerger::State {
  const GraphIndex* g;
  const RootPathForest* forest;
  PathTrie trie;
  // Node -> its path's trie node once computed (kNoIndex before), with kContinuesRun set when
  // it continues a run of its BFS parent's type (its step collapsed into the parent's), so
  // that its trie node reads "Type+" in a set whose paths pass through it. One word: a climb
  // reads both at one miss.
  static constexpr uint32_t kContinuesRun = 1u << 31;
  PodVector<uint32_t> memo;
  std::vector<uint32_t> stack;
  MergeScratch own;  // the scratch of Merge, and of MergeEach's calling thread

  uint32_t TrieNodeOf(uint32_t v) const { return memo[v] & ~kContinuesRun; }

  // The trie node of x's path, memoising every node on the way.
  uint32_t PathId(uint32_t x) {
    stack.clear();
    uint32_t y = x;
    while (memo[y] == kNoIndex) {
      stack.push_back(y);
      const uint32_t par = forest->parent(y);
      if (par == RootPathForest::kSource) break;
      y = par;
    }
    while (!stack.empty()) {
      const uint32_t z = stack.back();
      stack.pop_back();
      const uint32_t par = forest->parent(z);
      const Snapshot& s = g->snapshot();
      uint32_t base, field = kNoSlot, holder = kNoIndex;
      if (par == RootPathForest::kSource) {
        const uint32_t rec = g->StrongRootRecord(z);
        const uint32_t container = g->root_container_type(rec);
        const uint32_t label =
            rec < s.fields.root_label.size() ? s.fields.root_label[rec] : kNoSlot;
        base =
            trie.Root(s.root_kind_of(rec), (s.root_flags[rec] & kRootConservative) != 0, container,
                      container == kNoIndex ? kNoIndex : g->group_of_type(container), label);
      } else {
        base = TrieNodeOf(par);
        holder = s.object_type[par];
        if (s.fields.has_slots()) {  // else no step knows its field
          const TypeLayout* t = s.fields.layout_of_type(holder);
          if (t && t->shape == TypeShape::kArray)
            field = PathTrie::kAnyElement;  // without searching the array for z
          else
            field = forest->parent_slot(z);  // O(fields of the holder)
        }
      }
      const uint32_t group = g->group_of(z);
      const bool run = par != RootPathForest::kSource && trie[base].group == group;
      const uint32_t node = trie.Child(base, group, field, holder);
      if (node >= kContinuesRun - 1) throw std::length_error("more than 2^31 distinct paths");
      memo[z] = node | (run ? kContinuesRun : 0);
    }
    return TrieNodeOf(x);
  }

  // Memoises the paths of the reachable nodes among these.
  void MemoiseAll(std::span<const uint32_t> nodes) {
    for (const uint32_t x : nodes)
      if (memo[x] == kNoIndex && forest->reachable(x)) PathId(x);
  }

  // Notes the runs on x's path in `part`, climbing it up to a node this Merge has walked
  // already (everything above it is noted, or is being noted by the part that walked it): O(the
  // set's paths' union) per Merge. x is memoised. The marks are shared by the parts of a Merge
  // on two threads: two may climb a node both, which costs time, not a run.
  void NoteRuns(MergeScratch& sc, MergePart& part, uint32_t x) const {
    for (uint32_t z = x; z != RootPathForest::kSource; z = forest->parent(z)) {
      const std::atomic_ref<uint8_t> walked(sc.walked[z]);
      if (walked.load(std::memory_order_relaxed) == sc.mark) break;
      walked.store(sc.mark, std::memory_order_relaxed);
      const uint32_t m = memo[z];
      if (!(m & kContinuesRun)) continue;
      const uint32_t t = m & ~kContinuesRun;
      if (t >= part.run_epoch.size())
        part.run_epoch.resize(std::max<size_t>(trie.size(), 2 * size_t{t} + 16), 0);
      part.run_epoch[t] = sc.epoch;
    }
  }

  // Counts these instances (memoised, or unreachable) into `part`.
  void Tally(MergeScratch& sc, MergePart& part, std::span<const uint32_t> instances,
             const DominatorTree* dom) const;

  // Merge over memoised paths (every reachable instance's): reads the shared state only, so
  // several run at once, each with its own scratch; a large set on `threads` (up to 2) itself.
  MergedPaths MergeMemoised(MergeScratch& sc, std::span<const uint32_t> instances,
                            const DominatorTree* dom, size_t max_paths, unsigned threads) const;
};

PathMerger::PathMerger(const GraphIndex& g, const RootPathForest& forest)
    : st_(new State{.g = &g, .forest = &forest, .own = MergeScratch(g.node_count())}) {
  st_->memo.resize(g.node_count(), kNoIndex);
}
PathMerger::~PathMerger() = default;
PathMerger::PathMerger(PathMerger&&) noexcept = default;
PathMerger& PathMerger::operator=(PathMerger&&) noexcept = default;

MergedPaths PathMerger::Merge(std::span<const uint32_t> instances, const DominatorTree* dom,
                              size_t max_paths, unsigned threads) {
  st_->MemoiseAll(instances);
  return st_->MergeMemoised(st_->own, instances, dom, max_paths, threads);
}

std::vector<MergedPaths> PathMerger::MergeEach(std::span<const std::span<const uint32_t>> sets,
                                               const DominatorTree* dom, size_t max_paths,
                                               unsigned threads) {
  State& st = *st_;
  if (sets.empty()) return {};
  for (const std::span<const uint32_t> set : sets) st.MemoiseAll(set);
  // Largest sets first, handed out in that order: the last to start are the shortest.
  std::vector<size_t> order(sets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return sets[x].size() > sets[y].size(); });
  std::vector<MergedPaths> out(sets.size());
  const unsigned workers =
      static_cast<unsigned>(std::min<size_t>(ResolveThreads(threads), sets.size()));
  // Worker 0 (the calling thread) uses the merger's own scratch; the others make theirs.
  std::vector<std::optional<MergeScratch>> scratch(workers);  // sets is not empty: >= 1
  ForEachTask(sets.size(), workers, [&](unsigned worker, size_t task) {
    if (worker != 0 && !scratch[worker]) scratch[worker].emplace(st.g->node_count());
    MergeScratch& sc = worker == 0 ? st.own : *scratch[worker];
    const size_t i = order[task];
    out[i] = st.MergeMemoised(sc, sets[i], dom, max_paths, 1);
  });
  return out;
}

void PathMerger::State::Tally(MergeScratch& sc, MergePart& part,
                              std::span<const uint32_t> instances, const DominatorTree* dom) const {
  const Snapshot& s = g->snapshot();
  // The loop waits on memory: each instance's mark, parent, memo and sizes, then its parent's
  // mark, all at random. Those of the instances kAhead and 2 * kAhead on are asked for early.
  constexpr size_t kAhead = 16;
  const size_t nodes = memo.size();
  for (size_t i = 0; i < instances.size(); ++i) {
    const uint32_t x = instances[i];
    if (i + 2 * kAhead < instances.size()) {
      const uint32_t y = instances[i + 2 * kAhead];
      __builtin_prefetch(&sc.walked[y], 1);
      __builtin_prefetch(&memo[y]);
      forest->PrefetchParent(y);
      __builtin_prefetch(&s.object_size[y]);
      if (dom) dom->PrefetchRetained(y);
    }
    if (i + kAhead < instances.size()) {
      const uint32_t p = forest->parent(instances[i + kAhead]);
      if (p < nodes) __builtin_prefetch(&sc.walked[p], 1);
    }
    ++part.instances;
    if (!forest->reachable(x)) {
      ++part.unreachable;
      continue;
    }
    NoteRuns(sc, part, x);
    MergePart::Tally& m = part.TallyOf(TrieNodeOf(x), trie.size());
    ++m.count;
    m.shallow_bytes += s.object_size[x];
    if (dom) m.retained_bytes += dom->retained(x);
    m.example = std::min(m.example, x);
  }
}

MergedPaths PathMerger::State::MergeMemoised(MergeScratch& sc, std::span<const uint32_t> instances,
                                             const DominatorTree* dom, size_t max_paths,
                                             unsigned threads) const {
  MergedPaths out;
  const Snapshot& s = g->snapshot();
  sc.NextEpoch();
  struct Clear {  // the trie's slots back to kNoIndex, also when an allocation throws
    MergeScratch& sc;
    ~Clear() {
      for (MergePart& p : sc.parts) p.Clear();
    }
  } clear{sc};
  // Two threads from this many instances on (below it a thread's start and the tallies' fold
  // are no longer small next to the work): each tallies a half, sharing the walked marks.
  constexpr size_t kTwoThreadsFrom = 1 << 16;
  const unsigned parts =
      ResolveThreads(threads) >= 2 && instances.size() >= kTwoThreadsFrom ? 2 : 1;
  const size_t half = parts == 2 ? instances.size() / 2 : instances.size();
  ForkJoin(parts, [&](unsigned i) {
    Tally(sc, sc.parts[i], i == 0 ? instances.first(half) : instances.subspan(half), dom);
  });
  MergePart& part = sc.parts[0];
  if (parts == 2) {  // fold the second part's tallies into the first's
    for (const MergePart::Tally& t : sc.parts[1].tallies) {
      MergePart::Tally& m = part.TallyOf(t.trie_node, trie.size());
      m.count += t.count;
      m.shallow_bytes += t.shallow_bytes;
      m.retained_bytes += t.retained_bytes;
      m.example = std::min(m.example, t.example);
    }
  }
  for (const MergePart& p : sc.parts) {
    out.instances += p.instances;
    out.unreachable += p.unreachable;
  }
  PodVector<MergePart::Tally>& tallies = part.tallies;
  // Most instances first, then retained bytes, then the example (distinct per path): a total
  // order, so only the shown paths need sorting.
  const auto first = [](const MergePart::Tally& x, const MergePart::Tally& y) {
    if (x.count != y.count) return x.count > y.count;
    if (x.retained_bytes != y.retained_bytes) return x.retained_bytes > y.retained_bytes;
    return x.example < y.example;
  };
  const size_t shown = std::min(max_paths, tallies.size());
  std::vector<MergePart::Tally> top(shown);
  std::partial_sort_copy(tallies.begin(), tallies.end(), top.begin(), top.end(), first);
  out.other_paths = tallies.size() - shown;
  for (const MergePart::Tally& t : tallies) out.other_instances += t.count;
  for (const MergePart::Tally& t : top) out.other_instances -= t.count;
  for (const MergePart::Tally& tally : top) {
    MergedPath m;
    m.count = tally.count;
    m.shallow_bytes = tally.shallow_bytes;
    m.retained_bytes = tally.retained_bytes;
    m.example = tally.example;
    uint32_t t = tally.trie_node;
    for (; trie[t].parent != kNoIndex; t = trie[t].parent) {
      const PathTrie::Node& n = trie[t];
      std::string field;
      if (n.field == PathTrie::kAnyElement) {
        field = "[]";
      } else if (n.field != kNoSlot) {
        const TypeLayout* l = s.fields.layout_of_type(n.holder);
        if (l && n.field < l->fields.size()) field = l->fields[n.field].name;
      }
      m.steps.push_back({n.group, sc.RunAt(t), std::move(field)});
    }
    std::reverse(m.steps.begin(), m.steps.end());
    m.root_kind = trie[t].kind;
    m.root_conservative = trie[t].conservative;
    m.root_container = trie[t].container;
    if (trie[t].label < s.fields.root_labels.size())
      m.root_label = s.fields.root_labels[trie[t].label];
    out.paths.push_back(std::move(m));
  }
  return out;
}

size_t PathMerger::Memoise(std::span<const uint32_t> nodes, const std::atomic<bool>& stop) {
  State& st = *st_;
  constexpr size_t kCheckEvery = 4096;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i % kCheckEvery == 0 && stop.load(std::memory_order_relaxed)) return i;
    if (st.forest->reachable(nodes[i])) st.PathId(nodes[i]);
  }
  return nodes.size();
}

size_t PathMerger::MemoryBytes() const {
  const State& st = *st_;
  return st.memo.size() * 4 + st.own.MemoryBytes() + st.trie.MemoryBytes();
}

MergedPaths MergeShortestPaths(const GraphIndex& g, const RootPathForest& forest,
                               const DominatorTree* dom, uint32_t group, size_t max_paths) {
  if (group >= g.group_count()) return {};
  return PathMerger(g, forest).Merge(g.Instances(group), dom, max_paths);
}

}  // namespace xrpm::analysis
