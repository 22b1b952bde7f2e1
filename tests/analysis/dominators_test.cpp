// Dominator tree, retained sizes and type retained sizes against a brute-force reference
// (iterative data-flow dominator sets) on thousands of random heaps, plus deep chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <numeric>
#include <random>

#include "heap_builder.h"
#include "xrpm/analysis/dominators.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/type_stats.h"

namespace xrpm::analysis {
namespace {

using testing::HeapBuilder;
constexpr size_t kMaxNodes = 48;  // + virtual root fits a 64-bit set
using Set = std::bitset<64>;

struct RandomHeap {
  Snapshot snap;
  uint32_t n = 0;
  std::vector<std::vector<uint32_t>> succ;  // resolved, by object index
  std::vector<bool> strong_root;
};

RandomHeap MakeRandomHeap(std::mt19937_64& rng) {
  RandomHeap h;
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  h.n = static_cast<uint32_t>(pick(0, kMaxNodes));
  std::vector<ObjectId> ids(h.n);
  for (uint32_t i = 0; i < h.n; ++i) ids[i] = 0x1000 + 0x10 * i + pick(0, 3) * 0x1000000;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  h.n = static_cast<uint32_t>(ids.size());
  if (pick(0, 1)) std::shuffle(ids.begin(), ids.end(), rng);  // exercise both resolver layouts
  const int types = static_cast<int>(pick(1, 4));
  const double density = std::uniform_real_distribution<double>(0.3, 3.0)(rng);
  h.succ.resize(h.n);
  h.strong_root.assign(h.n, false);
  HeapBuilder b;
  for (uint32_t i = 0; i < h.n; ++i) {
    std::vector<ObjectId> refs;
    const int k = std::poisson_distribution<int>(density)(rng);
    for (int j = 0; j < k; ++j) {
      if (pick(0, 19) == 0) {
        refs.push_back(0xdead0000 + pick(0, 100));  // dangling
      } else {
        uint32_t t = static_cast<uint32_t>(pick(0, h.n - 1));
        if (pick(0, 9) == 0) t = i;  // self reference
        refs.push_back(ids[t]);
        h.succ[i].push_back(t);
      }
    }
    b.Obj(ids[i], "T" + std::to_string(pick(0, types - 1)), static_cast<uint32_t>(pick(1, 100)),
          refs);
  }
  const int roots = h.n ? static_cast<int>(pick(0, 5)) : 0;
  for (int r = 0; r < roots; ++r) {
    if (pick(0, 9) == 0) {
      b.Root(0xbad00000, RootKind::kLocal);  // dangling root
      continue;
    }
    const uint32_t t = static_cast<uint32_t>(pick(0, h.n - 1));
    const uint8_t flags = static_cast<uint8_t>(pick(0, 3));  // normal, pinned, weak, both
    b.Root(ids[t], static_cast<RootKind>(pick(0, 5)), flags);
    if (!(flags & kRootWeak)) h.strong_root[t] = true;
  }
  h.snap = b.Build();
  return h;
}

struct Reference {
  std::vector<bool> reachable;
  std::vector<Set> dom;  // over nodes 0..n (n = virtual root)
  std::vector<uint32_t> idom;
  std::vector<uint64_t> retained;
};

Reference ReferenceDominators(const RandomHeap& h) {
  const uint32_t n = h.n, root = n;
  std::vector<std::vector<uint32_t>> pred(n + 1), succ(n + 1);
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t w : h.succ[v]) {
      succ[v].push_back(w);
      pred[w].push_back(v);
    }
  for (uint32_t v = 0; v < n; ++v)
    if (h.strong_root[v]) {
      succ[root].push_back(v);
      pred[v].push_back(root);
    }
  Reference r;
  r.reachable.assign(n + 1, false);
  std::vector<uint32_t> work{root};
  r.reachable[root] = true;
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    for (uint32_t w : succ[v])
      if (!r.reachable[w]) r.reachable[w] = true, work.push_back(w);
  }
  Set all;
  for (uint32_t v = 0; v <= n; ++v) all.set(v);
  r.dom.assign(n + 1, all);
  r.dom[root] = Set().set(root);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = 0; v < n; ++v) {
      if (!r.reachable[v]) continue;
      Set s = all;
      for (uint32_t p : pred[v])
        if (r.reachable[p]) s &= r.dom[p];
      s.set(v);
      if (s != r.dom[v]) r.dom[v] = s, changed = true;
    }
  }
  r.idom.assign(n, kNoIndex);
  r.retained.assign(n, 0);
  for (uint32_t v = 0; v < n; ++v) {
    if (!r.reachable[v]) continue;
    size_t best = 0;
    for (uint32_t d = 0; d <= n; ++d)
      if (d != v && r.dom[v][d] && r.dom[d].count() > best) best = r.dom[d].count(), r.idom[v] = d;
    for (uint32_t d = 0; d < n; ++d)
      if (r.dom[v][d]) r.retained[d] += h.snap.object_size[v];
  }
  return r;
}

