#include "xrpm/analysis/dominators.h"

#include <algorithm>
#include <vector>

namespace xrpm::analysis {

namespace {

constexpr std::string_view kPhaseDfs = "dominators: depth-first search";
constexpr std::string_view kPhaseSemi = "dominators: semidominators";

// The link-eval forest of one vertex, kept together: eval reads both on every step.
struct Forest {
  uint32_t anc;    // DFS parent until the vertex is linked, then its (compressed) ancestor
  uint32_t label;  // vertex of minimal semidominator on the compressed path (linked vertices)
};

// Preorder numbering of the vertices reachable from the virtual root (number 0). Iterative: the
// per-vertex edge cursor lives in `cursor` (indexed by preorder), the way back up in the
// forest's anc (the DFS parent). Returns the number of numbered vertices, the root included.
uint32_t NumberDepthFirst(const GraphIndex& g, PodVector<uint32_t>& pre,
                          PodVector<uint32_t>& vertex, PodVector<Forest>& forest,
                          PodVector<uint32_t>& cursor, const Progress& progress) {
  const uint32_t* off = g.out_offsets();
  const uint32_t* out = g.out_edges();
  vertex[0] = g.node_count();
  forest[0].anc = 0;
  uint32_t m = 1;
  uint32_t next_report = 1 << 20;
  auto discover = [&](uint32_t w, uint32_t parent) {
    pre[w] = m;
    vertex[m] = w;
    forest[m].anc = parent;
    const uint32_t b = off[w], e = off[w + 1];
    cursor[m] = b;
    // Its children's marks are checked next: start those cache misses together.
    for (uint32_t k = b; k < e && k < b + 8; ++k) __builtin_prefetch(&pre[out[k]]);
    return m++;
  };
  for (const uint32_t r : g.StrongRoots()) {
    if (pre[r] != kNoIndex) continue;
    uint32_t cur = discover(r, 0);
    while (cur != 0) {
      const uint32_t end = off[vertex[cur] + 1];
      uint32_t c = cursor[cur];
      while (c < end && pre[out[c]] != kNoIndex) ++c;
      if (c == end) {
        cur = forest[cur].anc;
        continue;
      }
      cursor[cur] = c + 1;
      cur = discover(out[c], cur);
      if (m == next_report) {
        progress.Report(kPhaseDfs, double(m) / g.node_count());
        next_report += 1 << 20;
      }
    }
  }
  return m;
}

}  // namespace

DominatorTree DominatorTree::Compute(const GraphIndex& g, const Progress& progress) {
  const uint32_t n = g.node_count();
  DominatorTree d;
  d.n_ = n;
  progress.Report(kPhaseDfs, 0);

  // All arrays but `pre` are indexed by preorder number; 0 is the virtual root.
  PodVector<uint32_t> pre, vertex, semi;
  PodVector<Forest> forest;
  pre.resize(n, kNoIndex);       // node -> preorder; later node -> idom node
  vertex.resize(size_t{n} + 1);  // preorder -> node
  forest.resize(size_t{n} + 1);  // see Forest
  semi.resize(size_t{n} + 1);    // DFS cursor; then bucket head until processed,
                                 // then the semidominator
  const uint32_t m = NumberDepthFirst(g, pre, vertex, forest, semi, progress);
  vertex.resize(m);
  vertex.shrink_to_fit();
  forest.resize(m);
  forest.shrink_to_fit();
  semi.resize(m);
  semi.shrink_to_fit();
  PodVector<uint32_t> idom;
  idom.resize(m);  // bucket link until the bucket is flushed, then (relative) idom
  for (uint32_t i = 0; i < m; ++i) semi[i] = 0;  // every bucket empty (0 never sits in one)
  std::vector<uint32_t> stack;

  // Vertices >= last_linked are linked into the forest (they are linked in reverse preorder
  // right after being processed). v must be linked. Returns the vertex of minimal semidominator
  // on the forest path from v up to (excluding) its tree root, compressing the path.
  auto eval_slow = [&](uint32_t v, uint32_t last_linked) -> uint32_t {
    stack.clear();
    uint32_t a = forest[v].anc;
    do {
      stack.push_back(v);
      v = a;
      a = forest[v].anc;
    } while (a >= last_linked);
    uint32_t p = v;  // topmost linked vertex of the path
    uint32_t plabel = forest[p].label;
    do {
      v = stack.back();
      stack.pop_back();
      Forest& f = forest[v];
      f.anc = forest[p].anc;
      if (semi[plabel] < semi[f.label])
        f.label = plabel;
      else
        plabel = f.label;
      p = v;
    } while (!stack.empty());
    return forest[v].label;
  };
  auto eval = [&](uint32_t v, uint32_t last_linked) -> uint32_t {
    const Forest f = forest[v];
    if (f.anc < last_linked) return f.label;
    return eval_slow(v, last_linked);
  };

  // Software pipeline over the reverse preorder: the vertex processed kAhead steps later gets
  // its predecessor list, then its predecessors' preorder numbers, then their forest entries
  // pulled into the cache, so the random accesses of several vertices overlap.
  const uint32_t* in_off = g.in_offsets();
  const uint32_t* in = g.in_edges();
  constexpr uint32_t kAhead1 = 16, kAhead2 = 8, kAhead3 = 4;
  for (uint32_t w = m - 1; w >= 1; --w) {
    if ((w & 0xFFFFF) == 0) progress.Report(kPhaseSemi, double(m - w) / m);
    if (w > kAhead1) __builtin_prefetch(&in_off[vertex[w - kAhead1]]);
    if (w > kAhead2) __builtin_prefetch(&in[in_off[vertex[w - kAhead2]]]);
    if (w > kAhead3) {
      const uint32_t x = vertex[w - kAhead3];
      for (uint32_t k = in_off[x], e = std::min(in_off[x + 1], in_off[x] + 8); k < e; ++k)
        __builtin_prefetch(&pre[in[k]]);
    }
    const uint32_t node = vertex[w];
    const uint32_t p = forest[w].anc;  // w is not linked yet: still its DFS parent
    uint32_t s = p;
    if (g.IsStrongRoot(node)) {
      s = 0;  // the virtual root is a predecessor
    } else {
      const uint32_t e = in_off[node + 1];
      for (uint32_t k = in_off[node]; k < e; ++k) {
        const uint32_t o = pre[in[k]];
        if (o == kNoIndex) continue;  // unreachable predecessor
        // An unprocessed predecessor (o <= w) is its own candidate; a processed one gives the
        // minimal semidominator on its forest path.
        const uint32_t c = o <= w ? o : semi[eval(o, w + 1)];
        if (c < s) s = c;
      }
    }
    // Bucket w is empty by now (flushed when w's children were processed): take the slot.
    semi[w] = s;
    forest[w].label = w;
    idom[w] = semi[s];  // push w on bucket(s); s < w is unprocessed, so semi[s] is its head
    semi[s] = w;
    // Link w (implicitly: last_linked = w), then flush bucket(parent).
    for (uint32_t v = semi[p]; v != 0;) {
      const uint32_t next = idom[v];
      const uint32_t u = eval(v, w);
      idom[v] = semi[u] < semi[v] ? u : p;
      v = next;
    }
    semi[p] = 0;
  }
  idom[0] = 0;
  for (uint32_t w = 1; w < m; ++w)
    if (idom[w] != semi[w]) idom[w] = idom[idom[w]];

  d.work_peak_bytes_ = pre.bytes_reserved() + vertex.bytes_reserved() + forest.bytes_reserved() +
                       semi.bytes_reserved() + idom.bytes_reserved() +
                       stack.capacity() * sizeof(uint32_t);
  forest = {};
  semi = {};
  stack = {};
  progress.Report("dominators: retained sizes", 0);

  // Node space: pre[v] -> idom node, in place (each entry reads only itself).
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t o = pre[v];
    if (o == kNoIndex) continue;
    pre[v] = idom[o] == 0 ? n : vertex[idom[o]];
  }
  d.idom_ = std::move(pre);

