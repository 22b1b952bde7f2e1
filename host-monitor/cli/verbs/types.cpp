// `xrpm types FILE`: the type histogram (objects and shallow bytes per type); with --by-site,
// one row per (type, allocation site).
#include "shared/common.h"
#include "shared/origins.h"
#include "shared/verb.h"
#include "xrpm/analysis/site_stats.h"
#include "xrpm/app/analysis_json.h"
#include "xrpm/model/type_histogram.h"

namespace xrpm::cli {
namespace verb_types {

struct Opts : FileVerbOptions {
  std::string sort = "bytes";
  size_t top = 0;
  int section = -1;
  bool by_section = false;
  bool by_site = false;
  size_t site_depth = 3;
};

// --by-site: objects and bytes per (type name, allocation site).
int RunBySite(const Opts& o, const LoadedSnapshot& l) {
  const Snapshot& s = l.snap;
  RequireOrigins(l);
  std::vector<analysis::TypeSiteRow> rows;
  if (o.section >= 0) {
    const AppDomainSection& sec = s.sections[static_cast<size_t>(o.section)];
    std::vector<uint32_t> objects;
    for (uint64_t i = sec.objects_begin; i < sec.objects_end; ++i)
      objects.push_back(static_cast<uint32_t>(i));
    rows = analysis::TypeSiteStatsOf(s, objects);
  } else {
    rows = analysis::TypeSiteStats(s);
  }
  const TypeSort sort = *ParseTypeSort(o.sort);
  if (sort == TypeSort::kCount)
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.count != b.count ? a.count > b.count : a.bytes > b.bytes;
    });
  else if (sort == TypeSort::kName)
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.type < b.type; });
  uint64_t objects = 0, bytes = 0;
  for (const analysis::TypeSiteRow& r : rows) {
    objects += r.count;
    bytes += r.bytes;
  }
  const size_t shown = o.top ? std::min(o.top, rows.size()) : rows.size();
  const bool sampled = s.origins->sample_bytes > 0;

  if (o.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < shown; ++i) {
      const analysis::TypeSiteRow& r = rows[i];
      nlohmann::json j = {{"name", r.type},
                          {"site", nlohmann::json(analysis::SiteMethods(s, r.site))},
                          {"site_label", SiteText(s, r.site, 0)},
                          {"count", r.count},
                          {"bytes", r.bytes}};
      if (sampled) {
        j["est_count"] = r.est_count;
        j["est_bytes"] = r.est_bytes;
      }
      arr.push_back(std::move(j));
    }
    PrintJson({{"file", l.path},
               {"sort", o.sort},
               {"by_site", true},
               {"origins", app::OriginsSummaryJson(s)},
               {"groups", rows.size()},
               {"objects", objects},
               {"bytes", bytes},
               {"rows", arr},
               {"diagnostics", DiagnosticsJson(l.diags)}});
    return kExitOk;
  }

  if (const std::string note = SampledNote(s); !note.empty()) std::printf("%s\n\n", note.c_str());
  using A = TextTable::Align;
  std::vector<TextTable::Column> cols = {{"#", A::kRight},
                                         {"objects", A::kRight},
                                         {"%", A::kRight},
                                         {"size", A::kRight},
                                         {"%", A::kRight}};
  if (sampled) cols.push_back({"est. size", A::kRight});
  cols.push_back({"type", A::kLeft});
  cols.push_back({"allocated at", A::kLeft});
  TextTable t(std::move(cols));
  for (size_t i = 0; i < shown; ++i) {
    const analysis::TypeSiteRow& r = rows[i];
    std::vector<std::string> row = {
        std::to_string(i + 1), FormatCount(r.count),
        Percent(static_cast<double>(r.count), static_cast<double>(objects)), FormatBytes(r.bytes),
        Percent(static_cast<double>(r.bytes), static_cast<double>(bytes))};
    if (sampled) row.push_back(FormatBytes(static_cast<uint64_t>(r.est_bytes)));
    row.push_back(std::string(r.type));
    row.push_back(SiteText(s, r.site, o.site_depth));
    t.AddRow(std::move(row));
  }
  t.Print();
  std::printf("\n%s of %s (type, site) row(s) shown; %s objects, %s in all\n",
              FormatCount(shown).c_str(), FormatCount(rows.size()).c_str(),
              FormatCount(objects).c_str(), FormatBytes(bytes).c_str());
  return kExitOk;
}

