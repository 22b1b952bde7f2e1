#include "xrpm/app/script.h"

#include "xrpm/analysis/allocation_diff.h"
#include "xrpm/analysis/inspections.h"
#include "xrpm/app/doc_origins.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace xrpm::app {
namespace {

// How each verb takes its arguments.
enum class Args {
  kNone,       // no argument
  kRest,       // exactly one, the rest of the line (paths and names may contain spaces)
  kOptRest,    // zero or one, the rest of the line
  kNumbers12,  // one or two unsigned numbers
  kNumbers13,  // one to three unsigned numbers
  kOptNumber,  // zero or one unsigned number
  kNumber,     // exactly one unsigned number
  kNumbers3,   // exactly three unsigned numbers
};

struct VerbSpec {
  ScriptVerb id;
  const char* name;
  Args args;
  const char* usage;
};

constexpr VerbSpec kVerbs[] = {
#define XRPM_SCRIPT_VERB_SPEC(e, name, args, usage) {ScriptVerb::e, name, Args::args, usage},
    XRPM_SCRIPT_VERBS(XRPM_SCRIPT_VERB_SPEC)
#undef XRPM_SCRIPT_VERB_SPEC
};

bool IsNumber(std::string_view s) {
  uint64_t v;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string ScriptStep::ToString() const {
  std::string s = "line " + std::to_string(line) + ": " + verb;
  for (const auto& a : args) s += " " + a;
  return s;
}

const std::vector<std::string>& ScriptViewNames() {
  static const std::vector<std::string> names = {
      "connection", "counters",  "timeline", "allocations", "summary", "inspections", "types",
      "instances",  "inspector", "roots",    "dominators",  "age",     "compare"};
  return names;
}

const std::vector<std::string>& ScriptDialogNames() {
  static const std::vector<std::string> names = {"none", "open",          "save",        "export",
                                                 "demo", "close-unsaved", "quit-unsaved"};
  return names;
}

std::optional<ScriptKey> ParseScriptKey(std::string_view name) {
  ScriptKey k;
  if (name.starts_with("ctrl+")) {
    k.ctrl = true;
    name.remove_prefix(5);
  }
  if (name == "enter") {
    k.key = ScriptKey::kEnter;
  } else if (name == "escape") {
    k.key = ScriptKey::kEscape;
  } else if (name.size() == 1 && name[0] >= 'a' && name[0] <= 'z') {
    k.key = name[0];
  } else {
    return std::nullopt;
  }
  return k;
}

std::vector<ScriptStep> ParseScript(std::string_view text, const std::string& name) {
  std::vector<ScriptStep> steps;
  uint64_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;

    size_t sp = line.find_first_of(" \t");
    std::string verb(line.substr(0, sp));
    std::string_view rest =
        sp == std::string_view::npos ? std::string_view{} : Trim(line.substr(sp));
    auto fail = [&](const std::string& msg, const char* code) -> std::vector<ScriptStep> {
      throw InputError(Diagnostic{name, line_no, code, msg});
    };
    const VerbSpec* spec = nullptr;
    for (const auto& v : kVerbs)
      if (verb == v.name) spec = &v;
    if (!spec) {
      std::string known;
      for (const auto& v : kVerbs) known += std::string(known.empty() ? "" : ", ") + v.name;
      fail("unknown step '" + verb + "'; expected one of: " + known, "unknown-step");
    }
    ScriptStep step{verb, {}, line_no, spec->id};
    const std::string usage = std::string("expected '") + spec->usage + "'";
    switch (spec->args) {
      case Args::kNone:
        if (!rest.empty())
          fail(usage + ", found extra text '" + std::string(rest) + "'", "bad-args");
        break;
      case Args::kRest:
        if (rest.empty()) fail(usage + ", found no argument", "bad-args");
        step.args.emplace_back(rest);
        break;
      case Args::kOptRest:
        if (!rest.empty()) step.args.emplace_back(rest);
        break;
      case Args::kNumbers12:
      case Args::kNumbers13:
      case Args::kNumbers3:
      case Args::kOptNumber:
      case Args::kNumber: {
        step.args = Words(rest);
        const size_t lo = spec->args == Args::kOptNumber  ? 0
                          : spec->args == Args::kNumbers3 ? 3
                                                          : 1;
        const size_t hi = spec->args == Args::kNumbers12                                    ? 2
                          : spec->args == Args::kNumbers13 || spec->args == Args::kNumbers3 ? 3
                                                                                            : 1;
        if (step.args.size() < lo || step.args.size() > hi)
          fail(usage + ", found " + std::to_string(step.args.size()) + " arguments", "bad-args");
        for (const auto& a : step.args)
          if (!IsNumber(a)) fail(usage + ", found '" + a + "' (not a number)", "bad-number");
        break;
      }
    }
    if (verb == "key" && !ParseScriptKey(step.args[0]))
      fail(usage + ", found '" + step.args[0] + "'", "bad-key");
    if (verb == "expect-dialog") {
      const auto& names = ScriptDialogNames();
      if (std::find(names.begin(), names.end(), step.args[0]) == names.end())
        fail(usage + ", found '" + step.args[0] + "'", "unknown-dialog");
    }
    if (verb == "view" || verb == "expect-view") {
      const auto& names = ScriptViewNames();
      if (std::find(names.begin(), names.end(), step.args[0]) == names.end()) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : "|") + n;
        fail("unknown view '" + step.args[0] + "'; expected " + known, "unknown-view");
      }
    }
    if (verb == "group-by" && !SiteGroupingFromName(step.args[0]))
      fail(usage + ", found '" + step.args[0] + "'", "bad-args");
    if (verb == "select-age" && step.args[0] != "largest" && step.args[0] != "oldest" &&
        !IsNumber(step.args[0]))
      fail(usage + ", found '" + step.args[0] + "'", "bad-args");
    if (verb == "select-finding") {
      const std::vector<std::string> w = Words(step.args[0]);
      const bool known =
          std::find(std::begin(analysis::kInspectionNames), std::end(analysis::kInspectionNames),
                    w[0]) != std::end(analysis::kInspectionNames);
      if (!known || w.size() > 2 || (w.size() == 2 && (!IsNumber(w[1]) || w[1] == "0")))
        fail(usage + ", found '" + step.args[0] + "'", "bad-args");
      step.args = w;
    }
    if (verb == "compare-allocations") {
      const std::vector<std::string> w = Words(step.args[0]);
      auto side = [](const std::string& a) { return a == "live" || (IsNumber(a) && a != "0"); };
      if (w.size() < 2 || w.size() > 3 || !side(w[0]) || !side(w[1]) ||
          (w.size() == 3 && !analysis::AllocSiteKindFromName(w[2])))
        fail(usage + ", found '" + step.args[0] + "'", "bad-args");
      step.args = w;
    }
    if (verb == "select-object" && step.args[0] != "first" && step.args[0] != "shown" &&
        !IsNumber(step.args[0]))
      fail(usage + ", found '" + step.args[0] + "'", "bad-args");
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<ScriptStep> ParseScriptFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(Diagnostic{path, 0, "cannot-open", "cannot open the script file"});
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseScript(buf.str(), path);
}

}  // namespace xrpm::app
