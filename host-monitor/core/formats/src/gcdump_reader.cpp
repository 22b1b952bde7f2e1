// .gcdump -> Snapshot (gcdump_reader.h). Three passes over the nodes after the file is decoded:
//   1. pseudo-nodes: breadth-first from the root through bracketed, address-less children
//      (O(pseudo-nodes + their edges));
//   2. ids: one per node from its address, synthetic ones for missing or duplicate addresses
//      (O(nodes), one bitmap or hash-set insert per address);
//   3. objects: each real node decoded once and appended to the columns, references as node
//      indices first, then turned into ids in one prefetching pass (O(nodes + edges)).
// Roots are emitted from the pseudo-nodes found in pass 1.
#include "xrpm/formats/gcdump_reader.h"

#include <algorithm>
#include <cstring>

#include "xrpm/formats/gcdump_file.h"
#include "xrpm/model/id_hash.h"
#include "xrpm/model/mapped_file.h"

namespace xrpm::formats {
namespace {

using formats::GcDumpFile;
using formats::Graph;
using formats::NodeDecoder;

bool Bracketed(const std::string& name) {
  return name.size() >= 2 && name.front() == '[' && name.back() == ']';
}

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return r;
}

// What a pseudo-node's name says about the roots below it.
struct GcdumpRootClass {
  RootKind kind = RootKind::kInternal;
  uint8_t flags = 0;
};

GcdumpRootClass Classify(const std::string& name, GcdumpRootClass parent) {
  const std::string n = Lower(name);
  auto has = [&](std::string_view w) { return n.find(w) != std::string::npos; };
  GcdumpRootClass c = parent;
  if (has("local var") || has("stack")) {
    c.kind = RootKind::kLocal;
  } else if (has("finaliz")) {
    c.kind = RootKind::kFinalizer;
  } else if (has("static var")) {
    c.kind = RootKind::kStatic;
  } else if (has("handle") || has("com/winrt") || has("ccw")) {
    c.kind = RootKind::kHandle;
  }
  if (has("pinned")) c.flags |= kRootPinned;
  if (has("weak")) c.flags |= kRootWeak;
  return c;
}

struct Pseudo {
  uint32_t node;
  GcdumpRootClass cls;
  uint32_t origin;  // index into Snapshot::root_origins
};

class Mapper {
 public:
  Mapper(const GcDumpFile& f, std::string_view name, Diagnostics& diags, GcDumpReadStats& st)
      : f_(f), g_(f.graph), name_(name), diags_(diags), st_(st), dec_(g_, std::string(name)) {}

  Snapshot Run() {
    const uint64_t n = g_.node_count();
    pseudo_.assign(n / 64 + 1, 0);
    AppDomainSection sec;
    sec.name = !f_.process_name.empty()    ? f_.process_name
               : !f_.creation_tool.empty() ? f_.creation_tool
                                           : "gcdump";
    snap_.AddSection(std::move(sec));
    if (n) FindPseudoNodes();
    AssignIds();
    AddObjects();
    AddRoots();
    snap_.CloseSectionRanges();
    Report();
    return std::move(snap_);
  }

 private:
  // Pseudo-nodes are few; one bit per node keeps the check in cache.
  bool IsPseudo(uint64_t i) const { return (pseudo_[i >> 6] >> (i & 63)) & 1; }
  void SetPseudo(uint64_t i) { pseudo_[i >> 6] |= uint64_t{1} << (i & 63); }
  uint64_t Address(uint32_t i) const { return g_.addresses.empty() ? 0 : g_.addresses[i]; }

