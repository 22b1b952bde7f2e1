// Small Dear ImGui helpers shared by the views: right-aligned numbers in table cells, muted and
// coloured text, help markers, a share bar, a progress line for background work.
//
// Thread-safety: UI thread only (Dear ImGui).
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>

#include "xrpm/app/worker.h"

namespace xrpm::gui {

inline const ImVec4 kMuted{0.60f, 0.62f, 0.66f, 1.f};
inline const ImVec4 kGood{0.45f, 0.80f, 0.45f, 1.f};
inline const ImVec4 kWarn{0.95f, 0.75f, 0.30f, 1.f};
inline const ImVec4 kBad{0.95f, 0.40f, 0.40f, 1.f};
inline const ImVec4 kAccent{0.45f, 0.70f, 1.00f, 1.f};

void TextRight(const std::string& s);  // right-aligned in the current column
void TextMuted(const std::string& s);
void TextColored(const ImVec4& c, const std::string& s);
void HelpMarker(const char* text);  // "(?)" with a tooltip
// "N." in the warning colour, then `text` wrapped to the window: one entry of a suspect list.
void NumberedWrapped(size_t number, const std::string& text);
// A horizontal bar filled to `fraction` with `label` on it, as wide as the column.
void ShareBar(float fraction, const std::string& label);
// One line: label, phase, a progress bar (indeterminate when total == 0), elapsed time, and a
// Cancel button. Returns true when Cancel was pressed.
bool WorkProgress(const app::TaskStatus& st);
// A section title in the sidebar.
void SectionTitle(const char* text);

}  // namespace xrpm::gui
