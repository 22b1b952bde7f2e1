#include "shared/analysis.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "xrpm/analysis/index_budget.h"
#include "xrpm/model/type_name.h"

namespace xrpm::cli {

using analysis::GraphIndex;
using analysis::HeapAnalysis;

std::unique_ptr<AnalyzedFile> AnalyzeForCli(const std::string& path, const InputOptions& in,
                                            bool referrers) {
  auto f = std::make_unique<AnalyzedFile>();
  f->loaded = LoadForCli(path, in);
  f->a =
      HeapAnalysis::Run(f->loaded.snap, {.threads = in.threads, .index = {.reverse = referrers}});
  return f;
}

std::unique_ptr<AnalyzedFile> DominanceForCli(const std::string& path, const InputOptions& in,
                                              bool lean) {
  auto f = std::make_unique<AnalyzedFile>();
  f->loaded = LoadForCli(path, in);
  const Snapshot& s = f->loaded.snap;
  if (!lean) {
    const uint64_t available = AvailableMemoryBytes();
    if (!analysis::CsrsFit(s.object_count(), s.ref_count(), 1,
                           analysis::DominatorTree::kWorkBytesPerObject, available)) {
      lean = true;
      std::fprintf(stderr,
                   "xrpm: %s objects and %s references: a copy of the references would not fit "
                   "in the %s of memory available; the dominators resolve each reference as "
                   "they go instead (slower)\n",
                   FormatCount(s.object_count()).c_str(), FormatCount(s.ref_count()).c_str(),
                   FormatBytes(available).c_str());
    }
  }
  f->a = HeapAnalysis::Run(s, {.threads = in.threads,
                               .index = {.reverse = false, .forward = !lean, .instances = false}});
  return f;
}

std::unique_ptr<IndexedFile> IndexForCli(const std::string& path, const InputOptions& in) {
  auto f = std::make_unique<IndexedFile>();
  f->loaded = LoadForCli(path, in);
  f->index = GraphIndex::Build(
      f->loaded.snap,
      {.threads = in.threads, .reverse = false, .forward = false, .instances = false});
  return f;
}

std::optional<ObjectId> ParseObjectId(const std::string& text) {
  std::string_view s = text;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  ObjectId v = 0;
  for (char c : s) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | ObjectId(d);
  }
  return v;
}

uint32_t FindObjectForCli(const GraphIndex& g, const std::string& text, const std::string& what,
                          const std::string& file) {
  const std::optional<ObjectId> id = ParseObjectId(text);
  if (!id)
    throw InputError(Diagnostic{
        what, 0, "bad-number", "expected an object id in hex (like 1ce056), found '" + text + "'"});
  const uint32_t v = g.Find(*id);
  if (v == kNoIndex)
    throw InputError(Diagnostic{file, 0, "unknown-object",
                                "no object with id " + FormatHexDigits(*id) + " in the snapshot"});
  return v;
}

std::string ObjectLabel(const GraphIndex& g, uint32_t v) {
  return g.group_name(g.group_of(v)) + "@" + FormatHexDigits(g.snapshot().object_id[v]);
}

nlohmann::json ObjectJson(const HeapAnalysis& a, uint32_t v) {
  const Snapshot& s = *a.snapshot;
  return {{"id", FormatHexDigits(s.object_id[v])},
          {"type", a.index.group_name(a.index.group_of(v))},
          {"size", s.object_size[v]},
          {"retained", a.dom.retained(v)}};
}

nlohmann::json RootJson(const analysis::RootDescription& r) {
  nlohmann::json j{{"record", r.record},
                   {"kind", std::string(RootKindName(r.kind))},
                   {"descriptor", static_cast<int>(r.kind)},
                   {"flags", r.flags},
                   {"flags_text", RootFlagsName(r.flags)}};
  if (!r.container.empty()) j["container"] = r.container;
  if (!r.origin.empty()) j["origin"] = r.origin;
  if (!r.label.empty()) j["label"] = r.label;
  return j;
}

nlohmann::json TotalsJson(const analysis::HeapTotals& t) {
  return {{"objects", t.objects},
          {"references", t.references},
          {"types", t.types},
          {"bytes", t.total_bytes},
          {"reachable_objects", t.reachable_objects},
          {"reachable_bytes", t.reachable_bytes},
          {"unreachable_objects", t.unreachable_objects},
          {"unreachable_bytes", t.unreachable_bytes},
          {"root_records", t.root_records},
          {"strong_root_objects", t.strong_root_objects},
          {"weak_only_root_objects", t.weak_only_root_objects},
          {"dangling_references", t.dangling_refs},
          {"dangling_roots", t.dangling_roots},
          {"duplicate_ids", t.duplicate_ids}};
}

