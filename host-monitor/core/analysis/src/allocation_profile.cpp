#include "xrpm/analysis/allocation_profile.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "xrpm/protocol/sampling.h"

namespace xrpm::analysis {

void Estimate::Add(uint32_t size, double sample_bytes) {
  const double p = protocol::SampleProbability(size, sample_bytes);
  const double w = p > 0 ? 1.0 / p : 0.0;
  bytes += size * w;
  variance += double(size) * size * (1.0 - p) * w * w;
  objects += w;
  ++samples;
  sampled_bytes += size;
}

double Estimate::Error() const {
  return std::sqrt(variance);
}

void Merge(Estimate& into, const Estimate& e) {
  into.bytes += e.bytes;
  into.variance += e.variance;
  into.objects += e.objects;
  into.samples += e.samples;
  into.sampled_bytes += e.sampled_bytes;
}

namespace {

template <class T, class F>
void SortDesc(std::vector<T>& v, F bytes) {
  std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) { return bytes(a) > bytes(b); });
}

}  // namespace

AllocationProfile BuildAllocationProfile(const FrameRecording& r, FrameRange range) {
  AllocationProfile p;
  p.range = range;
  p.sample_bytes = r.sample_bytes;
  p.frame_totals = r.frame_totals;
  for (const FrameRow& f : r.frames)
    if (range.Contains(f.frame)) {
      ++p.frames;
      p.exact_bytes += f.alloc_bytes;
      p.exact_objects += f.alloc_objects;
    }
  const double n = r.sample_bytes;

  std::unordered_map<uint32_t, Estimate> types;
  std::unordered_map<uint32_t, Estimate> tags;
  std::unordered_map<uint32_t, MethodAlloc> methods;
  std::unordered_map<uint64_t, Estimate> stacks;  // stack << 32 | type
  std::unordered_map<uint64_t, uint32_t> edges;   // parent node << 32 | method -> node
  p.tree.push_back({});
  std::vector<uint32_t> seen;  // methods already credited for this sample

  for (const SampleRow& s : r.samples) {
    if (!range.Contains(s.frame)) continue;
    Estimate one;
    one.Add(s.size, n);
    Merge(p.total, one);
    Merge(types[s.type], one);
    Merge(tags[s.tag], one);
    Merge(stacks[(uint64_t{s.stack} << 32) | s.type], one);
    const std::vector<uint32_t>& st = r.Stack(s.stack);
    seen.clear();
    for (size_t i = 0; i < st.size(); ++i) {
      MethodAlloc& m = methods[st[i]];
      if (i == 0) Merge(m.self, one);
      if (std::find(seen.begin(), seen.end(), st[i]) == seen.end()) {
        Merge(m.total, one);
        seen.push_back(st[i]);
      }
    }
    // Top-down: outermost frame first.
    uint32_t node = 0;
    Merge(p.tree[0].total, one);
    for (size_t i = st.size(); i-- > 0;) {
      const uint64_t key = (uint64_t{node} << 32) | st[i];
      auto [it, fresh] = edges.emplace(key, static_cast<uint32_t>(p.tree.size()));
      if (fresh) {
        CallTreeNode c;
        c.method = r.MethodName(st[i]);
        c.depth = p.tree[node].depth + 1;
        p.tree.push_back(std::move(c));
        p.tree[node].children.push_back(it->second);
      }
      node = it->second;
      Merge(p.tree[node].total, one);
    }
    Merge(p.tree[node].self, one);
  }

  const double total = p.total.bytes > 0 ? p.total.bytes : 1;
  for (auto& [id, e] : types) p.by_type.push_back({r.TypeName(id), e, e.bytes / total});
  for (auto& [id, e] : tags) p.by_tag.push_back({r.TagName(id), e, e.bytes / total});
  for (auto& [id, m] : methods) {
    m.method = r.MethodName(id);
    m.share = m.self.bytes / total;
    p.by_method.push_back(std::move(m));
  }
  for (auto& [key, e] : stacks) {
    StackAlloc s;
    s.stack = static_cast<uint32_t>(key >> 32);
    for (uint32_t m : r.Stack(s.stack)) s.frames.push_back(r.MethodName(m));
    s.type = r.TypeName(static_cast<uint32_t>(key));
    s.est = e;
    s.share = e.bytes / total;
    p.by_stack.push_back(std::move(s));
  }
  SortDesc(p.by_type, [](const TypeAlloc& t) { return t.est.bytes; });
  SortDesc(p.by_tag, [](const TagAlloc& t) { return t.est.bytes; });
  SortDesc(p.by_method, [](const MethodAlloc& m) { return m.self.bytes + m.total.bytes * 1e-9; });
  SortDesc(p.by_stack, [](const StackAlloc& s) { return s.est.bytes; });
  for (CallTreeNode& node : p.tree)
    std::stable_sort(node.children.begin(), node.children.end(), [&](uint32_t a, uint32_t b) {
      return p.tree[a].total.bytes > p.tree[b].total.bytes;
    });
  return p;
}

const char* FrameTotalsLabel(FrameTotals t) {
  return t == FrameTotals::kEstimated ? "estimated from samples" : "exact";
}

std::string FrameTotalsPhrase(FrameTotals t, const std::string& amount) {
  return t == FrameTotals::kEstimated ? "frame totals " + amount + ", estimated from samples"
                                      : "exact " + amount;
}

const char* FrameTotalsHelp(FrameTotals t) {
  return t == FrameTotals::kEstimated
             ? "Frame totals: this runtime does not count each allocation (.NET's sampled "
               "route); every allocation sample on the game thread adds its weight to its "
               "frame, an unbiased but coarse estimate (0 in most frames that allocate less "
               "than the sampling interval)."
             : "Exact: the runtime's own count of the bytes allocated in these frames.";
}

}  // namespace xrpm::analysis