int Run(const Opts& o) {
  LoadedSnapshot l = LoadForCli(o.file, o.in);
  const Snapshot& s = l.snap;
  TypeHistogramOptions ho;
  ho.merge_by_name = !o.by_section;
  if (o.section >= 0) {
    if (static_cast<size_t>(o.section) >= s.sections.size()) {
      std::fprintf(stderr, "xrpm types: %s has %zu section(s); --section %d does not exist\n",
                   l.path.c_str(), s.sections.size(), o.section);
      return kExitBadInput;
    }
    ho.section = static_cast<uint32_t>(o.section);
  }
  if (o.by_site) return RunBySite(o, l);
  std::vector<TypeHistogramRow> rows = ComputeTypeHistogram(s, ho);
  SortTypeHistogram(rows, *ParseTypeSort(o.sort));
  uint64_t objects = 0, bytes = 0;
  for (const TypeHistogramRow& r : rows) {
    objects += r.count;
    bytes += r.bytes;
  }
  const size_t shown = o.top ? std::min(o.top, rows.size()) : rows.size();

  if (o.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < shown; ++i) {
      const TypeHistogramRow& r = rows[i];
      nlohmann::json j = {
          {"name", r.name}, {"count", r.count}, {"bytes", r.bytes}, {"placeholder", r.placeholder}};
      if (o.by_section) {
        j["section"] = s.types[r.type_index].section;
        j["type_id"] = s.types[r.type_index].id;
      }
      arr.push_back(std::move(j));
    }
    PrintJson({{"file", l.path},
               {"sort", o.sort},
               {"types", rows.size()},
               {"objects", objects},
               {"bytes", bytes},
               {"rows", arr},
               {"diagnostics", DiagnosticsJson(l.diags)}});
    return kExitOk;
  }

  using A = TextTable::Align;
  std::vector<TextTable::Column> cols = {{"#", A::kRight}, {"objects", A::kRight},
                                         {"%", A::kRight}, {"size", A::kRight},
                                         {"%", A::kRight}, {"avg", A::kRight}};
  if (o.by_section) cols.push_back({"sect", A::kRight});
  cols.push_back({"type", A::kLeft});
  TextTable t(std::move(cols));
  for (size_t i = 0; i < shown; ++i) {
    const TypeHistogramRow& r = rows[i];
    std::vector<std::string> row = {
        std::to_string(i + 1),
        FormatCount(r.count),
        Percent(static_cast<double>(r.count), static_cast<double>(objects)),
        FormatBytes(r.bytes),
        Percent(static_cast<double>(r.bytes), static_cast<double>(bytes)),
        r.count ? FormatBytes(r.bytes / r.count) : "-"};
    if (o.by_section) row.push_back(std::to_string(s.types[r.type_index].section));
    row.push_back(r.name);
    t.AddRow(std::move(row));
  }
  t.Print();
  std::printf("\n%s of %s type(s) shown; %s objects, %s in all\n", FormatCount(shown).c_str(),
              FormatCount(rows.size()).c_str(), FormatCount(objects).c_str(),
              FormatBytes(bytes).c_str());
  return kExitOk;
}

VerbRegistration reg{
    "types", "Type histogram: objects and shallow bytes per type", [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      AddFileOptions(cmd, *o);
      cmd.add_option("--sort", o->sort, "Order by count, bytes (default) or name")
          ->check(CLI::IsMember({"count", "bytes", "name"}));
      cmd.add_option("--top", o->top, "Show only the first N types (0: all)");
      cmd.add_option("--section", o->section,
                     "Only this AppDomain section (index, see `xrpm info`)");
      CLI::Option* by_section =
          cmd.add_flag("--by-section", o->by_section,
                       "One row per section's type instead of merging equal names across sections");
      cmd.add_flag("--by-site", o->by_site,
                   "One row per type and allocation site (captures that recorded origins)")
          ->excludes(by_section);
      cmd.add_option("--site-depth", o->site_depth, "Methods of each site shown (--by-site)")
          ->default_val(3)
          ->check(CLI::Range(1, 64));
      return [o] { return Run(*o); };
    }};

}  // namespace verb_types
}  // namespace xrpm::cli
