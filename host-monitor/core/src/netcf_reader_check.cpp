// Load-time id checks of the NETCF reader: duplicate object ids, dangling references and roots.
// See netcf_reader_stages.h. One IdSet of all object ids (built in parallel by partition),
// then parallel lookups over the reference and root columns, in batches with prefetching so
// the cache misses of a batch overlap. O(objects + refs + roots) expected time.
#include <algorithm>
#include <bit>
#include <exception>
#include <thread>

#include "xrpm/core/netcf_reader_stages.h"

namespace xrpm::netcf {

void RunParallel(unsigned n, const std::function<void(unsigned)>& fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  auto run = [&](unsigned i) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  for (unsigned i = 1; i < n; ++i) threads.emplace_back(run, i);
  run(0);
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

namespace {

constexpr size_t kBatch = 16;
constexpr uint64_t kMinParallel = 1 << 16;  // below this, one thread

struct Missing {
  uint64_t count = 0;
  std::vector<uint64_t> first;  // positions, at most `cap`
};

// Looks every value of `col` up in `set`; returns the positions not found, split over threads.
Missing FindMissing(const IdSet& set, const PodVector<ObjectId>& col, unsigned threads,
                    size_t cap) {
  const uint64_t n = col.size();
  if (n < kMinParallel) threads = 1;
  std::vector<Missing> parts(threads);
  RunParallel(threads, [&](unsigned t) {
    const uint64_t b = n * t / threads, e = n * (t + 1) / threads;
    Missing& m = parts[t];
    uint64_t h[kBatch];
    for (uint64_t i = b; i < e; i += kBatch) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(kBatch, e - i));
      for (size_t j = 0; j < k; ++j) {
        h[j] = SeededHash(col[i + j]);
        set.Prefetch(h[j]);
      }
      for (size_t j = 0; j < k; ++j) {
        if (!set.Contains(col[i + j], h[j])) {
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

}  // namespace

std::vector<uint64_t> CheckIds(const Snapshot& snap, unsigned threads, PendingDiags& diags) {
  const uint64_t n = snap.object_count();
  if (threads < 1) threads = 1;
  const unsigned parts = n < kMinParallel ? 1 : std::bit_floor(threads);
  IdSet set(n, parts);

  // Insert every id; a failed insert is a later duplicate.
  std::vector<std::vector<uint64_t>> dups(parts);
  RunParallel(parts, [&](unsigned p) {
    const ObjectId* ids = snap.object_id.data();
    uint64_t h[kBatch];
    for (uint64_t i = 0; i < n; i += kBatch) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(kBatch, n - i));
      for (size_t j = 0; j < k; ++j) {
        h[j] = SeededHash(ids[i + j]);
        if (set.PartitionOf(h[j]) == p) set.Prefetch(h[j]);
      }
      for (size_t j = 0; j < k; ++j)
        if (set.PartitionOf(h[j]) == p && !set.Insert(ids[i + j], h[j])) dups[p].push_back(i + j);
    }
  });
  std::vector<uint64_t> drop;
  for (auto& d : dups) drop.insert(drop.end(), d.begin(), d.end());
  std::sort(drop.begin(), drop.end());

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

  Missing refs = FindMissing(set, snap.refs, threads, cap);
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

  Missing roots = FindMissing(set, snap.root_object, threads, cap);
  for (uint64_t r : roots.first) {
    diags.anchored.push_back({true, r, code::kDanglingRoot,
                              "root " + HexString(snap.root_object[r]) + " (" +
                                  std::string(RootKindName(snap.root_kind_of(r))) +
                                  ") names an object that has no object record in the dump"});
  }
  if (roots.count > roots.first.size())
    diags.dropped[code::kDanglingRoot] += roots.count - roots.first.size();
  return drop;
}

}  // namespace xrpm::netcf