namespace {
// The field of hop i's holder (hop i + 1) that holds it; for the root-held hop the root's label.
std::string HopField(const HeapAnalysis& a, const analysis::RootPath& p, size_t i) {
  if (i + 1 < p.nodes.size()) return analysis::HoldingField(a.index, p.nodes[i + 1], p.nodes[i]);
  return p.found() ? std::string(a.snapshot->fields.label_of_root(p.root_record)) : std::string();
}
}  // namespace

void PrintPath(const HeapAnalysis& a, const analysis::RootPath& p, int indent) {
  const Snapshot& s = *a.snapshot;
  if (p.found() && p.nodes.size() > 1 && s.fields.has_slots())
    std::printf("%*s%s\n", indent, "", analysis::RootPathText(a.index, p, " -> ").c_str());
  using A = TextTable::Align;
  TextTable t({{"", A::kLeft}, {"", A::kLeft}, {"", A::kRight}, {"", A::kRight}});
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const uint32_t v = p.nodes[i];
    std::string label = ObjectLabel(a.index, v);
    // A holder names the field that holds the hop before it: "List@1100._items".
    const std::string field = i > 0 ? analysis::HoldingField(a.index, v, p.nodes[i - 1]) : "";
    if (!field.empty()) label += (field.front() == '[' ? " " : ".") + field;
    t.AddRow({i == 0 ? "" : "<-", label, FormatBytes(s.object_size[v]),
              "retains " + FormatBytes(a.dom.retained(v))});
  }
  t.Print(stdout, indent);
  if (p.found())
    std::printf("%*s<- root: %s\n", indent, "",
                analysis::RootLabel(analysis::DescribeRoot(a.index, p.root_record)).c_str());
}

nlohmann::json PathJson(const HeapAnalysis& a, const analysis::RootPath& p) {
  nlohmann::json hops = nlohmann::json::array();
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    nlohmann::json hop = ObjectJson(a, p.nodes[i]);
    const std::string field = HopField(a, p, i);
    hop["field"] = field.empty() ? nlohmann::json() : nlohmann::json(field);
    hops.push_back(std::move(hop));
  }
  nlohmann::json j{{"found", p.found()}, {"hops", hops}};
  j["root"] =
      p.found() ? RootJson(analysis::DescribeRoot(a.index, p.root_record)) : nlohmann::json();
  return j;
}

std::string MergedPathText(const GraphIndex& g, const analysis::MergedPath& p) {
  return analysis::MergedPathLabel(g, p, " -> ");
}

void PrintMergedPaths(const HeapAnalysis& a, const analysis::MergedPaths& m, int indent) {
  using A = TextTable::Align;
  TextTable t({{"instances", A::kRight},
               {"shallow", A::kRight},
               {"retained", A::kRight},
               {"path (root -> ... -> instance; + = a run of that type)", A::kLeft}});
  for (const auto& p : m.paths)
    t.AddRow({FormatCount(p.count), FormatBytes(p.shallow_bytes), FormatBytes(p.retained_bytes),
              MergedPathText(a.index, p)});
  if (t.rows()) t.Print(stdout, indent);
  if (m.other_paths)
    std::printf("%*s... %s more instances on %s other paths\n", indent, "",
                FormatCount(m.other_instances).c_str(), FormatCount(m.other_paths).c_str());
  if (m.unreachable)
    std::printf("%*s%s instances are not reachable from a strong root\n", indent, "",
                FormatCount(m.unreachable).c_str());
}