TEST(Dominators, MatchDataFlowReferenceOnRandomHeaps) {
  std::mt19937_64 rng(20240611);
  for (int iter = 0; iter < 4000; ++iter) {
    RandomHeap h = MakeRandomHeap(rng);
    SCOPED_TRACE("heap #" + std::to_string(iter) + " with " + std::to_string(h.n) + " objects");
    GraphIndex g = GraphIndex::Build(h.snap, {.threads = 2});
    DominatorTree dom = DominatorTree::Compute(g);
    TypeStats types = TypeStats::Compute(g, dom);
    Reference ref = ReferenceDominators(h);

    uint64_t reachable = 0, reachable_bytes = 0;
    for (uint32_t v = 0; v < h.n; ++v) {
      ASSERT_EQ(dom.reachable(v), bool(ref.reachable[v])) << "object " << v;
      ASSERT_EQ(dom.idom(v), ref.idom[v]) << "object " << v;
      ASSERT_EQ(dom.retained(v), ref.retained[v]) << "object " << v;
      if (ref.reachable[v]) ++reachable, reachable_bytes += h.snap.object_size[v];
    }
    ASSERT_EQ(dom.reachable_count(), reachable);
    ASSERT_EQ(dom.reachable_bytes(), reachable_bytes);

    // Without the forward CSR (the references resolved from the snapshot on each pass), and
    // the back edges listed on two threads: the same tree.
    GraphIndex lean = GraphIndex::Build(h.snap, {.threads = 2, .forward = false});
    DominatorTree lean_dom = DominatorTree::Compute(lean, {}, 2);
    for (uint32_t v = 0; v < h.n; ++v) {
      ASSERT_EQ(lean_dom.idom(v), ref.idom[v]) << "object " << v << ", no forward CSR";
      ASSERT_EQ(lean_dom.retained(v), ref.retained[v]) << "object " << v << ", no forward CSR";
    }
    ASSERT_EQ(lean_dom.reachable_count(), reachable);

    // Type retained: instances not dominated by another instance of their type.
    std::vector<uint64_t> want(g.group_count(), 0);
    for (uint32_t v = 0; v < h.n; ++v) {
      if (!ref.reachable[v]) continue;
      bool nested = false;
      for (uint32_t d = 0; d < h.n; ++d)
        nested |= d != v && ref.dom[v][d] && g.group_of(d) == g.group_of(v);
      if (!nested) want[g.group_of(v)] += ref.retained[v];
    }
    for (uint32_t grp = 0; grp < g.group_count(); ++grp)
      ASSERT_EQ(types[grp].retained_bytes, want[grp]) << g.group_name(grp);
  }
}

