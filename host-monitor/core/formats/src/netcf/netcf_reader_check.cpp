// Load-time id checks of the NETCF reader: duplicate object ids, dangling references and roots.
// See netcf_reader_stages.h. One IdSet of all object ids (built in parallel by partition),
// then parallel lookups over the reference and root columns, in batches with prefetching so
// the cache misses of a batch overlap. O(objects + refs + roots) expected time.
#include <algorithm>
#include <bit>
#include <exception>
#include <thread>

#include "netcf_reader_stages.h"
#include "xrpm/model/fork_join.h"

namespace xrpm::formats {

namespace {

constexpr size_t kBatch = 16;
constexpr uint64_t kMinParallel = 1 << 16;  // below this, one thread

// Adapters giving IdSet and IdBitmap one interface: a per-id key (the hash, or the id itself),
// its partition, prefetch, insert and lookup.
struct HashIndex {
  IdSet set;
  uint64_t Key(uint64_t id) const { return SeededHash(id); }
  unsigned Part(uint64_t, uint64_t key) const { return set.PartitionOf(key); }
  void Prefetch(uint64_t, uint64_t key) const { set.Prefetch(key); }
  bool Insert(uint64_t id, uint64_t key) { return set.Insert(id, key); }
  bool Contains(uint64_t id, uint64_t key) const { return set.Contains(id, key); }
};
struct BitmapIndex {
  IdBitmap bits;
  uint64_t Key(uint64_t id) const { return id; }
  unsigned Part(uint64_t id, uint64_t) const { return bits.PartitionOf(id); }
  void Prefetch(uint64_t id, uint64_t) const { bits.Prefetch(id); }
  bool Insert(uint64_t id, uint64_t) { return bits.Insert(id); }
  bool Contains(uint64_t id, uint64_t) const { return bits.Contains(id); }
};

// Inserts every id (partition p on thread p); returns the indices of later duplicates, sorted.
template <class Index>
std::vector<uint64_t> InsertAll(Index& index, const PodVector<ObjectId>& ids, unsigned parts) {
  const uint64_t n = ids.size();
  std::vector<std::vector<uint64_t>> dups(parts);
  ForkJoin(parts, [&](unsigned p) {
    uint64_t k[kBatch];
    for (uint64_t i = 0; i < n; i += kBatch) {
      const size_t m = static_cast<size_t>(std::min<uint64_t>(kBatch, n - i));
      for (size_t j = 0; j < m; ++j) {
        k[j] = index.Key(ids[i + j]);
        if (index.Part(ids[i + j], k[j]) == p) index.Prefetch(ids[i + j], k[j]);
      }
      for (size_t j = 0; j < m; ++j)
        if (index.Part(ids[i + j], k[j]) == p && !index.Insert(ids[i + j], k[j]))
          dups[p].push_back(i + j);
    }
  });
  std::vector<uint64_t> drop;
  for (auto& d : dups) drop.insert(drop.end(), d.begin(), d.end());
  std::sort(drop.begin(), drop.end());
  return drop;
}

struct Missing {
  uint64_t count = 0;
  std::vector<uint64_t> first;  // positions, at most `cap`
};

// Looks every value of `col` up in `index`; returns the positions not found.
template <class Index>
Missing FindMissing(const Index& index, const PodVector<ObjectId>& col, unsigned threads,
                    size_t cap) {
  const uint64_t n = col.size();
  if (n < kMinParallel) threads = 1;
  std::vector<Missing> parts(threads);
  ForkJoin(threads, [&](unsigned t) {
    const uint64_t b = n * t / threads, e = n * (t + 1) / threads;
    Missing& m = parts[t];
    uint64_t k[kBatch];
    for (uint64_t i = b; i < e; i += kBatch) {
      const size_t c = static_cast<size_t>(std::min<uint64_t>(kBatch, e - i));
      for (size_t j = 0; j < c; ++j) {
        k[j] = index.Key(col[i + j]);
        index.Prefetch(col[i + j], k[j]);
      }
      for (size_t j = 0; j < c; ++j) {
        if (!index.Contains(col[i + j], k[j])) {
          ++m.count;
          if (m.first.size() < cap) m.first.push_back(i + j);
        }
      }
    }
  });
  Missing all;
  for (Missing& m : parts) {
    all.count += m.count;
    for (uint64_t p : m.first)
      if (all.first.size() < cap) all.first.push_back(p);
  }
  return all;
}

IdBitmap::Span SpanOf(const PodVector<ObjectId>& ids, unsigned threads) {
  const uint64_t n = ids.size();
  if (n < kMinParallel) threads = 1;
  std::vector<IdBitmap::Span> spans(threads);
  ForkJoin(threads, [&](unsigned t) {
    for (uint64_t i = n * t / threads, e = n * (t + 1) / threads; i < e; ++i) spans[t].Add(ids[i]);
  });
  for (unsigned t = 1; t < threads; ++t) spans[0].Merge(spans[t]);
  return spans[0];
}

struct IdReport {
  std::vector<uint64_t> drop;
  Missing refs, roots;
};

template <class Index>
IdReport CheckWith(Index& index, const Snapshot& snap, unsigned parts, unsigned threads,
                   size_t cap) {
  IdReport r;
  r.drop = InsertAll(index, snap.object_id, parts);
  r.refs = FindMissing(index, snap.refs, threads, cap);
  r.roots = FindMissing(index, snap.root_object, threads, cap);
  return r;
}

}  // namespace

std::vector<uint64_t> CheckIds(const Snapshot& snap, unsigned threads, PendingDiags& diags) {
  const uint64_t n = snap.object_count();
  if (threads < 1) threads = 1;
  const unsigned parts = n < kMinParallel ? 1 : std::bit_floor(threads);
  const IdBitmap::Span span = SpanOf(snap.object_id, threads);
  IdReport r;
  if (IdBitmap::FitsBitmap(span, n)) {
    BitmapIndex index{IdBitmap(span, parts)};
    r = CheckWith(index, snap, parts, threads, diags.cap);
  } else {
    HashIndex index{IdSet(n, parts)};
    r = CheckWith(index, snap, parts, threads, diags.cap);
  }
  std::vector<uint64_t>& drop = r.drop;
  Missing& refs = r.refs;
  Missing& roots = r.roots;

  const size_t cap = diags.cap;
  for (size_t i = 0; i < drop.size(); ++i) {
    if (i < cap) {
      diags.anchored.push_back({false, drop[i], code::kDuplicateObject,
                                "object id " + HexString(snap.object_id[drop[i]]) +
                                    " appears again; the first record is kept, this one dropped"});
    } else {
      diags.dropped[code::kDuplicateObject] += drop.size() - cap;
      break;
    }
  }

  for (uint64_t pos : refs.first) {
    const uint64_t obj = static_cast<uint64_t>(
        std::upper_bound(snap.ref_end.begin(), snap.ref_end.end(), pos) - snap.ref_end.begin());
    diags.anchored.push_back({false, obj, code::kDanglingRef,
                              "object " + HexString(snap.object_id[obj]) + " references " +
                                  HexString(snap.refs[pos]) +
                                  ", which has no object record in the dump"});
  }
  if (refs.count > refs.first.size())
    diags.dropped[code::kDanglingRef] += refs.count - refs.first.size();

  for (uint64_t ri : roots.first) {
    diags.anchored.push_back({true, ri, code::kDanglingRoot,
                              "root " + HexString(snap.root_object[ri]) + " (" +
                                  std::string(RootKindName(snap.root_kind_of(ri))) +
                                  ") names an object that has no object record in the dump"});
  }
  if (roots.count > roots.first.size())
    diags.dropped[code::kDanglingRoot] += roots.count - roots.first.size();
  return drop;
}

}  // namespace xrpm::formats
