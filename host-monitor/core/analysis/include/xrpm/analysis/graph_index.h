// GraphIndex: the object graph of one Snapshot in the form the analyses need.
//
//  - Node v is object index v of the snapshot (32-bit; at most 2^32 - 2 objects, so kNoIndex
//    and the dominator tree's virtual root (= node_count()) stay free).
//  - Forward and reverse edges in CSR with 32-bit offsets (at most 2^32 - 1 resolved
//    references). Out(v) keeps the record order of v's references; In(v) is sorted by source.
//    References to ids that no object has (dangling) are skipped and counted; a reference
//    listed twice is kept twice (it is harmless to every analysis).
//  - Roots: each root record resolved to its node (kNoIndex when dangling). A node is a strong
//    root when at least one of its records lacks the weak flag (kRootWeak); weak-only roots do
//    not keep anything alive. StrongRoots() lists each strong root node once, in record order.
//  - Type groups: types with the same canonical name (type_name.h: from several AppDomain
//    sections, listed twice, or written in two forms that name one type)
//    form one group; a group's instances are listed contiguously (Instances(g)).
//
// Building is O(N + E) time and memory: id resolution (IdResolver), reference resolution and
// the reverse CSR run in parallel chunks (the reverse CSR partitions by target range, so each
// in-list comes out sorted without atomics). Memory: 8 bytes per resolved reference (both
// directions) + ~12 bytes per object (two offset arrays, the type grouping) + the resolver
// (2 bytes/object for address-ordered ids, else 8).
// A lean index (GraphIndexOptions forward/reverse/instances false, what `xrpm inspect` builds)
// keeps only the resolver, the roots and the type table: ForEachOut then resolves the
// snapshot's own reference column on every walk (O(1) expected per reference, no copy), and
// the index costs the resolver's 2-8 bytes/object.
//
// The index refers to the snapshot, which must outlive it and stay unchanged.
// Thread-safety: immutable after Build; any number of threads may read it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xrpm/model/id_resolver.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/progress.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::analysis {

// How much a user can act on a root, best first: a static field (a line of code to change),
// a GC handle, a precise stack slot, the finalizer queue, the runtime's own tables, and last a
// stack slot found by a conservative scan (it may be a stale value that only looks like a
// reference). Paths to roots prefer the best rank among roots at the same distance.
uint8_t RootRank(RootKind kind, uint8_t flags);

struct GraphIndexOptions {
  unsigned threads = 0;  // 0: as many as the machine has
  // false: no reverse CSR (In() is then empty for every node; 4 B/reference + 4 B/object and
  // its build time saved) for analyses that only walk forward from the roots (`xrpm inspect`,
  // the dominator tree); referrer lists and PathFinder's search towards the roots read it.
  bool reverse = true;
  // false: no forward CSR (Out() and out_offsets() must not be called; ForEachOut resolves the
  // snapshot's references on every walk; edge_count() is then the snapshot's reference count
  // and dangling_refs() 0: dangling references are skipped unseen). Saves 4 B/reference +
  // 4 B/object. Implies reverse = false.
  bool forward = true;
  // false: no per-group instance lists (Instances() must not be called; group_size() still
  // works). Saves 4 B/object.
  bool instances = true;
};

class GraphIndex {
 public:
  GraphIndex() = default;
  GraphIndex(GraphIndex&&) noexcept = default;
  GraphIndex& operator=(GraphIndex&&) noexcept = default;
  GraphIndex(const GraphIndex&) = delete;
  GraphIndex& operator=(const GraphIndex&) = delete;

  // Throws std::length_error when the snapshot exceeds the 32-bit limits, Cancelled on cancel.
  static GraphIndex Build(const Snapshot& snap, const GraphIndexOptions& opts = {},
                          const Progress& progress = {});

  const Snapshot& snapshot() const { return *snap_; }
  uint32_t node_count() const { return n_; }
  uint64_t edge_count() const { return has_forward() || !snap_ ? out_.size() : snap_->ref_count(); }
  bool has_forward() const { return !out_off_.empty(); }

