// `xrpm allocations (--connect HOST:PORT [--duration S] [--sample-bytes N] | REC.xrpm) [--count N]
// [-o REC.xrpm] [--by type|method|stack|tag] [--json]`: records allocation samples with call
// stacks for S seconds or N frames (or reads a recording saved with -o) and shows which code
// allocates during gameplay: estimated bytes and objects (analysis/allocation_profile.h states the
// estimator) by type, by allocating method (bottom-up: self, and total through the method) or as a
// top-down call tree (--by stack), with shares and per-frame figures. The JSON always carries
// `stacks` (frames innermost first, type, estimated bytes and count). The frame rows' own figures
// (`exact_bytes`, ...: field names kept) are the runtime's exact count unless `frame_totals` says
// "estimated" (.NET's sampled route); the text then says "estimated from samples" instead.
// `xrpm allocations --diff A.xrpm B.xrpm [--by ...]`: two saved recordings compared per site
// (analysis/allocation_diff.h): bytes per frame in A and in B, the change, each with its sampling
// error, largest change first, sites seen in one recording only marked.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "shared/common.h"
#include "shared/record_frames.h"
#include "shared/verb.h"
#include "xrpm/analysis/allocation_diff.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/app/alloc_diff_json.h"

namespace xrpm::cli {
namespace verb_allocations {

struct Opts {
  FramesRecordOptions rec;
  std::string by = "type";
  size_t top = 25;
  bool json = false;
};

uint64_t Round(double v) {
  return static_cast<uint64_t>(std::llround(v));
}

nlohmann::json EstimateJson(const analysis::Estimate& e) {
  return {{"bytes", Round(e.bytes)},
          {"count", Round(e.objects)},
          {"samples", e.samples},
          {"sampled_bytes", e.sampled_bytes}};
}

nlohmann::json TreeJson(const analysis::AllocationProfile& p, uint32_t node) {
  const analysis::CallTreeNode& n = p.tree[node];
  nlohmann::json j = {{"method", n.method},
                      {"bytes", Round(n.total.bytes)},
                      {"count", Round(n.total.objects)},
                      {"self_bytes", Round(n.self.bytes)},
                      {"children", nlohmann::json::array()}};
  for (uint32_t c : n.children) j["children"].push_back(TreeJson(p, c));
  return j;
}

void PrintTree(const analysis::AllocationProfile& p, uint32_t node, double min_bytes,
               TextTable& t) {
  for (uint32_t c : p.tree[node].children) {
    const analysis::CallTreeNode& n = p.tree[c];
    if (n.total.bytes < min_bytes) continue;
    t.AddRow({std::string(2 * (n.depth - 1), ' ') + n.method, FormatBytes(Round(n.total.bytes)),
              Percent(n.total.bytes, p.total.bytes), FormatBytes(Round(n.self.bytes))});
    PrintTree(p, c, min_bytes, t);
  }
}

// "+1.2 KiB" / "-300 B" / "0 B".
std::string SignedBytes(double v) {
  const uint64_t b = Round(std::fabs(v));
  return (b == 0 ? "" : v < 0 ? "-" : "+") + FormatBytes(b);
}
std::string WithError(const std::string& value, double error) {
  return value + " \u00b1 " + FormatBytes(Round(error));
}

// --diff A B: per site, bytes per frame in A and B and the change, each with its error.
int RunDiff(const Opts& o) {
  const std::string &fa = o.rec.diff[0], &fb = o.rec.diff[1];
  const formats::SavedRecording a = formats::LoadRecordingFile(fa),
                                b = formats::LoadRecordingFile(fb);
  const analysis::AllocSiteKind by =
      analysis::AllocSiteKindFromName(o.by).value_or(analysis::AllocSiteKind::kStack);
  const analysis::AllocationDiff d = analysis::DiffAllocations(a.rec, b.rec, by);
  if (o.json) {
    auto side = [](const std::string& file, const formats::SavedRecording& r,
                   const analysis::AllocSide& s) {
      return nlohmann::json{{"file", file},
                            {"app", r.rec.app},
                            {"frames", s.frames},
                            {"sample_bytes", s.sample_bytes},
                            {"bytes_per_frame", s.per_frame},
                            {"error", s.error},
                            {"exact_bytes_per_frame", s.exact_per_frame},
                            {"frame_totals", FrameTotalsName(s.frame_totals)}};
    };
    nlohmann::json sites = nlohmann::json::array();
    for (const analysis::AllocDiffRow& r : d.rows) {
      nlohmann::json j = app::AllocDiffRowJson(r);
      if (by == analysis::AllocSiteKind::kStack) j["frames"] = r.frames;
      sites.push_back(std::move(j));
    }
    PrintJson({{"by", o.by}, {"a", side(fa, a, d.a)}, {"b", side(fb, b, d.b)}, {"sites", sites}});
    return kExitOk;
  }
  auto header = [](const char* label, const std::string& file, const formats::SavedRecording& r,
                   const analysis::AllocSide& s) {
    std::printf(
        "%s: %s (%s, %s frames, one sample per %s): %s per frame (%s)\n", label, file.c_str(),
        r.rec.app.c_str(), FormatCount(s.frames).c_str(), FormatBytes(s.sample_bytes).c_str(),
        WithError(FormatBytes(Round(s.per_frame)), s.error).c_str(),
        analysis::FrameTotalsPhrase(s.frame_totals, FormatBytes(Round(s.exact_per_frame))).c_str());
  };
  header("A", fa, a, d.a);
  header("B", fb, b, d.b);
  TextTable t({{by == analysis::AllocSiteKind::kStack    ? "call stack (innermost first)"
                : by == analysis::AllocSiteKind::kMethod ? "allocating method"
                : by == analysis::AllocSiteKind::kTag    ? "scope tag"
                                                         : "type"},
               {"A per frame", TextTable::Align::kRight},
               {"B per frame", TextTable::Align::kRight},
               {"change", TextTable::Align::kRight},
               {""}});
  size_t n = 0;
  for (const analysis::AllocDiffRow& r : d.rows) {
    if (n++ == o.top) break;
    t.AddRow({r.site, r.only_b ? "-" : WithError(FormatBytes(Round(r.a_per_frame)), r.a_error),
              r.only_a ? "-" : WithError(FormatBytes(Round(r.b_per_frame)), r.b_error),
              WithError(SignedBytes(r.change), r.change_error),
              r.only_a   ? "only in A"
              : r.only_b ? "only in B"
                         : ""});
  }
  t.Print();
  if (d.rows.size() > o.top) std::printf("(%zu more site(s); --top N)\n", d.rows.size() - o.top);
  return kExitOk;
}

int Run(const Opts& o) {
  if (!o.rec.diff.empty()) return RunDiff(o);
  const FramesRecorded got = RecordFrames(o.rec, "allocations");
  const FrameRecording& r = got.rec;
  const analysis::AllocationProfile p = analysis::BuildAllocationProfile(r);
  const double per_frame = p.frames ? 1.0 / double(p.frames) : 0;
  if (o.json) {
    nlohmann::json stacks = nlohmann::json::array();
    for (const auto& s : p.by_stack) {
      nlohmann::json e = EstimateJson(s.est);
      e["frames"] = s.frames;
      e["type"] = s.type;
      e["share"] = s.share;
      stacks.push_back(std::move(e));
    }
    nlohmann::json j = {{"endpoint", got.endpoint},
                        {"app", r.app},
                        {"by", o.by},
                        {"sample_bytes", p.sample_bytes},
                        {"frames", p.frames},
                        {"estimated_bytes", Round(p.total.bytes)},
                        {"estimated_objects", Round(p.total.objects)},
                        {"exact_bytes", p.exact_bytes},
                        {"exact_objects", p.exact_objects},
                        {"sampled_bytes", p.total.sampled_bytes},
                        {"samples", p.total.samples},
                        {"estimated_bytes_per_frame", p.EstimatedBytesPerFrame()},
                        {"exact_bytes_per_frame", p.ExactBytesPerFrame()},
                        {"frame_totals", FrameTotalsName(p.frame_totals)},
                        {"dropped_records", r.dropped_records},
                        {"wire_bytes", r.wire_bytes},
                        {"stacks", stacks}};
    auto grouped = [&](const auto& groups, const char* key, auto name) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& t : groups) {
        nlohmann::json e = EstimateJson(t.est);
        e[key] = name(t);
        e["share"] = t.share;
        e["bytes_per_frame"] = t.est.bytes * per_frame;
        rows.push_back(std::move(e));
      }
      return rows;
    };
    if (o.by == "type") {
      j["types"] = grouped(p.by_type, "type", [](const auto& t) { return t.type; });
    } else if (o.by == "tag") {
      j["tags"] = grouped(p.by_tag, "tag", [](const auto& t) { return t.tag; });
    } else if (o.by == "method") {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& m : p.by_method) {
        nlohmann::json e = EstimateJson(m.self);
        e["method"] = m.method;
        e["share"] = m.share;
        e["total_bytes"] = Round(m.total.bytes);
        e["total_count"] = Round(m.total.objects);
        e["bytes_per_frame"] = m.self.bytes * per_frame;
        rows.push_back(std::move(e));
      }
      j["methods"] = rows;
    } else {
      j["tree"] = TreeJson(p, 0);
    }
    PrintJson(j);
    return kExitOk;
  }
  std::printf(
      "%s on %s: %s frames, %s samples (one per %s); estimated %s allocated (%s per frame), "
      "%s\n",
      r.app.c_str(), got.endpoint.c_str(), FormatCount(p.frames).c_str(),
      FormatCount(p.total.samples).c_str(), FormatBytes(p.sample_bytes).c_str(),
      FormatBytes(Round(p.total.bytes)).c_str(),
      FormatBytes(Round(p.EstimatedBytesPerFrame())).c_str(),
      analysis::FrameTotalsPhrase(p.frame_totals, FormatBytes(p.exact_bytes)).c_str());
  if (r.dropped_records)
    std::printf("  (the device dropped %s records the host did not take in time)\n",
                FormatCount(r.dropped_records).c_str());
  if (o.by == "stack") {
    TextTable t({{"call tree (top-down)"},
                 {"bytes", TextTable::Align::kRight},
                 {"share", TextTable::Align::kRight},
                 {"self", TextTable::Align::kRight}});
    PrintTree(p, 0, p.total.bytes * 0.005, t);  // nodes under 0.5 % are left out
    t.Print();
    return kExitOk;
  }
  const bool by_tag = o.by == "tag";
  const bool by_type = o.by == "type" || by_tag;
  TextTable t({{by_tag    ? "scope tag"
                : by_type ? "type"
                          : "allocating method"},
               {"bytes", TextTable::Align::kRight},
               {"share", TextTable::Align::kRight},
               {"objects", TextTable::Align::kRight},
               {"per frame", TextTable::Align::kRight},
               {by_type ? "samples" : "total", TextTable::Align::kRight}});
  size_t n = 0;
  auto grouped_row = [&](const std::string& name, const analysis::Estimate& e) {
    t.AddRow({name, FormatBytes(Round(e.bytes)), Percent(e.bytes, p.total.bytes),
              FormatCount(Round(e.objects)), FormatBytes(Round(e.bytes * per_frame)),
              FormatCount(e.samples)});
  };
  if (by_tag)
    for (const auto& x : p.by_tag) {
      if (n++ == o.top) break;
      grouped_row(x.tag, x.est);
    }
  else if (by_type)
    for (const auto& x : p.by_type) {
      if (n++ == o.top) break;
      grouped_row(x.type, x.est);
    }
  else
    for (const auto& x : p.by_method) {
      if (n++ == o.top) break;
      t.AddRow({x.method, FormatBytes(Round(x.self.bytes)), Percent(x.self.bytes, p.total.bytes),
                FormatCount(Round(x.self.objects)), FormatBytes(Round(x.self.bytes * per_frame)),
                FormatBytes(Round(x.total.bytes))});
    }
  t.Print();
  return kExitOk;
}

VerbRegistration reg{
    "allocations", "Sample allocations with call stacks: which code makes the garbage",
    [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      AddFramesRecordOptions(cmd, o->rec, true);
      cmd.add_option("--by", o->by,
                     "Group by type, allocating method, call stack (tree) or scope tag")
          ->check(CLI::IsMember({"type", "method", "stack", "tag"}))
          ->capture_default_str();
      cmd.add_option("--top", o->top, "Rows to print (text output)")->capture_default_str();
      CLI::Option* diff =
          cmd.add_option("--diff", o->rec.diff,
                         "Compare two saved recordings A B per site (--by): bytes per frame in "
                         "each, the change, and their sampling errors")
              ->expected(2);
      for (const char* other :
           {"file", "--connect", "--output", "--count", "--duration", "--sample-bytes"})
        diff->excludes(cmd.get_option(other));
      AddJsonFlag(cmd, o->json);
      return [o] { return Run(*o); };
    }};

}  // namespace verb_allocations
}  // namespace xrpm::cli
