// `xrpm inspect FILE [SECOND] [--json] [--only NAME,...]`: the automatic inspections
// (duplicate strings, event-handler leaks, disposed-but-held, sparse collections, boxed values,
// finalizable); with two files, what is new or grew in the second.
#include <stdexcept>

#include "shared/analysis.h"
#include "shared/inspections.h"
#include "shared/verb.h"

namespace xrpm::cli {
namespace verb_inspect {

struct Opts : FileVerbOptions {
  std::string second;
  std::vector<std::string> only;
  std::vector<std::string> disposed_fields;
  size_t top = 10;
  analysis::InspectOptions io;
};

int Run(Opts& o) {  // NOLINT(runtime/references): fills o.io from the parsed options
  o.io.only = o.only;
  for (const std::string& f : o.disposed_fields) o.io.disposed_fields.push_back(f);
  auto f = IndexForCli(o.file, o.in);
  std::vector<analysis::Inspection> list;
  try {
    list = analysis::RunInspections(f->index, o.io);
  } catch (const std::invalid_argument& e) {
    throw InputError(Diagnostic{"--only", 0, "unknown-inspection", e.what()});
  }
  const Snapshot* shown = &f->loaded.snap;
  std::unique_ptr<IndexedFile> g;
  if (!o.second.empty()) {
    g = IndexForCli(o.second, o.in);
    list = analysis::DiffInspections(list, analysis::RunInspections(g->index, o.io));
    shown = &g->loaded.snap;
  }
  if (o.json) {
    nlohmann::json j = InspectionsJson(*shown, list);
    j["file"] = o.second.empty() ? f->loaded.path : g->loaded.path;
    if (!o.second.empty()) j["baseline"] = f->loaded.path;
    PrintJson(j);
    return kExitOk;
  }
  if (o.second.empty())
    std::printf("%s: inspections\n", f->loaded.path.c_str());
  else
    std::printf("%s: inspections, what is new or grew since %s\n", g->loaded.path.c_str(),
                f->loaded.path.c_str());
  PrintInspections(list, o.top);
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  cmd.add_option("second", o->second, "A later snapshot: show what is new or grew in it");
  cmd.add_option("--only", o->only, "Run only these inspections (comma-separated)")->delimiter(',');
  cmd.add_option("--top", o->top, "Findings shown per inspection (text)")
      ->default_val(10)
      ->check(CLI::PositiveNumber);
  cmd.add_option("--min-capacity", o->io.min_capacity,
                 "sparse-collections: smallest capacity considered")
      ->default_val(16);
  cmd.add_option("--sparse-ratio", o->io.sparse_ratio,
                 "sparse-collections: reported when count <= this share of the capacity")
      ->default_val(0.25)
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--min-copies", o->io.min_copies,
                 "duplicate-strings: copies of one text needed to report it")
      ->default_val(2)
      ->check(CLI::Range(2, 1 << 30));
  cmd.add_option("--disposed-field", o->disposed_fields,
                 "disposed-but-held: another Boolean field name meaning disposed (repeatable)");
  return [o] { return Run(*o); };
}

VerbRegistration reg{"inspect",
                     "Automatic inspections: duplicate strings, event-handler leaks, disposed "
                     "but held, sparse collections, boxed values, finalizable objects",
                     Setup};

}  // namespace verb_inspect
}  // namespace xrpm::cli