  std::span<const uint32_t> Out(uint32_t v) const {
    return {out_.data() + out_off_[v], out_.data() + out_off_[v + 1]};
  }
  std::span<const uint32_t> In(uint32_t v) const {
    if (in_off_.empty()) return {};
    return {in_.data() + in_off_[v], in_.data() + in_off_[v + 1]};
  }
  // Calls f(w) for each resolved reference of v in record order (dangling ones skipped): from
  // the forward CSR, or without one by resolving the snapshot's column as it goes.
  template <class F>
  void ForEachOut(uint32_t v, F&& f) const {
    if (has_forward()) {
      for (const uint32_t w : Out(v)) f(w);
      return;
    }
    const Snapshot& s = *snap_;
    constexpr uint64_t kBlock = 64;  // resolved together: their cache misses overlap
    uint32_t target[kBlock];
    for (uint64_t k = s.ref_begin(v), ke = s.ref_end[v]; k < ke; k += kBlock) {
      const uint64_t n = std::min(kBlock, ke - k);
      resolver_.FindMany({s.refs.data() + k, n}, target);
      for (uint64_t i = 0; i < n; ++i)
        if (target[i] != kNoIndex) f(target[i]);
    }
  }
  // The number of v's resolved references (Out(v).size()).
  uint32_t OutCount(uint32_t v) const;
  // v's resolved references in record order: Out(v), or the snapshot's resolved as they come.
  std::vector<uint32_t> OutList(uint32_t v) const;
  // Whether In() lists referrers (the reverse CSR was built).
  bool has_reverse() const { return !in_off_.empty(); }
  // v's referrers, one entry per reference, sorted by source: In(v), or without the reverse CSR
  // every reference of the snapshot compared with v's id on `threads` threads (0: as many as
  // the machine has; ids compared, nothing resolved): O(E), for one object a user asked about.
  std::vector<uint32_t> Referrers(uint32_t v, unsigned threads = 0) const;
  // The raw CSR arrays (offsets have node_count() + 1 entries), for hot loops that prefetch.
  const uint32_t* out_offsets() const { return out_off_.data(); }
  const uint32_t* out_edges() const { return out_.data(); }
  const uint32_t* in_offsets() const { return in_off_.data(); }
  const uint32_t* in_edges() const { return in_.data(); }

  // The node of an object id, or kNoIndex. Duplicate ids resolve to the first object.
  uint32_t Find(ObjectId id) const { return resolver_.Find(id); }
  const IdResolver& resolver() const { return resolver_; }

  // ---- roots ----
  // Per root record of the snapshot: its node, or kNoIndex when the id is dangling.
  uint32_t root_node(size_t record) const { return root_node_[record]; }
  // Per root record: the type index of the static's containing class (kind 4), else kNoIndex.
  uint32_t root_container_type(size_t record) const { return root_container_[record]; }
  // Every strongly rooted node once, best-ranked roots first (RootRank of its best record; by
  // record order among equals), so a breadth-first search seeded in this order reaches each
  // object first through the best root among those at the same distance.
  std::span<const uint32_t> StrongRoots() const { return strong_roots_.span(); }
  bool IsStrongRoot(uint32_t v) const { return (strong_bits_[v >> 6] >> (v & 63)) & 1; }
  // The best-ranked non-weak root record naming v (the first in record order among equals), or
  // kNoIndex.
  uint32_t StrongRootRecord(uint32_t v) const;

  // ---- type groups (types by name) ----
  uint32_t group_count() const { return static_cast<uint32_t>(group_names_.size()); }
  const std::string& group_name(uint32_t g) const { return *group_names_[g]; }
  uint32_t group_of_type(uint32_t type_index) const { return group_of_type_[type_index]; }
  uint32_t group_of(uint32_t v) const { return group_of_type_[snap_->object_type[v]]; }
  // The group of this type name, or kNoIndex: the canonical name (in any source's form, which
  // is made canonical first: type_name.h) or a type's name as its source wrote it.
  uint32_t FindGroup(std::string_view name) const;
  std::span<const uint32_t> Instances(uint32_t g) const {
    return {by_group_.data() + group_off_[g], by_group_.data() + group_off_[g + 1]};
  }
  uint32_t group_size(uint32_t g) const { return group_off_[g + 1] - group_off_[g]; }

  // ---- what was skipped ----
  uint64_t dangling_refs() const { return dangling_refs_; }
  uint64_t dangling_roots() const { return dangling_roots_; }
  uint64_t duplicate_ids() const { return resolver_.duplicate_ids(); }
  // The snapshot's ids strictly ascend with the object index (the id resolver's sorted layout).
  bool ids_ascending() const { return resolver_.sorted(); }
  uint64_t weak_only_roots() const { return weak_only_roots_; }  // nodes rooted only weakly

  size_t MemoryBytes() const;  // everything the index holds beyond the snapshot

 private:
  void ResolveEdges(unsigned threads, const Progress& progress);
  void BuildReverse(unsigned threads, const Progress& progress);
  void ResolveRoots();
  void GroupTypes(bool instances);

  const Snapshot* snap_ = nullptr;
  uint32_t n_ = 0;
  IdResolver resolver_;
  PodVector<uint32_t> out_off_, out_;
  PodVector<uint32_t> in_off_, in_;
  PodVector<uint32_t> root_node_, root_container_;
  PodVector<uint32_t> strong_roots_;
  PodVector<uint64_t> strong_bits_;
  PodVector<uint64_t> strong_record_;  // (node << 32 | its best record), one per node, by node
  std::vector<const std::string*> group_names_;  // point into snapshot types
  PodVector<uint32_t> group_of_type_, group_off_, by_group_;
  uint64_t dangling_refs_ = 0, dangling_roots_ = 0, weak_only_roots_ = 0;
};

}  // namespace xrpm::analysis
