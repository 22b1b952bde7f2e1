// The monitor's look: a dark theme with readable spacing, and DejaVu Sans (when installed; else
// Dear ImGui's built-in font) with the punctuation, arrows and shapes the views use.
//
// Thread-safety: UI thread only; call after ImGui::CreateContext, before the first frame.
#pragma once

namespace xrpm::gui {

void ApplyStyleAndFonts(float font_size);

}  // namespace xrpm::gui