  void FindPseudoNodes() {
    const uint32_t root = static_cast<uint32_t>(g_.root_index);
    SetPseudo(root);
    list_.push_back({root, Classify(g_.types[dec_.TypeOf(root)].name, {}), 0});
    snap_.root_origins.push_back(g_.types[dec_.TypeOf(root)].name);
    for (size_t q = 0; q < list_.size(); ++q) {
      const Pseudo p = list_[q];
      const formats::GraphNode node = dec_.Decode(p.node);
      std::vector<uint32_t> kids(node.children.begin(), node.children.end());
      for (uint32_t c : kids) {
        if (IsPseudo(c) || Address(c) != 0) continue;
        const std::string& tname = g_.types[dec_.TypeOf(c)].name;
        if (!Bracketed(tname)) continue;
        SetPseudo(c);
        snap_.root_origins.push_back(snap_.root_origins[p.origin] + "/" + tname);
        list_.push_back(
            {c, Classify(tname, p.cls), static_cast<uint32_t>(snap_.root_origins.size() - 1)});
      }
    }
    st_.pseudo_nodes = list_.size();
  }

  // Duplicate addresses are found with a bitmap over the address span when it is small enough
  // (heap addresses are dense and aligned: one bit per possible address), else a hash set.
  void AssignIds() {
    const uint64_t n = g_.node_count();
    ids_.resize_uninitialized(n);
    uint64_t max_addr = 0, with_address = 0;
    IdBitmap::Span span;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t a = Address(static_cast<uint32_t>(i));
      max_addr = std::max(max_addr, a);
      if (a != 0 && !IsPseudo(i)) {
        span.Add(a);
        ++with_address;
      }
    }
    // Synthetic ids go above the largest address; when that could overflow, they take the
    // smallest values no address uses.
    const uint64_t base = max_addr < (UINT64_MAX - n) / 2 ? ((max_addr >> 4) + 1) << 4 : 0;
    if (IdBitmap::FitsBitmap(span, with_address)) {
      IdBitmap seen(span, 1);
      AssignIdsWith(
          base, [&](uint64_t a) { return seen.Insert(a); },
          [&](uint64_t a) { return seen.Contains(a); });
    } else {
      IdSet seen(std::max<uint64_t>(with_address, 1), 1);
      AssignIdsWith(
          base, [&](uint64_t a) { return seen.Insert(a, SeededHash(a)); },
          [&](uint64_t a) { return seen.Contains(a, SeededHash(a)); });
    }
  }

