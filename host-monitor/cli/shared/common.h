// Shared helpers for `xrpm` verbs: loading a snapshot the same way everywhere (--strict,
// --from, diagnostics on stderr), JSON output, and human-friendly text (sizes, aligned tables).
//
// Typical verb:
//   InputOptions in;  AddInputOptions(cmd, in);  bool json = false;  AddJsonFlag(cmd, json);
//   LoadedSnapshot s = LoadForCli(file, in);   // prints diagnostics, throws InputError
//   if (json) PrintJson({...}); else { TextTable t({{"type", kLeft}, ...}); ...; t.Print(); }
//
// Thread-safety: none needed (the CLI is single-threaded apart from the readers' own threads).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "xrpm/model/diagnostics.h"
#include "xrpm/model/human_format.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::cli {

// One AppDomain section's totals (its ranges of the snapshot's columns).
struct SectionFigures {
  uint64_t objects = 0, refs = 0, roots = 0, bytes = 0;
  uint32_t types = 0, placeholders = 0;
};
SectionFigures Figures(const Snapshot& s, const AppDomainSection& sec);
// Per-AppDomain totals for verbs that show a whole heap: JSON (an array of {name, objects,
// bytes, roots, types}, one per section) and, when there are several sections, a text table
// ("AppDomains" heading; nothing for a single section).
nlohmann::json DomainTotalsJson(const Snapshot& s);
void PrintDomainTotals(const Snapshot& s, std::FILE* out = stdout);

// Options of every verb that reads snapshot files.
struct InputOptions {
  bool strict = false;          // --strict: fail on the first problem in the input
  std::string from;             // --from FORMAT: skip format detection
  size_t max_diagnostics = 10;  // --max-diagnostics N: how many to print on stderr
  unsigned threads = 0;         // --threads N: parser threads (0: all cores)
};
void AddInputOptions(CLI::App& cmd, InputOptions& o);

// Accepts the names of the formats that can be read (or written); for --from / --to.
CLI::Validator FormatValidator(bool for_reading);

// Adds --json (machine-readable output on stdout).
void AddJsonFlag(CLI::App& cmd, bool& json);

// What every verb over one snapshot file takes: the FILE argument, the input options and --json.
// A verb's own options struct derives from it.
struct FileVerbOptions {
  std::string file;
  InputOptions in;
  bool json = false;
};
void AddFileOptions(CLI::App& cmd, FileVerbOptions& o);

struct LoadedSnapshot {
  Snapshot snap;
  Diagnostics diags;
  std::string path;
  std::string format;       // the format name that was read
  uint64_t file_bytes = 0;  // size of the file on disk
};

// Loads `path` with `o`, then prints its diagnostics to stderr ("file:line: message [code]",
// at most o.max_diagnostics, then "... N more"). Throws InputError when the file cannot be
// read, or on the first problem with --strict.
LoadedSnapshot LoadForCli(const std::string& path, const InputOptions& o);

// Prints up to `limit` kept diagnostics and a summary of the rest to `out`.
void PrintDiagnostics(const Diagnostics& d, size_t limit, std::FILE* out = stderr);

// {"total": n, "dropped": n, "by_code": {code: n}, "items": [{file, line, code, message}]}
nlohmann::json DiagnosticsJson(const Diagnostics& d);

// Prints `j` on stdout, indented, with a final newline.
void PrintJson(const nlohmann::json& j);

// part / whole as xrpm::FormatPercent prints it ("12.5%"); "0.0%" when whole is 0.
std::string Percent(double part, double whole);

// A text table with aligned columns (right-aligned numbers, left-aligned text), no borders.
class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  explicit TextTable(std::vector<Column> columns) : cols_(std::move(columns)) {}
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  size_t rows() const { return rows_.size(); }
  // Prints the header (unless every title is empty) and rows, each line indented by `indent`
  // spaces.
  void Print(std::FILE* out = stdout, int indent = 0) const;

 private:
  std::vector<Column> cols_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace xrpm::cli