// Deep dominator trees (a long list with forward skips and back references, as in chained
// collections), checked against the definition: d dominates w when w is unreachable from the
// roots without d. Deep enough that finding each immediate dominator climbs far up the tree.
TEST(Dominators, MatchRemovalReferenceOnDeepHeaps) {
  std::mt19937_64 rng(20261202);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 40; ++iter) {
    // A list of `chain` nodes, then `n - chain` payloads, each held by a list node and, half of
    // them, by another list node too (an index far above or below it).
    const uint32_t chain = static_cast<uint32_t>(pick(200, 900)), n = chain + chain / 3;
    SCOPED_TRACE("heap #" + std::to_string(iter) + " with " + std::to_string(n) + " objects");
    std::vector<std::vector<uint32_t>> succ(n);
    for (uint32_t i = 0; i < chain; ++i) {
      if (i + 1 < chain) succ[i].push_back(i + 1);
      if (pick(0, 9) == 0)  // a short detour: dominated by the node before it
        succ[i].push_back(static_cast<uint32_t>(std::min<uint64_t>(chain - 1, i + pick(2, 5))));
      if (i > 0 && pick(0, 19) == 0)  // back to a node the list passed a moment ago
        succ[i].push_back(static_cast<uint32_t>(i - pick(1, std::min<uint64_t>(i, 12))));
    }
    for (uint32_t p = chain; p < n; ++p) {
      succ[pick(0, chain - 1)].push_back(p);
      if (pick(0, 1)) succ[pick(0, chain - 1)].push_back(p);
    }
    for (auto& out : succ) std::shuffle(out.begin(), out.end(), rng);  // the search's order
    std::vector<uint32_t> roots{0};
    if (pick(0, 1)) roots.push_back(static_cast<uint32_t>(pick(0, n - 1)));
    HeapBuilder b;
    std::vector<uint32_t> size(n);
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<ObjectId> refs;
      for (const uint32_t t : succ[i]) refs.push_back(0x1000 + 0x10ull * t);
      size[i] = static_cast<uint32_t>(pick(8, 64));
      b.Obj(0x1000 + 0x10ull * i, "Node", size[i], refs);
    }
    for (const uint32_t r : roots) b.Root(0x1000 + 0x10ull * r, RootKind::kStatic);
    const Snapshot snap = b.Build();

    // Reachable from the roots without `skip` (kNoIndex: nothing skipped).
    auto reach = [&](uint32_t skip) {
      std::vector<bool> seen(n, false);
      std::vector<uint32_t> work;
      for (const uint32_t r : roots)
        if (r != skip && !seen[r]) seen[r] = true, work.push_back(r);
      while (!work.empty()) {
        const uint32_t v = work.back();
        work.pop_back();
        for (const uint32_t w : succ[v])
          if (w != skip && !seen[w]) seen[w] = true, work.push_back(w);
      }
      return seen;
    };
    const std::vector<bool> reachable = reach(kNoIndex);
    // The immediate dominator of w is its dominator that dominates the fewest objects.
    std::vector<std::vector<uint32_t>> dominated(n);
    for (uint32_t d = 0; d < n; ++d) {
      if (!reachable[d]) continue;
      const std::vector<bool> without = reach(d);
      for (uint32_t w = 0; w < n; ++w)
        if (w != d && reachable[w] && !without[w]) dominated[d].push_back(w);
    }
    std::vector<uint32_t> want_idom(n, kNoIndex);
    std::vector<uint64_t> want_retained(n, 0);
    for (uint32_t d = 0; d < n; ++d) {
      if (!reachable[d]) continue;
      want_retained[d] = size[d];
      for (const uint32_t w : dominated[d]) {
        want_retained[d] += size[w];
        if (want_idom[w] == kNoIndex || dominated[d].size() < dominated[want_idom[w]].size())
          want_idom[w] = d;
      }
    }
    GraphIndex g = GraphIndex::Build(snap);
    const DominatorTree dom = DominatorTree::Compute(g);
    uint32_t deepest = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t v = g.Find(0x1000 + 0x10ull * i);
      if (!reachable[i]) {
        ASSERT_FALSE(dom.reachable(v)) << "object " << i;
        continue;
      }
      const uint32_t want =
          want_idom[i] == kNoIndex ? dom.virtual_root() : g.Find(0x1000 + 0x10ull * want_idom[i]);
      ASSERT_EQ(dom.idom(v), want) << "object " << i;
      ASSERT_EQ(dom.retained(v), want_retained[i]) << "object " << i;
      uint32_t depth = 0;
      for (uint32_t u = v; u != dom.virtual_root(); u = dom.idom(u)) ++depth;
      deepest = std::max(deepest, depth);
    }
    EXPECT_GT(deepest, 50u);  // the climbs this test is for
  }
}

