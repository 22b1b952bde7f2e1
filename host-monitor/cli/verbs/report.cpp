// `xrpm report FILE`: the one-page answer for a heap dump: totals, the types that retain the
// most (with --by-site: the allocation sites that retain the most), and leak suspects with the
// paths that hold them.
#include "shared/analysis.h"
#include "shared/inspections.h"
#include "shared/origins.h"
#include "shared/verb.h"
#include "xrpm/analysis/site_stats.h"

namespace xrpm::cli {
namespace verb_report {

struct Opts : FileVerbOptions {
  size_t top = 15;
  double min_share = 10;  // percent
  bool by_site = false;
  size_t site_depth = 3;
};

struct SiteRetainedRow {
  analysis::SiteRow row;
  uint64_t retained = 0;
};

// Sites by retained bytes (then shallow), largest first, the unknown origin as one row.
std::vector<SiteRetainedRow> SitesByRetained(const analysis::HeapAnalysis& a) {
  const Snapshot& s = *a.snapshot;
  const std::vector<uint64_t> retained = analysis::SiteRetained(a.index, a.dom);
  std::vector<SiteRetainedRow> rows;
  for (const analysis::SiteRow& r : analysis::SiteStats(s))
    rows.push_back({r, retained[r.site == kUnknownSite ? retained.size() - 1 : r.site]});
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    return x.retained != y.retained ? x.retained > y.retained : x.row.bytes > y.row.bytes;
  });
  return rows;
}

// The short inspections section: each inspection's totals and its largest finding.
void PrintInspectionsSection(const std::vector<analysis::Inspection>& list) {
  std::printf("\nInspections (xrpm inspect for all findings)\n");
  PrintInspections(list, 1);
}

int Run(const Opts& o) {
  auto f = AnalyzeForCli(o.file, o.in);
  if (o.by_site) RequireOrigins(f->loaded);
  const analysis::HeapAnalysis& a = f->a;
  const analysis::HeapTotals t = analysis::Totals(a);
  analysis::SuspectOptions so;
  so.min_share = o.min_share / 100.0;
  const std::vector<analysis::Suspect> sus = analysis::FindSuspects(a, so);
  std::vector<uint32_t> by_retained = a.types.ByRetained();
  std::erase_if(by_retained, [&](uint32_t g) { return a.types[g].count == 0; });  // no instances
  const size_t shown = std::min(o.top, by_retained.size());
  const std::vector<analysis::Inspection> inspections = analysis::RunInspections(a.index);

  if (o.json) {
    nlohmann::json types = nlohmann::json::array();
    for (size_t i = 0; i < shown; ++i) {
      const uint32_t g = by_retained[i];
      const analysis::TypeStat& st = a.types[g];
      types.push_back({{"type", a.index.group_name(g)},
                       {"count", st.count},
                       {"reachable", st.reachable_count},
                       {"shallow_bytes", st.shallow_bytes},
                       {"retained_bytes", st.retained_bytes}});
    }
    nlohmann::json j = {{"file", f->loaded.path},
                        {"format", f->loaded.format},
                        {"totals", TotalsJson(t)},
                        {"top_types_by_retained", types},
                        {"suspects", SuspectsJson(a, sus)},
                        {"diagnostics", DiagnosticsJson(f->loaded.diags)},
                        {"appdomains", DomainTotalsJson(f->loaded.snap)}};
    j["inspections"] = InspectionsJson(*a.snapshot, inspections)["inspections"];
    if (o.by_site) {
      const Snapshot& s = f->loaded.snap;
      const std::vector<SiteRetainedRow> rows = SitesByRetained(a);
      nlohmann::json sites = nlohmann::json::array();
      for (size_t i = 0; i < std::min(o.top, rows.size()); ++i) {
        const analysis::SiteRow& r = rows[i].row;
        nlohmann::json row = {
            {"site", SiteJson(s, r.site)},     {"site_label", SiteText(s, r.site, 0)},
            {"known", r.site != kUnknownSite}, {"count", r.count},
            {"shallow_bytes", r.bytes},        {"retained_bytes", rows[i].retained}};
        if (s.origins->sample_bytes) row["est_bytes"] = r.est_bytes;
        sites.push_back(std::move(row));
      }
      j["origins"] = OriginsJson(s);
      j["top_sites_by_retained"] = std::move(sites);
    }
    PrintJson(j);
    return kExitOk;
  }

  std::printf("%s  (%s)\n\nSummary\n", f->loaded.path.c_str(), f->loaded.format.c_str());
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
  PrintDomainTotals(f->loaded.snap);

  if (o.by_site) {
    const Snapshot& s = f->loaded.snap;
    const std::vector<SiteRetainedRow> rows = SitesByRetained(a);
    const size_t n = std::min(o.top, rows.size());
    std::printf("\nTop %zu allocation sites by retained size (capture frame %s)\n", n,
                FormatCount(s.origins->capture_frame).c_str());
    if (const std::string note = SampledNote(s); !note.empty()) std::printf("  %s\n", note.c_str());
    TextTable sites({{"allocated at", A::kLeft},
                     {"objects", A::kRight},
                     {"shallow", A::kRight},
                     {"retained", A::kRight},
                     {"of heap", A::kRight}});
    for (size_t i = 0; i < n; ++i) {
      const analysis::SiteRow& r = rows[i].row;
      sites.AddRow({SiteText(s, r.site, o.site_depth), FormatCount(r.count), FormatBytes(r.bytes),
                    FormatBytes(rows[i].retained),
                    Percent(double(rows[i].retained), double(t.reachable_bytes))});
    }
    sites.Print(stdout, 2);
    std::printf("\nLeak suspects (retaining >= %.3g%% of the reachable heap)\n", o.min_share);
    PrintSuspects(a, sus);
    PrintInspectionsSection(inspections);
    return kExitOk;
  }

  std::printf("\nTop %zu types by retained size\n", shown);
  TextTable types({{"type", A::kLeft},
                   {"count", A::kRight},
                   {"shallow", A::kRight},
                   {"retained", A::kRight},
                   {"of heap", A::kRight}});
  for (size_t i = 0; i < shown; ++i) {
    const uint32_t g = by_retained[i];
    const analysis::TypeStat& st = a.types[g];
    types.AddRow({a.index.group_name(g), FormatCount(st.count), FormatBytes(st.shallow_bytes),
                  FormatBytes(st.retained_bytes),
                  Percent(double(st.retained_bytes), double(t.reachable_bytes))});
  }
  types.Print(stdout, 2);

  std::printf("\nLeak suspects (retaining >= %.3g%% of the reachable heap)\n", o.min_share);
  PrintSuspects(a, sus);
  PrintInspectionsSection(inspections);
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
