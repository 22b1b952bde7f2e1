#include "xrpm/analysis/allocation_diff.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "xrpm/analysis/allocation_profile.h"

namespace xrpm::analysis {
namespace {

struct Site {
  std::vector<std::string> frames;
  Estimate est;
};

// The profile's estimates by site name (stacks of several types merge into one site).
std::unordered_map<std::string, Site> Sites(const AllocationProfile& p, AllocSiteKind by) {
  std::unordered_map<std::string, Site> out;
  switch (by) {
    case AllocSiteKind::kType:
      for (const TypeAlloc& t : p.by_type) Merge(out[t.type].est, t.est);
      break;
    case AllocSiteKind::kTag:
      for (const TagAlloc& t : p.by_tag) Merge(out[t.tag].est, t.est);
      break;
    case AllocSiteKind::kMethod:
      for (const MethodAlloc& m : p.by_method)
        if (m.self.samples) Merge(out[m.method].est, m.self);
      break;
    case AllocSiteKind::kStack:
      for (const StackAlloc& s : p.by_stack) {
        std::string name;
        for (const std::string& f : s.frames) name += (name.empty() ? "" : " <- ") + f;
        if (name.empty()) name = "<no managed frame>";
        Site& site = out[name];
        site.frames = s.frames;
        Merge(site.est, s.est);
      }
      break;
  }
  return out;
}

AllocSide Side(const AllocationProfile& p) {
  const double f = p.frames ? 1.0 / double(p.frames) : 0;
  AllocSide s{p.frames, p.sample_bytes, p.total.bytes * f, p.total.Error() * f,
              p.ExactBytesPerFrame()};
  s.frame_totals = p.frame_totals;
  return s;
}

}  // namespace

const char* AllocSiteKindName(AllocSiteKind k) {
  switch (k) {
    case AllocSiteKind::kStack:
      return "stack";
    case AllocSiteKind::kMethod:
      return "method";
    case AllocSiteKind::kType:
      return "type";
    case AllocSiteKind::kTag:
      return "tag";
  }
  return "stack";
}

std::optional<AllocSiteKind> AllocSiteKindFromName(std::string_view name) {
  for (AllocSiteKind k :
       {AllocSiteKind::kStack, AllocSiteKind::kMethod, AllocSiteKind::kType, AllocSiteKind::kTag})
    if (name == AllocSiteKindName(k)) return k;
  return std::nullopt;
}

AllocationDiff DiffAllocations(const FrameRecording& a, const FrameRecording& b, AllocSiteKind by) {
  const AllocationProfile pa = BuildAllocationProfile(a), pb = BuildAllocationProfile(b);
  AllocationDiff d;
  d.by = by;
  d.a = Side(pa);
  d.b = Side(pb);
  const double fa = pa.frames ? 1.0 / double(pa.frames) : 0;
  const double fb = pb.frames ? 1.0 / double(pb.frames) : 0;
  const std::unordered_map<std::string, Site> sa = Sites(pa, by), sb = Sites(pb, by);
  // One row per site name; x or y is null when the site is in one recording only.
  auto add = [&](const std::string& name, const Site* x, const Site* y) {
    AllocDiffRow r;
    r.site = name;
    r.frames = (x ? x : y)->frames;
    r.only_a = !y;
    r.only_b = !x;
    if (x) {
      r.a_per_frame = x->est.bytes * fa;
      r.a_error = x->est.Error() * fa;
    }
    if (y) {
      r.b_per_frame = y->est.bytes * fb;
      r.b_error = y->est.Error() * fb;
    }
    d.rows.push_back(std::move(r));
  };
  for (const auto& [name, s] : sa) {
    const auto it = sb.find(name);
    add(name, &s, it == sb.end() ? nullptr : &it->second);
  }
  for (const auto& [name, s] : sb)
    if (!sa.count(name)) add(name, nullptr, &s);
  for (AllocDiffRow& r : d.rows) {
    r.change = r.b_per_frame - r.a_per_frame;
    r.change_error = std::hypot(r.a_error, r.b_error);
  }
  std::sort(d.rows.begin(), d.rows.end(), [](const AllocDiffRow& x, const AllocDiffRow& y) {
    const double ax = std::fabs(x.change), ay = std::fabs(y.change);
    return ax != ay ? ax > ay : x.site < y.site;
  });
  return d;
}

}  // namespace xrpm::analysis