// A singly linked list of `n` nodes rooted at its head: every node dominates the rest.
Snapshot Chain(uint32_t n, bool descending_ids) {
  Snapshot s;
  s.AddSection({.name = "chain.exe"});
  const uint32_t t = s.AddType(1, "Node", 0);
  auto id = [&](uint32_t i) -> ObjectId {
    return descending_ids ? 0x10ull * (n - i) : 0x10ull * (i + 1);
  };
  for (uint32_t i = 0; i < n; ++i) {
    const ObjectId next = id(i + 1);
    s.AddObject(id(i), t, 8,
                i + 1 < n ? std::span<const ObjectId>(&next, 1) : std::span<const ObjectId>());
  }
  s.AddRoot(id(0), RootKind::kStatic, 0, 1);
  s.CloseSectionRanges();
  return s;
}

TEST(Dominators, MillionNodeChainNeedsNoRecursion) {
  for (bool descending : {false, true}) {
    const uint32_t n = 1'000'000;
    Snapshot s = Chain(n, descending);
    GraphIndex g = GraphIndex::Build(s);
    DominatorTree dom = DominatorTree::Compute(g);
    EXPECT_EQ(dom.idom(0), dom.virtual_root());
    for (uint32_t v = 1; v < n; v += 997) ASSERT_EQ(dom.idom(v), v - 1);
    EXPECT_EQ(dom.retained(0), uint64_t{8} * n);
    EXPECT_EQ(dom.retained(n - 1), 8u);
    EXPECT_EQ(dom.retained(n / 2), uint64_t{8} * (n - n / 2));
    TypeStats types = TypeStats::Compute(g, dom);
    EXPECT_EQ(types[0].retained_bytes, uint64_t{8} * n);  // nested nodes are not counted twice
  }
}

// A long list whose head also holds an index array over every node's payload: semidominators
// far above long idom chains (quadratic for naive NCA walks; Lengauer–Tarjan stays n log n).
TEST(Dominators, ListWithIndexArrayStaysFast) {
  const uint32_t k = 300'000;
  Snapshot s;
  s.AddSection({.name = "list.exe"});
  const uint32_t node = s.AddType(1, "Node", 0), payload = s.AddType(2, "Payload", 0),
                 arr = s.AddType(3, "Payload[]", 0);
  // ids: node i = 0x100000 + 16 i, payload i = 0x900000 + 16 i, array = 0x50
  std::vector<ObjectId> all_payloads(k);
  for (uint32_t i = 0; i < k; ++i) all_payloads[i] = 0x900000 + 16ull * i;
  s.AddObject(0x50, arr, 16 + 4 * k, all_payloads);
  for (uint32_t i = 0; i < k; ++i) {
    std::vector<ObjectId> r;
    if (i + 1 < k) r.push_back(0x100000 + 16ull * (i + 1));  // next first: DFS runs down the list
    r.push_back(0x900000 + 16ull * i);
    if (i == 0) r.push_back(0x50);
    s.AddObject(0x100000 + 16ull * i, node, 12, r);
  }
  for (uint32_t i = 0; i < k; ++i) s.AddObject(0x900000 + 16ull * i, payload, 20, {});
  s.AddRoot(0x100000, RootKind::kLocal, 0);
  s.CloseSectionRanges();
  GraphIndex g = GraphIndex::Build(s);
  DominatorTree dom = DominatorTree::Compute(g);
  // The back edges (the array's, to payloads the list reached first) listed on two threads,
  // each taking slots in the same lists: the same tree.
  const DominatorTree two = DominatorTree::Compute(g, {}, 2);
  ASSERT_TRUE(
      std::equal(dom.idoms().begin(), dom.idoms().end(), two.idoms().begin(), two.idoms().end()));
  const uint32_t head = g.Find(0x100000);
  for (uint32_t i = 0; i < k; i += 1009) {
    const uint32_t p = g.Find(0x900000 + 16ull * i);
    ASSERT_EQ(dom.idom(p), head);  // reachable both through its node and the index array
    const uint32_t nd = g.Find(0x100000 + 16ull * i);
    ASSERT_EQ(dom.retained(nd), 12ull * (k - i) + (i == 0 ? 20ull * k + 16 + 4 * k : 0));
  }
}

