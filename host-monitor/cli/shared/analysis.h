// Shared pieces of the analysis verbs (`report`, `dominators`, `paths`, `diff`): loading and
// analysing a file, naming objects and roots, and printing / serialising paths the same way in
// every verb.
//
// Thread-safety: none needed (CLI, single-threaded apart from the engine's own workers).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "shared/common.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/analysis/suspects.h"

namespace xrpm::cli {

// A loaded file and its analysis (which points into the snapshot, hence one heap object).
struct AnalyzedFile {
  LoadedSnapshot loaded;
  analysis::HeapAnalysis a;
};

// Loads through LoadForCli (diagnostics on stderr; InputError on failure), then analyses.
// `referrers` false: the index without its reverse CSR (GraphIndex::In empty; 4 B per reference
// and per object less), for verbs that never list who holds an object nor search a path from
// one object towards the roots (PathFinder).
std::unique_ptr<AnalyzedFile> AnalyzeForCli(const std::string& path, const InputOptions& in,
                                            bool referrers = true);
// AnalyzeForCli for verbs that need only the dominator tree and the type statistics
// (`dominators`): an index without the reverse CSR and the instance lists, and without the
// forward CSR either (its resolver only: ~26 B/object beyond the snapshot instead of ~45, the
// dominators about twice as slow) when `lean`, or when that copy of the references and the
// dominators' work would not fit in the memory the machine has available (then it says so on
// stderr).
std::unique_ptr<AnalyzedFile> DominanceForCli(const std::string& path, const InputOptions& in,
                                              bool lean);

// A loaded file and a lean graph index (the id resolver, roots and types: no copy of the
// references either way, no instance lists, no dominator tree): for verbs that only walk
// forward from the roots (`inspect`, through GraphIndex::ForEachOut).
struct IndexedFile {
  LoadedSnapshot loaded;
  analysis::GraphIndex index;
};
std::unique_ptr<IndexedFile> IndexForCli(const std::string& path, const InputOptions& in);

// Parses an object id as the dumps write it: hex, with or without 0x. nullopt if malformed.
std::optional<ObjectId> ParseObjectId(const std::string& text);

// The node of the object whose id `text` names (hex); throws InputError "bad-number" naming
// `what` (the option or argument) when malformed, "unknown-object" when no object has it.
uint32_t FindObjectForCli(const analysis::GraphIndex& g, const std::string& text,
                          const std::string& what, const std::string& file);

// "Enemy@1ce056".
std::string ObjectLabel(const analysis::GraphIndex& g, uint32_t v);
// {"id": "1ce056", "type": "Enemy", "size": 32, "retained": 132}
nlohmann::json ObjectJson(const analysis::HeapAnalysis& a, uint32_t v);
nlohmann::json RootJson(const analysis::RootDescription& r);
nlohmann::json TotalsJson(const analysis::HeapTotals& t);

// One line per hop, object first, then the root: "  <- List@1ce011  24 B".
void PrintPath(const analysis::HeapAnalysis& a, const analysis::RootPath& p, int indent);
nlohmann::json PathJson(const analysis::HeapAnalysis& a, const analysis::RootPath& p);

// "static Game -> Game -> List -> Enemy[] -> Enemy+".
std::string MergedPathText(const analysis::GraphIndex& g, const analysis::MergedPath& p);
void PrintMergedPaths(const analysis::HeapAnalysis& a, const analysis::MergedPaths& m, int indent);
nlohmann::json MergedPathsJson(const analysis::HeapAnalysis& a, const analysis::MergedPaths& m);

// Suspects, numbered, each with its path or holders.
void PrintSuspects(const analysis::HeapAnalysis& a, const std::vector<analysis::Suspect>& s);
nlohmann::json SuspectsJson(const analysis::HeapAnalysis& a,
                            const std::vector<analysis::Suspect>& s);

// Finds a type group by name, in any form (canonical, another source's, or as the file wrote it:
// xrpm/model/type_name.h): exact, then case-insensitive, then a unique match of the last
// dotted component or substring of the canonical name. Throws InputError (listing candidates) when
// none or several.
uint32_t FindTypeForCli(const analysis::GraphIndex& g, const std::string& name,
                        const std::string& file);

}  // namespace xrpm::cli
