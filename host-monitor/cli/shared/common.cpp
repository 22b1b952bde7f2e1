#include "shared/common.h"

#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>

#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/human_format.h"

namespace xrpm::cli {

void AddInputOptions(CLI::App& cmd, InputOptions& o) {
  cmd.add_flag("--strict", o.strict,
               "Fail on the first problem in the input instead of loading what is valid");
  cmd.add_option("--from", o.from, "Input format; default: detect from content or extension")
      ->check(FormatValidator(true));
  cmd.add_option("--max-diagnostics", o.max_diagnostics, "Print at most N input problems on stderr")
      ->default_val(10);
  cmd.add_option("--threads", o.threads, "Parser threads (0: one per core)")->default_val(0);
}

CLI::Validator FormatValidator(bool for_reading) {
  std::vector<std::string> names;
  for (const formats::FormatInfo& f : formats::Formats())
    if (for_reading ? f.can_read : f.can_write) names.push_back(f.name);
  return CLI::IsMember(names, CLI::ignore_case);
}

void AddJsonFlag(CLI::App& cmd, bool& json) {
  cmd.add_flag("--json", json, "Print machine-readable JSON on stdout");
}

void AddFileOptions(CLI::App& cmd, FileVerbOptions& o) {
  cmd.add_option("file", o.file, "Snapshot file (.gclog or any supported format)")->required();
  AddInputOptions(cmd, o.in);
  AddJsonFlag(cmd, o.json);
}

LoadedSnapshot LoadForCli(const std::string& path, const InputOptions& o) {
  LoadedSnapshot s;
  s.path = path;
  s.diags = Diagnostics(o.strict);
  if (!o.from.empty()) {
    s.format = o.from;
  } else if (const formats::FormatInfo* f = formats::FormatForPath(path, true)) {
    s.format = f->name;
  }
  formats::ReadOptions ro;
  ro.strict = o.strict;
  ro.threads = o.threads;
  try {
    s.snap = formats::LoadSnapshot(path, s.diags, ro, o.from);
  } catch (...) {
    PrintDiagnostics(s.diags, o.max_diagnostics);
    throw;
  }
  PrintDiagnostics(s.diags, o.max_diagnostics);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) s.file_bytes = static_cast<uint64_t>(st.st_size);
  return s;
}

void PrintDiagnostics(const Diagnostics& d, size_t limit, std::FILE* out) {
  if (d.empty()) return;
  size_t shown = 0;
  for (const Diagnostic& x : d.kept()) {
    if (shown == limit) break;
    std::fprintf(out, "%s\n", x.ToString().c_str());
    ++shown;
  }
  if (d.total() > shown) {
    std::string by;
    for (const auto& [code, n] : d.counts())
      by += (by.empty() ? "" : ", ") + code + " " + FormatCount(n);
    std::fprintf(out, "... %s more problem(s) not shown (%s in all: %s)\n",
                 FormatCount(d.total() - shown).c_str(), FormatCount(d.total()).c_str(),
                 by.c_str());
  }
}

nlohmann::json DiagnosticsJson(const Diagnostics& d) {
  nlohmann::json items = nlohmann::json::array();
  for (const Diagnostic& x : d.kept())
    items.push_back({{"file", x.file}, {"line", x.line}, {"code", x.code}, {"message", x.message}});
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [code, n] : d.counts()) by[code] = n;
  return {{"total", d.total()}, {"dropped", d.dropped()}, {"by_code", by}, {"items", items}};
}

void PrintJson(const nlohmann::json& j) {
  std::string s = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

std::string Percent(double part, double whole) {
  return FormatPercent(whole > 0 ? part / whole : 0.0);
}

namespace {
// Display width of UTF-8 text (code points; good enough for type names and numbers).
size_t Width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}
}  // namespace

void TextTable::Print(std::FILE* out, int indent) const {
  std::vector<size_t> w(cols_.size(), 0);
  for (size_t c = 0; c < cols_.size(); ++c) w[c] = Width(cols_[c].title);
  for (const auto& r : rows_)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], Width(r[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s(static_cast<size_t>(std::max(indent, 0)), ' ');
    for (size_t c = 0; c < cols_.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(w[c] - std::min(w[c], Width(cell)), ' ');
      const bool last = c + 1 == cols_.size();
      if (cols_[c].align == Align::kRight)
        s += pad + cell;
      else
        s += last ? cell : cell + pad;
      if (!last) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    std::fprintf(out, "%s\n", s.c_str());
  };
  std::vector<std::string> titles;
  bool any_title = false;
  for (const Column& c : cols_) {
    titles.push_back(c.title);
    any_title |= !c.title.empty();
  }
  if (any_title) line(titles);
  for (const auto& r : rows_) line(r);
}

SectionFigures Figures(const Snapshot& s, const AppDomainSection& sec) {
  SectionFigures f;
  f.objects = sec.objects_end - sec.objects_begin;
  f.roots = sec.roots_end - sec.roots_begin;
  f.refs = sec.objects_end > sec.objects_begin
               ? s.ref_end[sec.objects_end - 1] - s.ref_begin(sec.objects_begin)
               : 0;
  for (uint64_t i = sec.objects_begin; i < sec.objects_end; ++i) f.bytes += s.object_size[i];
  f.types = sec.types_end - sec.types_begin;
  for (uint32_t t = sec.types_begin; t < sec.types_end; ++t)
    f.placeholders += s.types[t].placeholder;
  return f;
}

nlohmann::json DomainTotalsJson(const Snapshot& s) {
  nlohmann::json a = nlohmann::json::array();
  for (const AppDomainSection& sec : s.sections) {
    const SectionFigures f = Figures(s, sec);
    a.push_back({{"name", sec.name},
                 {"objects", f.objects},
                 {"bytes", f.bytes},
                 {"roots", f.roots},
                 {"types", f.types}});
  }
  return a;
}

void PrintDomainTotals(const Snapshot& s, std::FILE* out) {
  if (s.sections.size() < 2) return;
  using A = TextTable::Align;
  TextTable t({{"appdomain", A::kLeft},
               {"objects", A::kRight},
               {"size", A::kRight},
               {"roots", A::kRight},
               {"types", A::kRight}});
  for (const AppDomainSection& sec : s.sections) {
    const SectionFigures f = Figures(s, sec);
    t.AddRow({sec.name.empty() ? "(unnamed)" : sec.name, FormatCount(f.objects),
              FormatBytes(f.bytes), FormatCount(f.roots), FormatCount(f.types)});
  }
  std::fprintf(out, "\nAppDomains: %zu\n", s.sections.size());
  t.Print(out, 2);
}

}  // namespace xrpm::cli
