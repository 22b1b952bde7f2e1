// The monitor's look: a dark theme with readable spacing, and DejaVu Sans (when installed; else
// Dear ImGui's built-in font) with the punctuation, arrows and shapes the views use, Greek and
// Cyrillic, and Droid Sans Fallback merged in for the CJK characters the documents' text needs.
//
// Thread-safety: UI thread only; call after ImGui::CreateContext and outside a frame.
#pragma once

#include <span>

namespace xrpm::gui {

void ApplyStyleAndFonts(float font_size);
// (Re)builds the font atlas's glyph list: the base set plus `wanted` (sorted or not). The
// renderer's font texture must be made again afterwards (Platform::BeginFrame does).
void LoadFonts(float font_size, std::span<const char32_t> wanted);

}  // namespace xrpm::gui
