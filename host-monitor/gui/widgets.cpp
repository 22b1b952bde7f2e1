#include "widgets.h"

#include <algorithm>
#include <cmath>

#include "xrpm/model/human_format.h"

namespace xrpm::gui {

void TextRight(const std::string& s) {
  const float w = ImGui::CalcTextSize(s.c_str()).x;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (avail > w) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
  ImGui::TextUnformatted(s.c_str());
}

void TextMuted(const std::string& s) {
  TextColored(kMuted, s);
}

void TextColored(const ImVec4& c, const std::string& s) {
  ImGui::PushStyleColor(ImGuiCol_Text, c);
  ImGui::TextUnformatted(s.c_str());
  ImGui::PopStyleColor();
}

void NumberedWrapped(size_t number, const std::string& text) {
  TextColored(kWarn, std::to_string(number) + ".");
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

void HelpMarker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void ShareBar(float fraction, const std::string& label) {
  fraction = std::clamp(fraction, 0.f, 1.f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = ImGui::GetTextLineHeight();
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), IM_COL32(255, 255, 255, 14), 2.f);
  if (fraction > 0)
    dl->AddRectFilled(p, ImVec2(p.x + std::max(2.f, w * fraction), p.y + h),
                      IM_COL32(70, 130, 200, 150), 2.f);
  const float tw = ImGui::CalcTextSize(label.c_str()).x;
  dl->AddText(ImVec2(p.x + w - tw - 4, p.y), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
  ImGui::Dummy(ImVec2(w, h));
}

bool WorkProgress(const app::TaskStatus& st) {
  ImGui::TextUnformatted(st.label.c_str());
  if (!st.phase.empty()) {
    ImGui::SameLine();
    TextMuted("— " + st.phase);
  }
  ImGui::SameLine();
  const float frac = st.fraction();
  std::string overlay = xrpm::FormatDuration(st.elapsed_s);
  if (frac >= 0) overlay = xrpm::FormatPercent(frac) + "  " + overlay;
  // Indeterminate: a sliding fill, so the user sees it is alive.
  const float shown = frac >= 0 ? frac : 0.5f + 0.5f * std::sin(float(ImGui::GetTime()) * 3.f);
  ImGui::ProgressBar(shown, ImVec2(220, 0), overlay.c_str());
  if (st.queued) {
    ImGui::SameLine();
    TextMuted("+" + std::to_string(st.queued) + " queued");
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(st.cancel_requested);
  const bool cancel = ImGui::SmallButton(st.cancel_requested ? "Cancelling..." : "Cancel");
  ImGui::EndDisabled();
  return cancel;
}

void SectionTitle(const char* text) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, kAccent);
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
  ImGui::Separator();
}

}  // namespace xrpm::gui