  // Retained sizes: reverse preorder visits every vertex before its dominator.
  const Snapshot& snap = g.snapshot();
  d.retained_.resize(n, uint64_t{0});
  uint64_t total = 0;
  for (uint32_t o = m - 1; o >= 1; --o) {
    const uint32_t v = vertex[o];
    const uint64_t r = d.retained_[v] + snap.object_size[v];
    d.retained_[v] = r;
    if (idom[o] == 0)
      total += r;
    else
      d.retained_[vertex[idom[o]]] += r;
  }
  d.reachable_count_ = m - 1;
  d.reachable_bytes_ = total;
  progress.Report("dominators: done", 1);
  return d;
}

DominatorChildren DominatorChildren::BuildUnsorted(const DominatorTree& dom) {
  const uint32_t n = dom.node_count();
  DominatorChildren c;
  c.off_.resize(size_t{n} + 2, uint32_t{0});  // parents are nodes and the virtual root (n)
  for (uint32_t v = 0; v < n; ++v)
    if (dom.reachable(v)) ++c.off_[dom.idom(v) + 1];
  for (size_t i = 0; i <= n; ++i) c.off_[i + 1] += c.off_[i];
  c.child_.resize(c.off_[n + 1]);
  {
    PodVector<uint32_t> pos;
    pos.assign(c.off_.begin(), c.off_.end() - 1);
    for (uint32_t v = 0; v < n; ++v)
      if (dom.reachable(v)) c.child_[pos[dom.idom(v)]++] = v;
  }
  return c;
}

DominatorChildren DominatorChildren::Build(const DominatorTree& dom) {
  DominatorChildren c = BuildUnsorted(dom);
  const auto larger = [&](uint32_t a, uint32_t b) { return LargerFirst(dom, a, b); };
  for (size_t p = 0; p <= dom.node_count(); ++p)
    std::sort(c.child_.begin() + c.off_[p], c.child_.begin() + c.off_[p + 1], larger);
  c.sorted_ = true;
  return c;
}

}  // namespace xrpm::analysis
