// `xrpm diff A B [C ...]`: what changed between snapshots of the same application, per type
// name (object ids are not stable across dumps), sorted by growth, plus the types that grew in
// every step with the paths that hold them in the last snapshot.
#include "xrpm/analysis/diff.h"
#include "shared/analysis.h"
#include "shared/verb.h"

namespace xrpm::cli {
namespace verb_diff {

struct Opts {
  std::vector<std::string> files;
  InputOptions in;
  bool json = false;
  size_t top = 20;
  bool all = false;
};

std::string Signed(int64_t v, bool bytes) {
  const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  return std::string(v < 0   ? "-"
                     : v > 0 ? "+"
                             : "") +
         (bytes ? FormatBytes(mag) : FormatCount(mag));
}

std::string Series(const analysis::TypeSeries& r) {
  std::string s;
  for (size_t i = 0; i < r.at.size(); ++i)
    s += (i ? " -> " : "") + (r.present[i] ? FormatCount(r.at[i].count) : std::string("-"));
  return s;
}

int Run(const Opts& o) {
  std::vector<analysis::HeapSummary> sums;
  std::unique_ptr<AnalyzedFile> last;
  for (const std::string& path : o.files) {
    last.reset();  // one analysed snapshot in memory at a time
    last = AnalyzeForCli(path, o.in, /*referrers=*/false);  // growth paths walk forward
    sums.push_back(analysis::Summarize(last->a));
  }
  const analysis::HeapDiff d = analysis::DiffSummaries(sums);
  const std::vector<analysis::Suspect> sus = analysis::FindGrowthSuspects(d, last->a);
  for (const std::string& w : d.warnings)
    std::fprintf(stderr, "xrpm diff: warning: %s\n", w.c_str());

  auto changed = [](const analysis::TypeSeries& r) {
    return r.count_delta || r.shallow_delta || r.retained_delta || r.is_new || r.vanished;
  };
  std::vector<const analysis::TypeSeries*> rows;
  for (const auto& r : d.rows)
    if (o.all || changed(r)) rows.push_back(&r);
  // The top growers and the top shrinkers (the rows are sorted by growth).
  std::vector<const analysis::TypeSeries*> shown;
  if (o.all || rows.size() <= 2 * o.top) {
    shown = rows;
  } else {
    shown.assign(rows.begin(), rows.begin() + o.top);
    shown.insert(shown.end(), rows.end() - o.top, rows.end());
  }

  if (o.json) {
    nlohmann::json snaps = nlohmann::json::array();
    for (size_t i = 0; i < sums.size(); ++i)
      snaps.push_back({{"file", o.files[i]}, {"totals", TotalsJson(sums[i].totals)}});
    nlohmann::json types = nlohmann::json::array();
    for (const auto* r : shown) {
      nlohmann::json per = nlohmann::json::array();
      for (size_t i = 0; i < r->at.size(); ++i)
        per.push_back(r->present[i] ? nlohmann::json{{"count", r->at[i].count},
                                                     {"shallow_bytes", r->at[i].shallow_bytes},
                                                     {"retained_bytes", r->at[i].retained_bytes}}
                                    : nlohmann::json());
      types.push_back({{"type", r->name},
                       {"snapshots", per},
                       {"count_delta", r->count_delta},
                       {"shallow_delta", r->shallow_delta},
                       {"retained_delta", r->retained_delta},
                       {"new", r->is_new},
                       {"vanished", r->vanished},
                       {"grows_steadily", r->grows_steadily}});
    }
    PrintJson({{"snapshots", snaps},
               {"changed_types", rows.size()},
               {"types", types},
               {"growth_suspects", SuspectsJson(last->a, sus)},
               {"warnings", d.warnings}});
    return kExitOk;
  }

  using A = TextTable::Align;
  TextTable snaps({{"#", A::kRight},
                   {"file", A::kLeft},
                   {"objects", A::kRight},
                   {"reachable", A::kRight},
                   {"types", A::kRight}});
  for (size_t i = 0; i < sums.size(); ++i)
    snaps.AddRow({std::to_string(i + 1), o.files[i], FormatCount(sums[i].totals.objects),
                  FormatBytes(sums[i].totals.reachable_bytes), FormatCount(sums[i].totals.types)});
  std::printf("Snapshots\n");
  snaps.Print(stdout, 2);
  const auto& first = sums.front().totals;
  const auto& lastt = sums.back().totals;
  std::printf(
      "  change: %s objects, %s reachable\n",
      Signed(int64_t(lastt.objects) - int64_t(first.objects), false).c_str(),
      Signed(int64_t(lastt.reachable_bytes) - int64_t(first.reachable_bytes), true).c_str());

  std::printf("\nTypes by growth (first -> last; %s of %s types changed)\n",
              FormatCount(rows.size()).c_str(), FormatCount(d.rows.size()).c_str());
  TextTable t({{"type", A::kLeft},
               {"count", A::kRight},
               {"d count", A::kRight},
               {"d shallow", A::kRight},
               {"d retained", A::kRight},
               {"retained now", A::kRight},
               {"note", A::kLeft}});
  for (const auto* r : shown) {
    std::string note = r->is_new ? "new" : r->vanished ? "vanished" : "";
    if (r->grows_steadily && sums.size() > 2) note += note.empty() ? "grows every time" : ", grows";
    t.AddRow({r->name, Series(*r), Signed(r->count_delta, false), Signed(r->shallow_delta, true),
              Signed(r->retained_delta, true), FormatBytes(r->at.back().retained_bytes), note});
  }
  if (t.rows())
    t.Print(stdout, 2);
  else
    std::printf("  no type changed\n");
  if (shown.size() < rows.size())
    std::printf("  ... %s more in between (--all lists every type)\n",
                FormatCount(rows.size() - shown.size()).c_str());

  std::printf("\nGrowing types (count never drops, ends higher), held in the last snapshot by\n");
  PrintSuspects(last->a, sus);
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  cmd.add_option("files", o->files, "Two or more snapshot files, oldest first")
      ->required()
      ->expected(2, 1 << 20);
  cmd.add_option("--top", o->top, "Types to list at each end of the growth order")
      ->default_val(20)
      ->check(CLI::PositiveNumber);
  cmd.add_flag("--all", o->all, "List every type, changed or not");
  AddInputOptions(cmd, o->in);
  AddJsonFlag(cmd, o->json);
  return [o] { return Run(*o); };
}

VerbRegistration reg{"diff", "Compare snapshots of one application by type: counts, sizes, growth",
                     Setup};

}  // namespace verb_diff
}  // namespace xrpm::cli
