// Pieces several snapshot views share: an object's label and a link that opens it in the
// Inspector, a root's label, and a path from a root down to an object.
//
// Thread-safety: UI thread only (Dear ImGui).
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/analysis/paths.h"
#include "xrpm/app/snapshot_doc.h"

namespace xrpm::gui {

class App;

// True when the document's analysis is ready; otherwise draws why not (the document's note,
// e.g. a failed analysis, or `waiting` while it runs) and returns false.
bool AnalysisReadyOrNote(const app::SnapshotDoc& doc, const char* waiting);
// "Game.Bubble 0x1ce056"; a string with captured text adds it, shortened:
// "System.String 0x1ce0a0  \"Bubble 42\"".
std::string ObjectLabel(const Snapshot& snap, uint32_t v);
// For the item drawn last: when v is a string with captured text, its full text as tooltip and
// a right click copies it to the clipboard.
void StringTextTooltip(const Snapshot& snap, uint32_t v);
// A selectable object label; a click selects it, a double click (or `open_on_click`) opens
// the Inspector. Returns true when clicked.
bool ObjectLink(App& app, app::SnapshotDoc& doc, uint32_t v, bool open_on_click = false);
// "static Game.Program", "handle (weak)", "local [thread 1 / Game1.Update]".
std::string RootText(const analysis::GraphIndex& g, uint32_t record);
// Draws "root → A → ._items B → object", each hop a link with the field of the previous hop
// holding it. Shows a note when no strong root reaches it.
void DrawRootPath(App& app, app::SnapshotDoc& doc, const analysis::RootPath& path);
// When the snapshot has no allocation origins, draws why (NoOriginsNote, wrapped) and returns
// false; true when it has them.
bool OriginsOrNote(const app::SnapshotDoc& doc);
// The "Group by" combo (type / allocation site / type and site) shared by Types, Instances and
// the Dominator tree; disabled, with the reason as tooltip, when the snapshot has no origins.
void GroupingCombo(app::SnapshotDoc& doc);
// One-line label of an allocation site (innermost methods first, "…" when deeper).
std::string SiteText(const Snapshot& snap, uint32_t site);
// Draws a merged path (root descriptor, then the types along it; "Type+" for runs).
std::string MergedPathText(const analysis::GraphIndex& g, const analysis::MergedPath& p);

}  // namespace xrpm::gui
