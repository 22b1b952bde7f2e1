// The characters beyond ASCII that a snapshot's text needs drawn: type, field, static, enum and
// section names, root labels and origins, and string values. The monitor builds its font atlas
// from exactly these (plus a fixed base set), so a game's Japanese, Cyrillic or Greek string text
// shows as itself rather than as '?', without the tens of megabytes a full CJK atlas would take.
//
// Algorithm: one pass over the snapshot's names and string value bytes, decoding UTF-8
// (xrpm/model/utf16.h), into a 0x110000-bit set; O(text bytes + code points found). At most
// `limit` code points are kept (the smallest), which bounds the atlas.
//
// Thread-safety: a pure function; runs on the analysis worker (DocAnalysis::glyphs).
#pragma once

#include <cstddef>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::app {

// Sorted, distinct code points >= U+0080 in the snapshot's text, at most `limit` of them.
std::vector<char32_t> NonAsciiCodePoints(const Snapshot& s, size_t limit = 8192);

}  // namespace xrpm::app