TEST(Dominators, CancelFlagStopsTheComputation) {
  Snapshot s = Chain(3'000'000, false);
  GraphIndex g = GraphIndex::Build(s);
  std::atomic<bool> cancel{false};
  int calls = 0;
  Progress p{.on_progress =
                 [&](std::string_view, double) {
                   if (++calls == 2) cancel = true;
                 },
             .cancel = &cancel};
  EXPECT_THROW(DominatorTree::Compute(g, p), Cancelled);
  EXPECT_GE(calls, 2);
}

TEST(DominatorChildren, ListsChildrenLargestFirst) {
  HeapBuilder b;
  b.Obj(0x10, "Game", 10, {0x20, 0x30, 0x40});
  b.Obj(0x20, "Small", 5).Obj(0x30, "Big", 50, {0x50}).Obj(0x40, "Mid", 20).Obj(0x50, "Leaf", 1);
  b.Obj(0x60, "Other", 7);
  b.Root(0x10).Root(0x60, RootKind::kHandle);
  Snapshot s = b.Build();
  GraphIndex g = GraphIndex::Build(s);
  DominatorTree dom = DominatorTree::Compute(g);
  DominatorChildren c = DominatorChildren::Build(dom);
  auto top = c.Children(dom.virtual_root());
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0], 0u);  // Game retains 86
  EXPECT_EQ(top[1], 5u);
  auto kids = c.Children(0);
  ASSERT_EQ(kids.size(), 3u);
  EXPECT_EQ(kids[0], 2u);
  EXPECT_EQ(kids[1], 3u);
  EXPECT_EQ(kids[2], 1u);
  EXPECT_EQ(dom.retained(0), 86u);
}

TEST(DominatorChildren, ListsWithoutOffsetsAreTheSame) {
  std::mt19937_64 rng(20261130);
  size_t lists = 0;
  for (int iter = 0; iter < 300; ++iter) {
    RandomHeap h = MakeRandomHeap(rng);  // unreachable objects too, and empty heaps
    SCOPED_TRACE("heap #" + std::to_string(iter));
    GraphIndex g = GraphIndex::Build(h.snap);
    DominatorTree dom = DominatorTree::Compute(g);
    const DominatorChildren full = DominatorChildren::Build(dom);
    DominatorChildren lean = DominatorChildren::Build(dom);
    lean.DropOffsets(dom);
    EXPECT_LT(lean.MemoryBytes(), full.MemoryBytes());
    for (uint32_t v = 0; v <= dom.node_count(); ++v) {
      const auto want = full.Children(v), got = lean.Children(v);
      ASSERT_EQ(std::vector<uint32_t>(want.begin(), want.end()),
                std::vector<uint32_t>(got.begin(), got.end()))
          << "node " << v;
      lists += !want.empty();
    }
  }
  EXPECT_GT(lists, 500u);
}

}  // namespace
}  // namespace xrpm::analysis
