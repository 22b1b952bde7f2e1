// `xrpm show FILE OBJECT [--json]`: what one object contains — its type (and the type's
// traits: value type, enum of ..., array rank n of ..., has finalizer), size and retained size, its
// fields with their values or the objects they reference, a string's text or an array's length, and
// the objects that reference it with the field that holds it.
#include "shared/analysis.h"
#include "shared/fields.h"
#include "shared/verb.h"
#include "xrpm/analysis/object_contents.h"
#include "xrpm/app/analysis_json.h"

namespace xrpm::cli {
namespace verb_show {

struct Opts : FileVerbOptions {
  std::string object;
};

nlohmann::json FieldJson(const analysis::FieldRow& f) {
  nlohmann::json j{{"name", f.name}, {"type", f.type}};
  if (f.kind != FieldKind::kReference) {
    j["value"] = ValueJson(f.value);
    return j;
  }
  j["ref"] = f.value.kind == FieldValue::Kind::kRef ? nlohmann::json(FormatHexDigits(f.value.ref))
                                                    : nullptr;
  if (f.text) j["text"] = std::string(f.text->text);
  return j;
}

int Run(const Opts& o) {
  auto f = AnalyzeForCli(o.file, o.in);
  const analysis::HeapAnalysis& a = f->a;
  const Snapshot& s = *a.snapshot;
  const uint32_t v = FindObjectForCli(a.index, o.object, "OBJECT", f->loaded.path);
  const analysis::ObjectContents c = analysis::DescribeContents(a.index, v);
  if (o.json) {
    nlohmann::json j = ObjectJson(a, v);
    j["type_traits"] = app::TypeTraitsJson(s.types[s.object_type[v]]);
    nlohmann::json fields = nlohmann::json::array();
    for (const analysis::FieldRow& r : c.fields) fields.push_back(FieldJson(r));
    j["fields"] = fields;
    if (c.text) {
      j["text"] = std::string(c.text->text);
      j["length"] = c.text->full_length;
      j["cut"] = c.text->cut;
    } else if (c.length) {
      j["length"] = *c.length;
    }
    nlohmann::json statics = nlohmann::json::array();
    for (const StaticFieldLayout& st : c.statics)
      statics.push_back({{"name", st.name}, {"type", st.type_name}});
    if (!c.statics.empty()) j["statics"] = statics;
    nlohmann::json refs = nlohmann::json::array();
    for (const analysis::Referrer& r : c.referrers)
      refs.push_back({{"id", FormatHexDigits(s.object_id[r.node])},
                      {"type", a.index.group_name(a.index.group_of(r.node))},
                      {"field", r.field.empty() ? nlohmann::json() : nlohmann::json(r.field)}});
    j["referrers"] = refs;
    j["file"] = f->loaded.path;
    PrintJson(j);
    return kExitOk;
  }
  std::printf("%s  %s, retains %s\n", ObjectLabel(a.index, v).c_str(),
              FormatBytes(s.object_size[v]).c_str(), FormatBytes(a.dom.retained(v)).c_str());
  const TypeInfo& type = s.types[s.object_type[v]];
  const std::string traits = DescribeTypeTraits(type.traits, type.has_finalizer);
  std::printf("type: %s\n",
              traits.empty() ? "traits not known (the file does not say)" : traits.c_str());
  if (c.text)
    std::printf("\ntext (%s characters%s): %s\n", FormatCount(c.text->full_length).c_str(),
                c.text->cut ? ", cut at the capture's cap" : "",
                ShortText(*c.text, 1u << 20).c_str());
  if (c.length) std::printf("\nlength: %s elements\n", FormatCount(*c.length).c_str());
  if (!c.has_layout && !c.text && !c.length)
    std::printf(
        "\nThe snapshot has no field layout for this type (captured without object "
        "contents, or read from a format that has none).\n");
  if (!c.fields.empty()) {
    std::printf("\nfields:\n");
    using A = TextTable::Align;
    TextTable t({{"name", A::kLeft}, {"type", A::kLeft}, {"value", A::kLeft}});
    for (const analysis::FieldRow& r : c.fields)
      t.AddRow({r.name, r.type, CellText(a.index, r.value)});
    t.Print(stdout, 2);
  }
  if (!c.statics.empty()) {
    std::printf("\nstatic fields of %s:\n", a.index.group_name(a.index.group_of(v)).c_str());
    for (const StaticFieldLayout& st : c.statics)
      std::printf("  %s  %s\n", st.name.c_str(), st.type_name.c_str());
  }
  std::printf("\nreferenced by %zu object(s):\n", c.referrers.size());
  for (const analysis::Referrer& r : c.referrers) {
    std::string label = ObjectLabel(a.index, r.node);
    if (!r.field.empty()) label += (r.field.front() == '[' ? " " : ".") + r.field;
    std::printf("  %s\n", label.c_str());
  }
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  cmd.add_option("object", o->object, "Object id (hex, as in the dump)")->required();
  return [o] { return Run(*o); };
}

VerbRegistration reg{"show", "What an object contains: fields and values, string text, referrers",
                     Setup};

}  // namespace verb_show
}  // namespace xrpm::cli
