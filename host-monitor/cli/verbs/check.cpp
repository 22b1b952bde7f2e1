// `xrpm check BUDGET.json INPUT... [--json]`: checks a memory budget (app/budget.h: the rules
// and their schema; app/budget_check.h: what each measures) against captures (any snapshot
// format) and recordings (.xrpm saved by `xrpm frames -o` / `xrpm allocations -o`), for a game's
// CI. Exit 0 when every rule holds; 1 with a table of the broken ones (or a bad INPUT); 2 for a
// bad budget ("budget.json:3: types[0].max_count: expected ...") or a rule with nothing to apply
// to. --json prints {"ok": bool, "rules": [{"rule", "input", "limit", "measured", "ok"}]}.
#include <cmath>
#include <cstdio>

#include "shared/common.h"
#include "shared/verb.h"
#include "xrpm/app/budget_check.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::cli {
namespace verb_check {

struct Opts {
  std::string budget;
  std::vector<std::string> inputs;
  InputOptions in;
  bool json = false;
};

// A loaded INPUT: a recording (.xrpm with recording parts) or a capture (anything else).
struct Loaded {
  std::string path;
  Snapshot capture;
  std::optional<formats::SavedRecording> recording;
};

Loaded Load(const std::string& path, const InputOptions& in) {
  Loaded l{path, {}, {}};
  std::string head(8, '\0');
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
  }
  if (formats::LooksLikeXrpm(head)) {
    formats::XrpmReadOptions o;
    o.wanted = formats::RecordingPartTags();
    o.threads = in.threads;
    formats::XrpmContents c = formats::ReadXrpmFile(path, o);
    if (formats::HasRecording(c))
      l.recording = formats::DecodeRecording(c, path);
    else
      l.capture = std::move(c.snapshot);  // read once, not again through LoadForCli
    return l;
  }
  l.capture = LoadForCli(path, in).snap;
  return l;
}

nlohmann::json Number(double v) {
  if (v >= 0 && v < 1e18 && v == std::floor(v)) return static_cast<uint64_t>(v);
  return v;
}
std::string NumberText(double v) {
  if (v >= 0 && v < 1e18 && v == std::floor(v)) return FormatCount(static_cast<uint64_t>(v));
  char b[48];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

int Run(const Opts& o) {
  app::Budget budget;
  try {
    budget = app::LoadBudget(o.budget);
  } catch (const InputError& e) {
    std::fprintf(stderr, "xrpm check: %s\n", e.what());
    return kExitUsage;
  }
  std::vector<Loaded> loaded;
  for (const std::string& p : o.inputs) loaded.push_back(Load(p, o.in));
  std::vector<app::BudgetInput> inputs;
  for (const Loaded& l : loaded)
    inputs.push_back(
        {l.path, l.recording ? nullptr : &l.capture, l.recording ? &l.recording->rec : nullptr});
  app::BudgetResult r;
  try {
    r = app::CheckBudget(budget, inputs, o.in.threads);
  } catch (const app::BudgetUsageError& e) {
    std::fprintf(stderr, "xrpm check: %s: %s\n", o.budget.c_str(), e.what());
    return kExitUsage;
  }
  if (o.json) {
    nlohmann::json rules = nlohmann::json::array();
    for (const app::RuleResult& x : r.rules)
      rules.push_back({{"rule", x.rule},
                       {"input", x.input},
                       {"limit", Number(x.limit)},
                       {"measured", x.measured ? Number(*x.measured) : nlohmann::json(nullptr)},
                       {"ok", x.ok}});
    PrintJson({{"ok", r.ok}, {"rules", rules}});
    return r.ok ? kExitOk : kExitBadInput;
  }
  size_t broken = 0;
  for (const app::RuleResult& x : r.rules) broken += !x.ok;
  if (r.ok) {
    std::printf("%s: all %zu checks hold over %zu input(s)\n", o.budget.c_str(), r.rules.size(),
                o.inputs.size());
    return kExitOk;
  }
  std::printf("%s: %zu of %zu checks broken\n", o.budget.c_str(), broken, r.rules.size());
  TextTable t({{"rule"},
               {"input"},
               {"limit", TextTable::Align::kRight},
               {"measured", TextTable::Align::kRight},
               {"line", TextTable::Align::kRight}});
  for (const app::RuleResult& x : r.rules)
    if (!x.ok)
      t.AddRow({x.rule, x.input, NumberText(x.limit), x.measured ? NumberText(*x.measured) : "none",
                std::to_string(x.line)});
  t.Print();
  return kExitBadInput;
}

VerbRegistration reg{
    "check",
    "Check a memory budget (BUDGET.json) against captures and recordings; exit 1 if broken",
    [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      cmd.add_option("budget", o->budget, "The budget: rules in JSON (docs/guide/budgets.md)")
          ->required();
      cmd.add_option("inputs", o->inputs,
                     "Captures (types, after_marker; leaks: three, in order) and recordings "
                     "(frames, tags)")
          ->required();
      AddInputOptions(cmd, o->in);
      AddJsonFlag(cmd, o->json);
      return [o] { return Run(*o); };
    }};

}  // namespace verb_check
}  // namespace xrpm::cli
