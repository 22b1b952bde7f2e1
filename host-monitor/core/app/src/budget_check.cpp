#include "xrpm/app/budget_check.h"

#include <map>
#include <memory>

#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/leak_filter.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/analysis/type_stats.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/glob.h"
#include "xrpm/model/type_name.h"

namespace xrpm::app {
namespace {

// A budget's type pattern, written in any form of type names (type_name.h): it matches a
// canonical name as written or once made canonical itself, and a type's name as its source
// wrote it.
bool PatternMatches(const std::string& pattern, const std::string& canonical_pattern,
                    const TypeInfo& t) {
  return GlobMatch(pattern, t.name) || GlobMatch(canonical_pattern, t.name) ||
         GlobMatch(pattern, t.written_name());
}
bool PatternMatchesName(const std::string& pattern, std::string_view canonical_name) {
  return GlobMatch(pattern, canonical_name) ||
         GlobMatch(CanonicalTypeName(pattern), canonical_name);
}

// Instances and shallow bytes of the types of `s` whose name matches: one pass over the objects.
struct Matched {
  uint64_t count = 0, bytes = 0;
};
std::vector<char> MatchingTypes(const Snapshot& s, const std::string& pattern) {
  const std::string canonical = CanonicalTypeName(pattern);
  std::vector<char> in(s.types.size());
  for (size_t t = 0; t < s.types.size(); ++t)
    in[t] = PatternMatches(pattern, canonical, s.types[t]);
  return in;
}
Matched CountMatching(const Snapshot& s, const std::string& pattern) {
  const std::vector<char> in = MatchingTypes(s, pattern);
  Matched m;
  for (size_t i = 0; i < s.object_count(); ++i)
    if (in[s.object_type[i]]) {
      ++m.count;
      m.bytes += s.object_size[i];
    }
  return m;
}

class Checker {
 public:
  Checker(const Budget& b, const std::vector<BudgetInput>& inputs, unsigned threads)
      : b_(b), threads_(threads) {
    for (const BudgetInput& in : inputs) {
      if (in.capture) caps_.push_back(&in);
      if (in.recording) recs_.push_back(&in);
    }
    if ((!b.types.empty() || !b.after_marker.empty()) && caps_.empty())
      throw BudgetUsageError(
          "types and after_marker rules apply to captures, and none of the inputs is a capture");
    if (!b.leaks.empty() && caps_.size() != 3)
      throw BudgetUsageError("leaks rules apply to three captures of one run in order (A B C), " +
                             std::to_string(caps_.size()) + " given");
    if ((b.frames.any() || !b.tags.empty()) && recs_.empty())
      throw BudgetUsageError(
          "frames and tags rules apply to recordings (saved with xrpm frames -o or xrpm "
          "allocations -o), and none of the inputs is a recording");
  }

  BudgetResult Run() {
    for (const TypeBudget& t : b_.types) Types(t);
    for (const AfterMarkerBudget& r : b_.after_marker) AfterMarker(r);
    if (!b_.leaks.empty()) Leaks();
    if (b_.frames.any())
      for (const BudgetInput* in : recs_) Frames(*in);
    for (const TagBudget& t : b_.tags)
      for (const BudgetInput* in : recs_) {
        const analysis::AllocationProfile p = analysis::BuildAllocationProfile(*in->recording);
        double bytes = 0;
        for (const analysis::TagAlloc& a : p.by_tag)
          if (a.tag == t.tag) bytes = a.est.bytes;
        Add("tags " + t.tag + " max_bytes_per_frame", in->name, t.max_bytes_per_frame,
            p.frames ? std::optional(bytes / double(p.frames)) : std::nullopt, t.line);
      }
    return std::move(out_);
  }

 private:
  void Add(std::string rule, const std::string& input, double limit, std::optional<double> measured,
           uint64_t line) {
    const bool ok = measured && *measured <= limit;
    out_.ok = out_.ok && ok;
    out_.rules.push_back({std::move(rule), input, limit, measured, ok, line});
  }

