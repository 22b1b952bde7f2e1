// Shared pieces of the verbs that show allocation origins (`leaks`, `types --by-site`,
// `report --by-site`): refusing files without origins with one clear sentence, naming sites in
// text and JSON the same way, and the note printed for sampled (Mono) origins.
//
// Thread-safety: none needed (CLI).
#pragma once

#include <string>

#include "shared/common.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::cli {

// The sentence every verb prints for a file without allocation origins ("no allocation sites
// and ages in this file: ...").
std::string NoOriginsMessage();

// Throws InputError (exit 1, "FILE: <NoOriginsMessage> [no-origins]") unless the snapshot has
// origins.
void RequireOrigins(const LoadedSnapshot& l);

// Site label for tables: the innermost methods joined by " <- " (ASCII, so it survives any
// terminal), "(unknown)", "(no managed frame)".
std::string SiteText(const Snapshot& s, uint32_t site, size_t max_methods = 3);

// One line for sampled origins (Mono), "" when every object was recorded.
std::string SampledNote(const Snapshot& s);

}  // namespace xrpm::cli
