// `xrpm paths FILE (--object ID | --type NAME)`: why is this alive? The shortest path from an
// object to a GC root (weak roots do not count), or for every instance of a type the few merged
// paths that hold most of them.
#include "shared/analysis.h"
#include "shared/verb.h"

namespace xrpm::cli {
namespace verb_paths {

struct Opts : FileVerbOptions {
  std::string object;
  std::string type;
  size_t max_paths = 10;
};

int RunObject(const Opts& o, const AnalyzedFile& f) {
  const analysis::HeapAnalysis& a = f.a;
  const uint32_t v = FindObjectForCli(a.index, o.object, "--object", f.loaded.path);
  analysis::PathFinder finder(a.index);
  const analysis::RootPath p = finder.ShortestPathToRoot(v);
  if (o.json) {
    PrintJson({{"file", f.loaded.path}, {"object", ObjectJson(a, v)}, {"path", PathJson(a, p)}});
    return kExitOk;
  }
  std::printf("%s retains %s\n\n", ObjectLabel(a.index, v).c_str(),
              FormatBytes(a.dom.retained(v)).c_str());
  if (!p.found()) {
    std::printf("No strong root reaches it: it is garbage or only weakly held.\n");
    return kExitOk;
  }
  if (p.nodes.size() == 1)
    std::printf("It is a root itself:\n");
  else
    std::printf("Shortest path to a root (%zu hops):\n", p.nodes.size() - 1);
  PrintPath(a, p, 2);
  return kExitOk;
}

int RunType(const Opts& o, const AnalyzedFile& f) {
  const analysis::HeapAnalysis& a = f.a;
  const uint32_t grp = FindTypeForCli(a.index, o.type, f.loaded.path);
  const analysis::RootPathForest forest = analysis::RootPathForest::Build(a.index);
  const analysis::MergedPaths m =
      analysis::MergeShortestPaths(a.index, forest, &a.dom, grp, o.max_paths);
  if (o.json) {
    PrintJson({{"file", f.loaded.path},
               {"type", a.index.group_name(grp)},
               {"retained_bytes", a.types[grp].retained_bytes},
               {"merged_paths", MergedPathsJson(a, m)}});
    return kExitOk;
  }
  std::printf("%s: %s instances, %s shallow, %s retained\n\nMerged shortest paths to roots:\n",
              a.index.group_name(grp).c_str(), FormatCount(m.instances).c_str(),
              FormatBytes(a.types[grp].shallow_bytes).c_str(),
              FormatBytes(a.types[grp].retained_bytes).c_str());
  PrintMergedPaths(a, m, 2);
  if (!m.paths.empty()) {
    std::printf("\nExample, the first instance on the top path:\n");
    PrintPath(a, forest.PathTo(m.paths[0].example), 2);
  }
  return kExitOk;
}

int Run(const Opts& o) {
  auto f = AnalyzeForCli(o.file, o.in);
  return o.object.empty() ? RunType(o, *f) : RunObject(o, *f);
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  auto* obj = cmd.add_option("--object", o->object, "Object id (hex, as in the dump)");
  auto* typ =
      cmd.add_option("--type", o->type, "Type name (exact, or a unique suffix such as 'Enemy')");
  obj->excludes(typ);
  typ->excludes(obj);
  cmd.add_option("--max-paths", o->max_paths, "Merged paths to list for --type")
      ->default_val(10)
      ->check(CLI::PositiveNumber);
  cmd.callback([obj, typ] {
    if (obj->count() == 0 && typ->count() == 0)
      throw CLI::RequiredError("one of --object or --type");
  });
  return [o] { return Run(*o); };
}

VerbRegistration reg{
    "paths", "Shortest paths from an object, or all instances of a type, to GC roots", Setup};

}  // namespace verb_paths
}  // namespace xrpm::cli
