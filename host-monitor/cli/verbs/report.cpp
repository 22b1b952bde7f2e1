// `xrpm report FILE`: the one-page answer for a heap dump: totals, the types that retain the
// most (with --by-site: the allocation sites that retain the most), and leak suspects with the
// paths that hold them.
#include "shared/analysis.h"
#include "shared/inspections.h"
#include "shared/origins.h"
#include "shared/verb.h"
#include "xrpm/analysis/heap_report.h"
#include "xrpm/analysis/site_stats.h"
#include "xrpm/app/analysis_json.h"

namespace xrpm::cli {
namespace verb_report {

struct Opts : FileVerbOptions {
  size_t top = 15;
  double min_share = 10;  // percent
  bool by_site = false;
  size_t site_depth = 3;
};

// The JSON form: the same data, the top types always, the sites with --by-site.
nlohmann::json ReportJson(const Opts& o, const AnalyzedFile& f, const analysis::HeapReport& r) {
  const analysis::HeapAnalysis& a = f.a;
  nlohmann::json types = nlohmann::json::array();
  for (const uint32_t g : r.top_types) {
    const analysis::TypeStat& st = a.types[g];
    types.push_back({{"type", a.index.group_name(g)},
                     {"count", st.count},
                     {"reachable", st.reachable_count},
                     {"shallow_bytes", st.shallow_bytes},
                     {"retained_bytes", st.retained_bytes}});
  }
  nlohmann::json j = {{"file", f.loaded.path},
                      {"format", f.loaded.format},
                      {"totals", TotalsJson(r.totals)},
                      {"top_types_by_retained", types},
                      {"suspects", SuspectsJson(a, r.suspects)},
                      {"diagnostics", DiagnosticsJson(f.loaded.diags)},
                      {"appdomains", DomainTotalsJson(f.loaded.snap)}};
  j["inspections"] = InspectionsJson(*a.snapshot, r.inspections)["inspections"];
  if (o.by_site) {
    const Snapshot& s = f.loaded.snap;
    nlohmann::json sites = nlohmann::json::array();
    for (const analysis::SiteRetainedRow& sr : r.top_sites) {
      const analysis::SiteRow& row = sr.row;
      nlohmann::json site = {{"site", nlohmann::json(analysis::SiteMethods(s, row.site))},
                             {"site_label", SiteText(s, row.site, 0)},
                             {"known", row.site != kUnknownSite},
                             {"count", row.count},
                             {"shallow_bytes", row.bytes},
                             {"retained_bytes", sr.retained}};
      if (s.origins->sample_bytes) site["est_bytes"] = row.est_bytes;
      sites.push_back(std::move(site));
    }
    j["origins"] = app::OriginsSummaryJson(s);
    j["top_sites_by_retained"] = std::move(sites);
  }
  return j;
}

void PrintSummary(const AnalyzedFile& f, const analysis::HeapTotals& t) {
  std::printf("%s  (%s)\n\nSummary\n", f.loaded.path.c_str(), f.loaded.format.c_str());
  using A = TextTable::Align;
  TextTable sum({{"", A::kLeft}, {"", A::kRight}, {"", A::kLeft}});
  sum.AddRow({"objects", FormatCount(t.objects), FormatBytes(t.total_bytes)});
  sum.AddRow({"reachable", FormatCount(t.reachable_objects),
              FormatBytes(t.reachable_bytes) + " (" +
                  Percent(double(t.reachable_bytes), double(t.total_bytes)) + " of the bytes)"});
  sum.AddRow({"unreachable", FormatCount(t.unreachable_objects),
              FormatBytes(t.unreachable_bytes) + " (garbage, or only weakly held)"});
  sum.AddRow({"references", FormatCount(t.references),
              t.dangling_refs ? "(" + FormatCount(t.dangling_refs) + " dangling, skipped)" : ""});
  sum.AddRow({"types", FormatCount(t.types), ""});
  sum.AddRow({"root records", FormatCount(t.root_records),
              FormatCount(t.strong_root_objects) + " objects strongly rooted, " +
                  FormatCount(t.weak_only_root_objects) + " only weakly" +
                  (t.dangling_roots ? ", " + FormatCount(t.dangling_roots) + " dangling" : "")});
  if (t.duplicate_ids) sum.AddRow({"duplicate ids", FormatCount(t.duplicate_ids), "(first kept)"});
  sum.Print(stdout, 2);
  PrintDomainTotals(f.loaded.snap);
}

void PrintTopSites(const Snapshot& s, const analysis::HeapReport& r, size_t site_depth) {
  std::printf("\nTop %zu allocation sites by retained size (capture frame %s)\n",
              r.top_sites.size(), FormatCount(s.origins->capture_frame).c_str());
  if (const std::string note = SampledNote(s); !note.empty()) std::printf("  %s\n", note.c_str());
  using A = TextTable::Align;
  TextTable sites({{"allocated at", A::kLeft},
                   {"objects", A::kRight},
                   {"shallow", A::kRight},
                   {"retained", A::kRight},
                   {"of heap", A::kRight}});
  for (const analysis::SiteRetainedRow& sr : r.top_sites) {
    const analysis::SiteRow& row = sr.row;
    sites.AddRow({SiteText(s, row.site, site_depth), FormatCount(row.count), FormatBytes(row.bytes),
                  FormatBytes(sr.retained),
                  Percent(double(sr.retained), double(r.totals.reachable_bytes))});
  }
  sites.Print(stdout, 2);
}

void PrintTopTypes(const analysis::HeapAnalysis& a, const analysis::HeapReport& r) {
  std::printf("\nTop %zu types by retained size\n", r.top_types.size());
  using A = TextTable::Align;
  TextTable types({{"type", A::kLeft},
                   {"count", A::kRight},
                   {"shallow", A::kRight},
                   {"retained", A::kRight},
                   {"of heap", A::kRight}});
  for (const uint32_t g : r.top_types) {
    const analysis::TypeStat& st = a.types[g];
    types.AddRow({a.index.group_name(g), FormatCount(st.count), FormatBytes(st.shallow_bytes),
                  FormatBytes(st.retained_bytes),
                  Percent(double(st.retained_bytes), double(r.totals.reachable_bytes))});
  }
  types.Print(stdout, 2);
}

// The text form: the summary, the top sites (--by-site) or types, the suspects and the short
// inspections section (each inspection's totals and its largest finding).
void PrintReport(const Opts& o, const AnalyzedFile& f, const analysis::HeapReport& r) {
  PrintSummary(f, r.totals);
  if (o.by_site)
    PrintTopSites(f.loaded.snap, r, o.site_depth);
  else
    PrintTopTypes(f.a, r);
  std::printf("\nLeak suspects (retaining >= %.3g%% of the reachable heap)\n", o.min_share);
  PrintSuspects(f.a, r.suspects);
  std::printf("\nInspections (xrpm inspect for all findings)\n");
  PrintInspections(r.inspections, 1);
}

int Run(const Opts& o) {
  // AnalyzeForCli's steps, with the analysis and the report in one call: the inspections
  // overlap the dominator tree on a second thread.
  auto f = std::make_unique<AnalyzedFile>();
  f->loaded = LoadForCli(o.file, o.in);
  if (o.by_site) RequireOrigins(f->loaded);
  analysis::AnalysedReport ar = analysis::AnalyseAndReport(
      f->loaded.snap, {.top = o.top, .min_share = o.min_share / 100.0, .by_site = o.by_site},
      {.threads = o.in.threads});
  f->a = std::move(ar.a);
  const analysis::HeapReport& r = ar.report;
  if (o.json)
    PrintJson(ReportJson(o, *f, r));
  else
    PrintReport(o, *f, r);
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  cmd.add_option("--top", o->top, "How many types to list")
      ->default_val(15)
      ->check(CLI::PositiveNumber);
  cmd.add_option("--min-share", o->min_share,
                 "Suspects retain at least this percentage of the reachable heap")
      ->default_val(10)
      ->check(CLI::Range(0.001, 100.0));
  cmd.add_flag("--by-site", o->by_site,
               "Allocation sites instead of types by retained size (captures that recorded "
               "origins)");
  cmd.add_option("--site-depth", o->site_depth, "Methods of each site shown (--by-site)")
      ->default_val(3)
      ->check(CLI::Range(1, 64));
  return [o] { return Run(*o); };
}

VerbRegistration reg{"report",
                     "Summary, top types by retained size and leak suspects of a heap dump", Setup};

}  // namespace verb_report
}  // namespace xrpm::cli