  // Pass 1: each node's address, the first node of each address keeping it. Pass 2: the other
  // nodes (no address, a repeated one) get synthetic ids (pseudo-nodes need none: they are
  // never objects, references or roots).
  template <class Insert, class Contains>
  void AssignIdsWith(uint64_t base, Insert insert, Contains contains) {
    const uint64_t n = g_.node_count();
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t a = Address(static_cast<uint32_t>(i));
      ids_[i] = 0;
      if (a != 0 && !IsPseudo(i)) {
        if (insert(a))
          ids_[i] = a;
        else
          ++duplicates_;
      }
    }
    uint64_t next = base ? base : 1;
    for (uint64_t i = 0; i < n; ++i) {
      if (ids_[i] != 0 || IsPseudo(i)) continue;
      if (!base)
        while (contains(next)) ++next;
      ids_[i] = next++;
    }
  }

  // Two steps so that the random reads of children's ids overlap: the columns are filled with
  // each reference's child node index first (sequential), then the references are turned into
  // ids in one pass over the array that prefetches a few entries ahead.
  void AddObjects() {
    const uint32_t n = static_cast<uint32_t>(g_.node_count());
    std::vector<uint32_t> type_map(g_.types.size(), kNoIndex);
    snap_.object_id.reserve(n);
    snap_.object_type.reserve(n);
    snap_.object_size.reserve(n);
    snap_.ref_end.reserve(n);
    uint64_t size_sum = 0;
    PodVector<ObjectId>& refs = snap_.refs;
    for (uint32_t i = 0; i < n; ++i) {
      const formats::GraphNode node = dec_.Decode(i);
      st_.edges += node.children.size();
      size_sum += node.size;
      if (IsPseudo(i)) continue;
      if (node.type == 0) {
        ++st_.undefined_nodes;
        continue;
      }
      for (uint32_t c : node.children) {
        if (IsPseudo(c)) {
          ++pseudo_refs_;
          continue;
        }
        refs.push_back(c);  // a node index for now
      }
      uint32_t& t = type_map[node.type];
      if (t == kNoIndex) {
        const formats::GraphType& gt = g_.types[node.type];
        t = snap_.AddType(node.type, gt.name, 0);
        snap_.types[t].module = gt.module;
        if (f_.sampled()) snap_.types[t].sample_multiplier = f_.count_multipliers[node.type];
      }
      snap_.object_id.push_back(ids_[i]);
      snap_.object_type.push_back(t);
      snap_.object_size.push_back(node.size);
      snap_.ref_end.push_back(refs.size());
    }
    constexpr size_t kAhead = 16;
    const size_t m = refs.size();
    for (size_t k = 0; k < m; ++k) {
      if (k + kAhead < m) __builtin_prefetch(ids_.data() + refs[k + kAhead]);
      refs[k] = ids_[refs[k]];
    }
    size_sum_ = size_sum;
  }

  void AddRoots() {
    for (const Pseudo& p : list_) {
      const formats::GraphNode node = dec_.Decode(p.node);
      for (uint32_t c : node.children) {
        if (IsPseudo(c)) continue;
        snap_.AddRoot(ids_[c], p.cls.kind, p.cls.flags, 0, p.origin);
        ++st_.root_edges;
      }
    }
  }

  void Add(std::string code, std::string message) {
    diags_.Add(std::string(name_), 0, std::move(code), std::move(message));
  }

  void Report() {
    if (st_.undefined_nodes)
      Add("undefined-nodes",
          std::to_string(st_.undefined_nodes) +
              " nodes are referenced but were never defined by the dumper (type UNDEFINED); "
              "references and roots to them do not resolve");
    if (duplicates_)
      Add("duplicate-address", std::to_string(duplicates_) +
                                   " nodes share an address with an earlier node; they were given "
                                   "synthetic ids");
    if (pseudo_refs_)
      Add("pseudo-ref", std::to_string(pseudo_refs_) +
                            " references from objects to root pseudo-nodes were dropped");
    if (g_.node_count() && static_cast<int64_t>(size_sum_) != g_.total_size)
      Add("total-size", "the graph's stored total size " + std::to_string(g_.total_size) +
                            " differs from the sum of its node sizes " + std::to_string(size_sum_));
  }

  const GcDumpFile& f_;
  const Graph& g_;
  std::string_view name_;
  Diagnostics& diags_;
  GcDumpReadStats& st_;
  NodeDecoder dec_;
  Snapshot snap_;
  std::vector<uint64_t> pseudo_;  // bit per node
  std::vector<Pseudo> list_;
  PodVector<ObjectId> ids_;
  uint64_t duplicates_ = 0, pseudo_refs_ = 0, size_sum_ = 0;
};

}  // namespace

Snapshot ReadGcDump(std::span<const uint8_t> bytes, std::string_view name, Diagnostics& diags,
                    const ReadOptions& opts, GcDumpReadStats* stats) {
  Diagnostics strict_sink(true);
  Diagnostics& sink = opts.strict ? strict_sink : diags;
  const GcDumpFile f = formats::ParseGcDumpFile(bytes, std::string(name));
  GcDumpReadStats st;
  st.version = f.version;
  st.nodes = f.graph.node_count();
  st.types = f.graph.types.size();
  st.stored_total_size = f.graph.total_size;
  st.sampled = f.sampled();
  st.average_count_multiplier = f.average_count_multiplier;
  st.average_size_multiplier = f.average_size_multiplier;
  st.process_name = f.process_name;
  st.creation_tool = f.creation_tool;
  Snapshot snap = Mapper(f, name, sink, st).Run();
  if (stats) *stats = std::move(st);
  return snap;
}

Snapshot ReadGcDumpFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts,
                        GcDumpReadStats* stats) {
  MappedFile file(path);
  const std::string_view t = file.text();
  return ReadGcDump({reinterpret_cast<const uint8_t*>(t.data()), t.size()}, path, diags, opts,
                    stats);
}

bool LooksLikeGcDump(std::string_view head) {
  static constexpr char kSig[] = "\x14\0\0\0!FastSerialization.1";
  return head.size() >= sizeof kSig - 1 && std::memcmp(head.data(), kSig, sizeof kSig - 1) == 0;
}

}  // namespace xrpm::formats