nlohmann::json MergedPathsJson(const HeapAnalysis& a, const analysis::MergedPaths& m) {
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& p : m.paths) {
    nlohmann::json steps = nlohmann::json::array();
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const auto& st = p.steps[k];
      // "field": what holds this step — the previous step's field ("[]": an array element), the
      // root's label for the first step; null when unknown.
      const std::string& field = k == 0 ? p.root_label : st.field;
      steps.push_back({{"type", a.index.group_name(st.group)},
                       {"repeated", st.repeated},
                       {"field", field.empty() ? nlohmann::json() : nlohmann::json(field)}});
    }
    nlohmann::json root{{"kind", std::string(RootKindName(p.root_kind))}};
    if (p.root_container != kNoIndex) root["container"] = a.snapshot->types[p.root_container].name;
    if (!p.root_label.empty()) root["label"] = p.root_label;
    if (p.root_conservative) root["conservative"] = true;
    paths.push_back({{"root", root},
                     {"steps", steps},
                     {"instances", p.count},
                     {"shallow_bytes", p.shallow_bytes},
                     {"retained_bytes", p.retained_bytes},
                     {"example", ObjectJson(a, p.example)}});
  }
  return {{"instances", m.instances},
          {"unreachable", m.unreachable},
          {"paths", paths},
          {"other_paths", m.other_paths},
          {"other_instances", m.other_instances}};
}

namespace {
const char* KindName(analysis::Suspect::Kind k) {
  switch (k) {
    case analysis::Suspect::Kind::kObject:
      return "object";
    case analysis::Suspect::Kind::kType:
      return "type";
    case analysis::Suspect::Kind::kGrowingType:
      return "growing-type";
  }
  return "?";
}
}  // namespace

void PrintSuspects(const HeapAnalysis& a, const std::vector<analysis::Suspect>& sus) {
  if (sus.empty()) {
    std::printf("  none\n");
    return;
  }
  for (size_t i = 0; i < sus.size(); ++i) {
    const auto& s = sus[i];
    std::printf("  %zu. [%s] %s\n", i + 1, KindName(s.kind), s.reason.c_str());
    if (s.kind == analysis::Suspect::Kind::kObject) {
      std::printf("     path to root:\n");
      PrintPath(a, s.path, 7);
    } else {
      std::printf("     held by:\n");
      PrintMergedPaths(a, s.holders, 7);
    }
  }
}

nlohmann::json SuspectsJson(const HeapAnalysis& a, const std::vector<analysis::Suspect>& sus) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& s : sus) {
    nlohmann::json j{{"kind", KindName(s.kind)}, {"type", a.index.group_name(s.group)},
                     {"count", s.count},         {"retained_bytes", s.retained_bytes},
                     {"share", s.share},         {"reason", s.reason}};
    if (s.kind == analysis::Suspect::Kind::kObject) {
      j["object"] = ObjectJson(a, s.node);
      j["path"] = PathJson(a, s.path);
      if (s.top_child_group != kNoIndex)
        j["most_retained_in"] = {{"type", a.index.group_name(s.top_child_group)},
                                 {"count", s.top_child_count},
                                 {"retained_bytes", s.top_child_bytes}};
    } else {
      j["holders"] = MergedPathsJson(a, s.holders);
    }
    if (s.kind == analysis::Suspect::Kind::kGrowingType)
      j["growth"] = {{"count", s.count_growth},
                     {"shallow_bytes", s.shallow_growth},
                     {"retained_bytes", s.retained_growth}};
    arr.push_back(std::move(j));
  }
  return arr;
}

uint32_t FindTypeForCli(const GraphIndex& g, const std::string& name, const std::string& file) {
  if (uint32_t grp = g.FindGroup(name); grp != kNoIndex) return grp;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string want = lower(CanonicalTypeName(name));
  std::vector<uint32_t> exact_ci, suffix, contains;
  for (uint32_t grp = 0; grp < g.group_count(); ++grp) {
    const std::string have = lower(g.group_name(grp));
    if (have == want) exact_ci.push_back(grp);
    if (have.size() > want.size() && have.ends_with("." + want)) suffix.push_back(grp);
    if (have.find(want) != std::string::npos) contains.push_back(grp);
  }
  for (const auto* c : {&exact_ci, &suffix, &contains})
    if (c->size() == 1) return c->front();
  const auto& cands = !exact_ci.empty() ? exact_ci : !suffix.empty() ? suffix : contains;
  std::string msg;
  if (cands.empty()) {
    msg = "no type named '" + name + "'";
  } else {
    msg = "type name '" + name + "' is ambiguous; candidates:";
    for (size_t i = 0; i < cands.size() && i < 10; ++i) msg += " '" + g.group_name(cands[i]) + "'";
    if (cands.size() > 10) msg += " ... (" + std::to_string(cands.size()) + " in all)";
  }
  throw InputError(Diagnostic{file, 0, "unknown-type", msg});
}

}  // namespace xrpm::cli