  void Types(const TypeBudget& t) {
    for (const BudgetInput* in : caps_) {
      const Snapshot& s = *in->capture;
      const Matched m = CountMatching(s, t.name);
      const std::string rule = "types " + t.name + " ";
      if (t.max_count) Add(rule + "max_count", in->name, double(*t.max_count), m.count, t.line);
      if (t.max_bytes) Add(rule + "max_bytes", in->name, double(*t.max_bytes), m.bytes, t.line);
      if (t.max_retained_bytes) {
        const analysis::HeapAnalysis& a = Analysed(*in);
        std::vector<char> groups(a.index.group_count());
        const std::vector<char> in_types = MatchingTypes(s, t.name);
        for (uint32_t ti = 0; ti < in_types.size(); ++ti)
          if (in_types[ti]) groups[a.index.group_of_type(ti)] = 1;
        Add(rule + "max_retained_bytes", in->name, double(*t.max_retained_bytes),
            double(analysis::RetainedBytesOfGroups(a.index, a.dom, groups)), t.line);
      }
    }
  }

  void AfterMarker(const AfterMarkerBudget& r) {
    const std::string rule = "after_marker '" + r.marker + "' " + r.type + " max_count";
    bool any = false;
    for (const BudgetInput* in : caps_) {
      const Snapshot& s = *in->capture;
      if (!s.capture || s.capture->marker_age_us < 0 || s.capture->last_marker != r.marker)
        continue;
      any = true;
      Add(rule, in->name, double(r.max_count), CountMatching(s, r.type).count, r.line);
    }
    if (!any) {
      std::string names;
      for (const BudgetInput* in : caps_) names += (names.empty() ? "" : ", ") + in->name;
      Add(rule, names, double(r.max_count), std::nullopt, r.line);
    }
  }

  void Leaks() {
    const Snapshot &a = *caps_[0]->capture, &b = *caps_[1]->capture, &c = *caps_[2]->capture;
    const analysis::LeakNames names = {caps_[0]->name, caps_[1]->name, caps_[2]->name};
    if (std::string why = analysis::CheckLeakCaptures(a, b, c, names); !why.empty())
      throw InputError(Diagnostic{"", 0, "cannot-compare", why});
    const analysis::GraphIndex g = analysis::GraphIndex::Build(c, {.threads = threads_});
    const analysis::RootPathForest forest = analysis::RootPathForest::Build(g);
    const analysis::LeakReport rep =
        analysis::FindLeaks(a, b, g, forest, {.max_paths = 1, .max_groups = 0}, names);
    const std::string input = caps_[0]->name + ", " + caps_[1]->name + ", " + caps_[2]->name;
    for (const LeakBudget& l : b_.leaks) {
      uint64_t count = 0;
      for (const analysis::LeakGroup& lg : rep.groups)
        if (PatternMatchesName(l.type, lg.type)) count += lg.count;
      Add("leaks " + l.type + " max_count", input, double(l.max_count), double(count), l.line);
    }
  }

  void Frames(const BudgetInput& in) {
    const FrameBudget& f = b_.frames;
    const analysis::FrameSummary s = analysis::SummarizeFrames(*in.recording);
    auto measured = [&](double v) { return s.frames ? std::optional(v) : std::nullopt; };
    if (f.alloc_bytes_mean)
      Add("frames alloc_bytes_mean", in.name, *f.alloc_bytes_mean,
          measured(s.alloc_bytes_per_frame), f.line);
    if (f.alloc_bytes_p95)
      Add("frames alloc_bytes_p95", in.name, *f.alloc_bytes_p95,
          measured(double(s.alloc_bytes_p95)), f.line);
    if (f.alloc_bytes_max)
      Add("frames alloc_bytes_max", in.name, *f.alloc_bytes_max,
          measured(double(s.alloc_bytes_max)), f.line);
    if (f.gcs_per_minute)
      Add("frames gcs_per_minute", in.name, *f.gcs_per_minute,
          s.seconds > 0 ? std::optional(double(s.gcs) / s.seconds * 60.0) : std::nullopt, f.line);
  }

  // The analysis of a capture (retained sizes), run once per capture when first needed.
  const analysis::HeapAnalysis& Analysed(const BudgetInput& in) {
    std::unique_ptr<analysis::HeapAnalysis>& a = analyses_[&in];
    if (!a) {
      a = std::make_unique<analysis::HeapAnalysis>();
      *a = analysis::HeapAnalysis::Run(*in.capture, {.threads = threads_});
    }
    return *a;
  }

  const Budget& b_;
  unsigned threads_;
  std::map<const BudgetInput*, std::unique_ptr<analysis::HeapAnalysis>> analyses_;
  std::vector<const BudgetInput*> caps_, recs_;
  BudgetResult out_;
};

}  // namespace

BudgetResult CheckBudget(const Budget& b, const std::vector<BudgetInput>& inputs,
                         unsigned threads) {
  return Checker(b, inputs, threads).Run();
}

}  // namespace xrpm::app
