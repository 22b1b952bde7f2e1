// `xrpm leaks A B C`: the three-capture leak filter (analysis/leak_filter.h). The objects of C
// allocated after A was captured and no later than B, still held in C, by type and allocation
// site, largest first, each with the merged path that holds most of the group.
#include "shared/analysis.h"
#include "shared/origins.h"
#include "shared/verb.h"
#include "xrpm/analysis/leak_filter.h"
#include "xrpm/analysis/site_stats.h"

namespace xrpm::cli {
namespace verb_leaks {

struct Opts {
  std::string a, b, c;
  InputOptions in;
  bool json = false;
  size_t top = 25;
  size_t max_paths = 3;
  size_t site_depth = 3;
};

nlohmann::json GroupJson(const analysis::GraphIndex& g, const analysis::LeakGroup& lg,
                         bool sampled) {
  const Snapshot& c = g.snapshot();
  nlohmann::json paths = nlohmann::json::array();
  for (const analysis::MergedPath& p : lg.paths.paths)
    paths.push_back({{"path", MergedPathText(g, p)},
                     {"count", p.count},
                     {"bytes", p.shallow_bytes},
                     {"example", FormatHexDigits(c.object_id[p.example])}});
  nlohmann::json j = {
      {"type", lg.type},
      {"site", nlohmann::json(analysis::SiteMethods(c, lg.site))},
      {"count", lg.count},
      {"bytes", lg.bytes},
      {"path", lg.paths.paths.empty() ? nlohmann::json(nullptr)
                                      : nlohmann::json(MergedPathText(g, lg.paths.paths[0]))},
      {"site_label", SiteText(c, lg.site, 0)},
      {"paths", paths},
      {"other_paths", lg.paths.other_paths},
      {"other_path_objects", lg.paths.other_instances},
      {"example", FormatHexDigits(c.object_id[lg.objects.front()])}};
  if (sampled) {
    j["est_count"] = lg.est_count;
    j["est_bytes"] = lg.est_bytes;
  }
  return j;
}

int Run(const Opts& o) {
  const LoadedSnapshot a = LoadForCli(o.a, o.in), b = LoadForCli(o.b, o.in);
  LoadedSnapshot c = LoadForCli(o.c, o.in);
  const analysis::LeakNames names = {a.path, b.path, c.path};
  if (std::string why = analysis::CheckLeakCaptures(a.snap, b.snap, c.snap, names); !why.empty())
    throw InputError(Diagnostic{"", 0, "cannot-compare", why});
  const analysis::GraphIndex g = analysis::GraphIndex::Build(c.snap, {.threads = o.in.threads});
  const analysis::RootPathForest forest = analysis::RootPathForest::Build(g);
  const analysis::LeakReport r = analysis::FindLeaks(
      a.snap, b.snap, g, forest,
      {.max_paths = std::max<size_t>(o.max_paths, 1), .max_groups = o.top}, names);

  if (o.json) {
    nlohmann::json groups = nlohmann::json::array();
    for (const analysis::LeakGroup& lg : r.groups) groups.push_back(GroupJson(g, lg, r.sampled));
    PrintJson(
        {{"files", {{"a", a.path}, {"b", b.path}, {"c", c.path}}},
         {"window",
          {{"first_frame", r.window_first},
           {"end_frame", r.window_end},
           {"c_frame", r.c_frame},
           {"meaning",
            "objects of C allocated at frames first_frame <= f < end_frame (after A was "
            "captured, no later than B) that a strong root still holds in C"}}},
         {"sampled", r.sampled},
         {"sample_bytes", r.sample_bytes},
         {"counts", r.sampled ? "recorded (sampled) objects; est_* estimate all" : "every object"},
         {"groups", groups},
         {"count", r.count},
         {"bytes", r.bytes},
         {"other_groups", r.other_groups},
         {"unreachable", {{"count", r.unreachable_count}, {"bytes", r.unreachable_bytes}}},
         {"allocated_before_a", r.before_count},
         {"allocated_after_b", r.after_count},
         {"unknown_origin", r.unknown_count}});
    return kExitOk;
  }

  std::printf(
      "Objects of C allocated after A was captured and no later than B, still held in C\n"
      "  A %s (frame %s)\n  B %s (frame %s)\n  C %s (frame %s)\n",
      a.path.c_str(), FormatCount(r.window_first).c_str(), b.path.c_str(),
      FormatCount(r.window_end).c_str(), c.path.c_str(), FormatCount(r.c_frame).c_str());
  if (const std::string note = SampledNote(c.snap); !note.empty())
    std::printf("  %s\n", note.c_str());
  if (r.groups.empty()) {
    std::printf(
        "\nNothing allocated between A and B is still held in C: no leak in this "
        "window.\n");
  } else {
    std::printf("\n");
    using A = TextTable::Align;
    std::vector<TextTable::Column> cols = {
        {"#", A::kRight}, {"objects", A::kRight}, {"bytes", A::kRight}};
    if (r.sampled) cols.push_back({"est. bytes", A::kRight});
    cols.push_back({"type", A::kLeft});
    cols.push_back({"allocated at", A::kLeft});
    TextTable t(std::move(cols));
    for (size_t i = 0; i < r.groups.size(); ++i) {
      const analysis::LeakGroup& lg = r.groups[i];
      std::vector<std::string> row = {std::to_string(i + 1), FormatCount(lg.count),
                                      FormatBytes(lg.bytes)};
      if (r.sampled) row.push_back(FormatBytes(static_cast<uint64_t>(lg.est_bytes)));
      row.push_back(std::string(lg.type));
      row.push_back(SiteText(c.snap, lg.site, o.site_depth));
      t.AddRow(std::move(row));
      // What holds the group, under its site (the last column, so it widens nothing else).
      auto under = [&](std::string text) {
        std::vector<std::string> cells(r.sampled ? 5 : 4);
        cells.push_back("  " + std::move(text));
        t.AddRow(std::move(cells));
      };
      for (const analysis::MergedPath& p : lg.paths.paths)
        under("held by " + MergedPathText(g, p) + "  (" + FormatCount(p.count) + ")");
      if (lg.paths.other_paths)
        under("and " + FormatCount(lg.paths.other_instances) + " on " +
              FormatCount(lg.paths.other_paths) + " other path(s)");
    }
    t.Print(stdout, 2);
  }
  std::printf("\n%s objects, %s in %s group(s)", FormatCount(r.count).c_str(),
              FormatBytes(r.bytes).c_str(), FormatCount(r.groups.size() + r.other_groups).c_str());
  if (r.other_groups)
    std::printf(" (%s not shown; --top 0 shows all)", FormatCount(r.other_groups).c_str());
  std::printf(".\n");
  if (r.unreachable_count)
    std::printf(
        "%s object(s), %s, allocated in the window are unreachable in C (garbage not "
        "collected yet): not counted.\n",
        FormatCount(r.unreachable_count).c_str(), FormatBytes(r.unreachable_bytes).c_str());
  if (r.unknown_count)
    std::printf("%s object(s) of C have no recorded origin: not considered.\n",
                FormatCount(r.unknown_count).c_str());
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  cmd.add_option("a", o->a, "Capture A (the window starts when A was captured)")->required();
  cmd.add_option("b", o->b, "Capture B (the window ends when B was captured)")->required();
  cmd.add_option("c", o->c, "Capture C (what is still alive)")->required();
  AddInputOptions(cmd, o->in);
  AddJsonFlag(cmd, o->json);
  cmd.add_option("--top", o->top, "Show the N largest groups (0: all)")->default_val(25);
  cmd.add_option("--paths", o->max_paths, "Merged paths per group")
      ->default_val(3)
      ->check(CLI::Range(1, 100));
  cmd.add_option("--site-depth", o->site_depth, "Methods of each site shown in the table")
      ->default_val(3)
      ->check(CLI::Range(1, 64));
  return [o] { return Run(*o); };
}

VerbRegistration reg{"leaks",
                     "Objects allocated between captures A and B still alive in C, by type and "
                     "allocation site, with what holds them",
                     Setup};

}  // namespace verb_leaks
}  // namespace xrpm::cli
