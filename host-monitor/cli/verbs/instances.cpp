// `xrpm instances FILE TYPE [--where FIELD=VALUE]... [--columns F1,F2] [--top N] [--json]`: the
// instances of a type with chosen field values, e.g. every Bubble whose IsAlive is
// false. Filters are ANDed; values compare as analysis/object_contents.h describes.
#include "shared/analysis.h"
#include "shared/fields.h"
#include "shared/verb.h"
#include "xrpm/analysis/object_contents.h"

namespace xrpm::cli {
namespace verb_instances {

struct Opts : FileVerbOptions {
  std::string type;
  std::vector<std::string> where;
  std::vector<std::string> columns;
  size_t top = 100;
};

int Run(const Opts& o) {
  LoadedSnapshot l = LoadForCli(o.file, o.in);
  const analysis::GraphIndex g = analysis::GraphIndex::Build(l.snap, {.threads = o.in.threads});
  const uint32_t grp = FindTypeForCli(g, o.type, l.path);
  std::vector<analysis::FieldFilter> where;
  for (const std::string& w : o.where) where.push_back(*analysis::ParseFieldFilter(w));
  const std::vector<std::string> known = analysis::GroupFieldNames(g, grp);
  std::vector<std::string> columns = o.columns.empty() ? known : o.columns;
  for (const std::string& c : columns)
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      std::string msg = "type " + g.group_name(grp) + " has no field '" + c + "'";
      if (known.empty()) {
        msg += " (the snapshot has no field layouts for it)";
      } else {
        msg += "; its fields:";
        for (const std::string& n : known) msg += " " + n;
      }
      throw InputError(Diagnostic{"--columns", 0, "unknown-field", msg});
    }
  analysis::InstanceList list;
  try {
    list = analysis::ListInstances(g, grp, where, o.top);
  } catch (const std::invalid_argument& e) {
    throw InputError(Diagnostic{"--where", 0, "unknown-field", e.what()});
  }
  const Snapshot& s = l.snap;
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const uint32_t v : list.rows) {
      nlohmann::json fields = nlohmann::json::object();
      for (const std::string& c : columns)
        fields[c] = CellJson(g, analysis::ReadFieldByName(s, v, c));
      rows.push_back({{"id", FormatHexDigits(s.object_id[v])},
                      {"size", s.object_size[v]},
                      {"fields", fields}});
    }
    PrintJson({{"file", l.path},
               {"type", g.group_name(grp)},
               {"instances", g.Instances(grp).size()},
               {"count", list.count},
               {"columns", columns},
               {"rows", rows}});
    return kExitOk;
  }
  std::printf("%s: %s of %s instances%s\n", g.group_name(grp).c_str(),
              FormatCount(list.count).c_str(), FormatCount(g.Instances(grp).size()).c_str(),
              where.empty() ? "" : " match");
  if (known.empty())
    std::printf("(the snapshot has no field layouts for this type: no field columns)\n");
  using A = TextTable::Align;
  std::vector<TextTable::Column> cols = {{"id", A::kLeft}, {"size", A::kRight}};
  for (const std::string& c : columns) cols.push_back({c, A::kLeft});
  TextTable t(cols);
  for (const uint32_t v : list.rows) {
    std::vector<std::string> row = {FormatHexDigits(s.object_id[v]), FormatBytes(s.object_size[v])};
    for (const std::string& c : columns)
      row.push_back(CellText(g, analysis::ReadFieldByName(s, v, c)));
    t.AddRow(std::move(row));
  }
  if (t.rows()) {
    std::printf("\n");
    t.Print(stdout, 2);
  }
  if (list.count > list.rows.size())
    std::printf("  ... %s more (--top N shows more)\n",
                FormatCount(list.count - list.rows.size()).c_str());
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  cmd.add_option("type", o->type, "Type name (exact, or a unique suffix such as 'Bubble')")
      ->required();
  cmd.add_option("--where", o->where,
                 "Keep instances whose FIELD equals VALUE (FIELD=VALUE; repeatable, all must "
                 "hold; a string field compares its text, an enum its name or number)")
      ->check([](const std::string& w) -> std::string {
        return analysis::ParseFieldFilter(w) ? "" : "expected FIELD=VALUE, found '" + w + "'";
      });
  cmd.add_option("--columns", o->columns, "Fields to show (default: all of the type's fields)")
      ->delimiter(',');
  cmd.add_option("--top", o->top, "Rows to list at most")->default_val(100);
  return [o] { return Run(*o); };
}

VerbRegistration reg{"instances",
                     "The instances of a type with chosen field values, filtered by field", Setup};

}  // namespace verb_instances
}  // namespace xrpm::cli
