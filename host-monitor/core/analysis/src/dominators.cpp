#include "xrpm/analysis/dominators.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "xrpm/model/fork_join.h"
#include "xrpm/model/page_warmer.h"

namespace xrpm::analysis {

namespace {

constexpr std::string_view kPhaseDfs = "dominators: depth-first search";
constexpr std::string_view kPhaseEdges = "dominators: predecessors";
constexpr std::string_view kPhaseSemi = "dominators: semidominators";
constexpr std::string_view kPhaseIdom = "dominators: immediate dominators";
// From this many objects the search's arrays are mapped memory (a MiB and more), worth a thread
// that faults them in beside it.
constexpr uint32_t kWarmFrom = 1 << 18;

// A node's references: the forward CSR's, or the snapshot's own resolved on every visit (an
// index built without the CSR). Positions are absolute in either array.
struct CsrEdges {
  const uint32_t* off;
  const uint32_t* out;
  explicit CsrEdges(const GraphIndex& g) : off(g.out_offsets()), out(g.out_edges()) {}
  uint64_t begin(uint32_t v) const { return off[v]; }
  uint64_t end(uint32_t v) const { return off[v + 1]; }
  uint32_t at(uint64_t k) const { return out[k]; }
  // The targets of references [k, k + n).
  void Targets(uint64_t k, size_t n, uint32_t* to) const { std::copy_n(out + k, n, to); }
  // Reference k's target: its mark, and where its own references start (for its visit).
  void Prefetch(uint64_t k, const uint32_t* pre) const {
    __builtin_prefetch(&pre[out[k]]);
    __builtin_prefetch(&off[out[k]]);
  }
};
struct ResolvedEdges {
  const GraphIndex& g;
  const Snapshot& s;
  explicit ResolvedEdges(const GraphIndex& gi) : g(gi), s(gi.snapshot()) {}
  uint64_t begin(uint32_t v) const { return s.ref_begin(v); }
  uint64_t end(uint32_t v) const { return s.ref_end[v]; }
  uint32_t at(uint64_t k) const { return g.Find(s.refs[k]); }  // kNoIndex when dangling
  void Targets(uint64_t k, size_t n, uint32_t* to) const {
    g.resolver().FindMany({s.refs.data() + k, n}, to);  // its cache misses overlapped
  }
  void Prefetch(uint64_t, const uint32_t*) const {}
};

// The link-eval forest of one vertex, kept together: eval reads both on every step. Once the
// semidominators are known the same entries hold the dominator tree built so far (step 4): each
// vertex's depth and a skew-binary jump pointer (Myers 1983: a vertex jumps to where its
// parent's jump and the jump after that lead when those two span as many levels each, else to
// its parent), so the climb to the nearest ancestor at or above a preorder number takes
// O(log depth) steps.
struct Forest {
  union {
    uint32_t anc;  // DFS parent until the vertex is linked, then its (compressed) ancestor
    uint32_t jump;
  };
  union {
    // Before the vertex is processed: its semidominator candidate from the edges of smaller
    // preorder numbers (its DFS parent, forward edges, the virtual root). Once linked: the
    // minimal semidominator on its compressed path (Semi-NCA needs the value, not the vertex).
    uint32_t semi;
    uint32_t depth;
  };
};

// Preorder numbering of the vertices reachable from the virtual root (number 0), which also
// sorts every reference it reads by the numbers at its two ends (v -> w, v being the vertex
// whose references are scanned):
//  - w not numbered yet: a tree edge, w is numbered as v's child;
//  - w numbered after v (a descendant already visited): v's number is a semidominator
//    candidate of w, folded into its forest entry at once;
//  - w numbered before v (a back or cross edge): counted in back_count[w]. The semidominator
//    phase needs these, and only these, as predecessors.
// Iterative: the per-vertex edge cursor (relative to the vertex's first reference) lives in
// `cursor`, the way back up in the forest's anc (all indexed by preorder number). `pre` is 0
// for a vertex not numbered yet; the arrays indexed by preorder number are written for a vertex
// when it is numbered. Returns the number of numbered vertices, the root included.
template <class Edges>
uint32_t NumberDepthFirst(const GraphIndex& g, const Edges& edges, PodVector<uint32_t>& pre,
                          PodVector<uint32_t>& vertex, PodVector<Forest>& forest,
                          PodVector<uint32_t>& cursor, PodVector<uint32_t>& back_count,
                          const Progress& progress) {
  vertex[0] = g.node_count();
  forest[0] = {0, 0};
  back_count[0] = 0;
  uint32_t m = 1;
  uint32_t next_report = 1 << 20;
  auto discover = [&](uint32_t w, uint32_t up) {
    pre[w] = m;
    vertex[m] = w;
    forest[m] = {up, up};
    cursor[m] = 0;
    back_count[m] = 0;
    // Its children's marks are checked next: start those cache misses together.
    const uint64_t b = edges.begin(w), e = std::min(edges.end(w), b + 8);
    for (uint64_t k = b; k < e; ++k) edges.Prefetch(k, pre.data());
    return m++;
  };
  for (const uint32_t r : g.StrongRoots()) {
    if (pre[r] != 0) continue;
    uint32_t cur = discover(r, 0);
    while (cur != 0) {
      const uint32_t v = vertex[cur];
      const uint64_t b = edges.begin(v), end = edges.end(v);
      uint64_t c = b + cursor[cur];
      uint32_t w = kNoIndex;
      for (; c < end; ++c) {
        w = edges.at(c);
        if (w == kNoIndex) continue;  // dangling
        const uint32_t o = pre[w];
        if (o == 0) break;  // not numbered yet
        if (o > cur) {
          if (cur < forest[o].semi) forest[o].semi = cur;
        } else if (o < cur) {
          ++back_count[o];
        }
      }
      if (c == end) {
        cur = forest[cur].anc;
        continue;
      }
      cursor[cur] = static_cast<uint32_t>(c + 1 - b);
      cur = discover(w, cur);
      if (m == next_report) {
        progress.Report(kPhaseDfs, double(m) / g.node_count());
        next_report += 1 << 20;
      }
    }
  }
  return m;
}

// What ComputeWith leaves for the DominatorTree.
struct Parts {
  PodVector<uint32_t> idom;
  PodVector<uint64_t> retained;
  uint64_t reachable_count = 0, reachable_bytes = 0;
  size_t work_peak_bytes = 0;
};

template <class... A>
size_t BytesOf(const A&... arrays) {
  return (arrays.bytes_reserved() + ...);
}

template <class Edges>
void ComputeWith(const GraphIndex& g, const Edges& edges, unsigned threads, Parts& out,
                 const Progress& progress) {
  const uint32_t n = g.node_count();
  // 1. Preorder numbers (all arrays but `pre` are indexed by them; 0 is the virtual root, so
  // `pre` is 0 for a vertex not numbered yet), the semidominator candidates of the forward
  // edges and the count of back edges per target. The search, on one core, fills the arrays
  // indexed by preorder number a vertex at a time, each slot when it numbers the vertex and
  // before anything reads it: they are sized without being written (a fresh mapping stays
  // untouched), and their pages are faulted in ahead of it on another core (PageWarmer).
  // `pre` is written first, here: the search reads it at random before writing it, and a read
  // of a page not faulted in yet maps the shared zero page, which the first write then splits
  // into 4 KiB pages (more TLB misses in every pass that reads it at random).
  PodVector<uint32_t> pre, vertex, off, cursor;
  PodVector<Forest> forest;
  pre.resize(size_t{n} + 1, 0);  // + 1: the semidominators take its memory (step 3)
  vertex.resize_uninitialized(size_t{n} + 1);
  forest.resize_uninitialized(size_t{n} + 1);
  off.resize_uninitialized(size_t{n} + 2);  // back edges per target, then each list's start
  cursor.resize_uninitialized(size_t{n} + 1);
  uint32_t m = 0;
  {
    PageWarmer warmer;
    if (ResolveThreads(threads) > 1 && n >= kWarmFrom) {
      auto range = [](auto& a) { return PageWarmer::Range{a.data(), a.bytes_reserved()}; };
      warmer.Start({range(vertex), range(forest), range(off), range(cursor)});
    }
    m = NumberDepthFirst(g, edges, pre, vertex, forest, cursor, off, progress);
    out.work_peak_bytes = BytesOf(pre, vertex, forest, off, cursor);
  }  // the warmer stopped
  vertex.resize(m);
  vertex.shrink_to_fit();
  forest.resize(m);
  forest.shrink_to_fit();
  off.resize(size_t{m} + 1);
  off.shrink_to_fit();
  for (const uint32_t r : g.StrongRoots()) forest[pre[r]].semi = 0;  // the virtual root's edges

  // 2. The back edges (from a larger preorder number to a smaller one), in preorder space,
  // grouped by target: a CSR over `off`, each list filled from its end. A second pass over the
  // references, on `threads` threads (each a range of sources; a slot is taken with an atomic
  // decrement, so a list's order varies, which no result depends on).
  progress.Report(kPhaseEdges, 0);
  uint64_t total = 0;
  for (uint32_t i = 0; i < m; ++i) {
    total += off[i];
    if (total > UINT32_MAX)
      throw std::length_error("more than 2^32 - 1 references lead back in the depth-first order");
    off[i] = static_cast<uint32_t>(total);
  }
  off[m] = static_cast<uint32_t>(total);
  // The back edges take the cursors' memory, faulted in already (and grow beyond it).
  PodVector<uint32_t> back = std::move(cursor);
  back.resize_uninitialized(total);  // every slot is written below
  back.shrink_to_fit();
  {
    const std::vector<size_t> bounds = EvenBounds(n, ResolveThreads(threads), 1 << 18);
    RunChunks(bounds, [&](size_t chunk, size_t begin, size_t end) {
      // The chunk's references lie in one run: their targets are taken a block at a time.
      constexpr uint64_t kBlock = 256;
      uint32_t target[kBlock];
      uint64_t block_at = 0, block_end = 0;  // `target` holds references [block_at, block_end)
      const uint64_t last = end > begin ? edges.end(static_cast<uint32_t>(end - 1)) : 0;
      for (size_t v = begin; v < end; ++v) {
        if ((v & 0xFFFFF) == 0) {
          if (chunk == 0)  // reports stay on the calling thread
            progress.Report(kPhaseEdges, double(v - begin) / double(end - begin));
          else
            progress.ThrowIfCancelled();
        }
        const uint32_t pv = pre[v];
        if (pv == 0) continue;  // not reachable
        for (uint64_t k = edges.begin(static_cast<uint32_t>(v)),
                      e = edges.end(static_cast<uint32_t>(v));
             k < e; ++k) {
          if (k >= block_end) {
            block_at = k;
            block_end = std::min(k + kBlock, last);
            edges.Targets(block_at, block_end - block_at, target);
          }
          const uint32_t w = target[k - block_at];
          if (w == kNoIndex) continue;
          const uint32_t pw = pre[w];
          if (pw == 0) continue;  // the search numbered every target of v: never
          if (pv > pw)
            back[std::atomic_ref<uint32_t>(off[pw]).fetch_sub(1, std::memory_order_relaxed) - 1] =
                pv;
        }
      }
    });
  }
  out.work_peak_bytes = std::max(out.work_peak_bytes, BytesOf(pre, vertex, forest, off, back));

  // 3. Semidominators in reverse preorder through the link-eval forest (vertices >= last_linked
  // are linked, in reverse preorder right after being processed). `off` slot w is free once
  // step w has read where its list starts: it takes w's DFS parent, then (step 4) its
  // immediate dominator.
  PodVector<uint32_t> semi = std::move(pre);  // its memory, faulted in already (m <= n + 1)
  semi.resize(m);
  semi.shrink_to_fit();
  std::vector<uint32_t> stack;
  // v must be linked. Returns the minimal semidominator on the forest path from v up to
  // (excluding) its tree root, compressing the path.
  auto eval_slow = [&](uint32_t v, uint32_t last_linked) -> uint32_t {
    stack.clear();
    uint32_t a = forest[v].anc;
    do {
      stack.push_back(v);
      v = a;
      a = forest[v].anc;
    } while (a >= last_linked);
    const uint32_t top_anc = forest[v].anc;  // v: the topmost linked vertex of the path
    uint32_t psemi = forest[v].semi;
    do {
      v = stack.back();
      stack.pop_back();
      Forest& f = forest[v];
      f.anc = top_anc;  // every vertex below the top now hangs from the top's ancestor
      if (psemi < f.semi)
        f.semi = psemi;
      else
        psemi = f.semi;
    } while (!stack.empty());
    return psemi;
  };
  auto eval = [&](uint32_t v, uint32_t last_linked) -> uint32_t {
    const Forest f = forest[v];
    if (f.anc < last_linked) return f.semi;
    return eval_slow(v, last_linked);
  };
  uint32_t* parent = off.data();
  uint32_t list_end = off[m];
  constexpr uint32_t kAhead = 8;
  for (uint32_t w = m - 1; w >= 1; --w) {
    if ((w & 0xFFFFF) == 0) progress.Report(kPhaseSemi, double(m - w) / m);
    if (w > kAhead) {  // the forest entries of a later step's predecessors, into the cache
      const uint32_t x = w - kAhead;
      for (uint32_t k = off[x], e = std::min(off[x + 1], off[x] + 8); k < e; ++k)
        __builtin_prefetch(&forest[back[k]]);
    }
    const uint32_t b = off[w], e = list_end;
    list_end = b;
    Forest& fw = forest[w];
    uint32_t s = fw.semi;  // the candidates of the smaller numbers
    for (uint32_t k = b; k < e; ++k) {
      const uint32_t u_semi = eval(back[k], w + 1);  // back[k] > w: processed, linked
      if (u_semi < s) s = u_semi;
    }
    semi[w] = s;
    fw.semi = s;  // linked (implicitly: last_linked = w), fw.anc still its DFS parent
    parent[w] = fw.anc;
  }
  out.work_peak_bytes = std::max(out.work_peak_bytes, BytesOf(vertex, forest, off, back, semi) +
                                                          stack.capacity() * sizeof(uint32_t));
  back = {};
  stack = {};

  // 4. Immediate dominators in preorder (Semi-NCA): idom(w) is the nearest common ancestor, in
  // the dominator tree of the vertices before w, of w's DFS parent and its semidominator: the
  // nearest dominator-tree ancestor of the parent numbered at or above semi(w). The climb
  // follows the jump pointers while they stay below semi(w), then single steps.
  progress.Report(kPhaseIdom, 0);
  uint32_t* idom = parent;  // slot w turns from w's parent into its immediate dominator
  idom[0] = 0;
  forest[0].jump = 0;
  forest[0].depth = 0;
  for (uint32_t w = 1; w < m; ++w) {
    if ((w & 0xFFFFF) == 0) progress.Report(kPhaseIdom, double(w) / m);
    const uint32_t s = semi[w];
    uint32_t x = idom[w];  // its DFS parent
    while (x > s) {
      const uint32_t j = forest[x].jump;
      x = j > s ? j : idom[x];
    }
    idom[w] = x;
    const Forest fx = forest[x], fj = forest[fx.jump];
    Forest& fw = forest[w];
    fw.jump = fx.depth - fj.depth == fj.depth - forest[fj.jump].depth ? fj.jump : x;
    fw.depth = fx.depth + 1;
  }
  forest = {};
  semi = {};
  progress.Report("dominators: retained sizes", 0);

  // 5. Node space, and retained sizes: reverse preorder visits every vertex before its
  // dominator.
  out.idom.resize(n, kNoIndex);
  out.retained.resize(n, uint64_t{0});
  const Snapshot& snap = g.snapshot();
  uint64_t reachable_bytes = 0;
  for (uint32_t o = m - 1; o >= 1; --o) {
    const uint32_t v = vertex[o];
    const uint32_t d = idom[o];
    out.idom[v] = d == 0 ? n : vertex[d];
    const uint64_t r = out.retained[v] + snap.object_size[v];
    out.retained[v] = r;
    if (d == 0)
      reachable_bytes += r;
    else
      out.retained[vertex[d]] += r;
  }
  out.reachable_count = m - 1;
  out.reachable_bytes = reachable_bytes;
}

}  // namespace

DominatorTree DominatorTree::Compute(const GraphIndex& g, const Progress& progress,
                                     unsigned threads) {
  DominatorTree d;
  d.n_ = g.node_count();
  progress.Report(kPhaseDfs, 0);
  Parts parts;
  if (g.has_forward())
    ComputeWith(g, CsrEdges(g), threads, parts, progress);
  else
    ComputeWith(g, ResolvedEdges(g), threads, parts, progress);
  d.idom_ = std::move(parts.idom);
  d.retained_ = std::move(parts.retained);
  d.reachable_count_ = parts.reachable_count;
  d.reachable_bytes_ = parts.reachable_bytes;
  d.work_peak_bytes_ = parts.work_peak_bytes;
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

void DominatorChildren::DropOffsets(const DominatorTree& dom) {
  off_ = {};
  dom_ = &dom;
}

std::span<const uint32_t> DominatorChildren::Search(uint32_t v) const {
  // Every reachable node once, grouped by its dominator in ascending order (the virtual root,
  // numbered node_count(), last): the group of v is the range whose dominator is v.
  const auto first = std::lower_bound(child_.begin(), child_.end(), v,
                                      [&](uint32_t c, uint32_t p) { return dom_->idom(c) < p; });
  const auto last = std::upper_bound(first, child_.end(), v,
                                     [&](uint32_t p, uint32_t c) { return p < dom_->idom(c); });
  return {first, last};
}

}  // namespace xrpm::analysis
