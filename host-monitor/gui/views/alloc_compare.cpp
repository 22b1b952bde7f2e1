// Compare's Allocations mode ("was this patch an improvement?"): pick two frame recordings (the
// live one or ones opened from saved .xrpm files) and a site kind (call stack, allocating method,
// type, scope tag); the session compares them with analysis::DiffAllocations, the function behind
// `xrpm allocations --diff`, and this panel draws its rows as they come: per site, the estimated
// bytes allocated per frame in A and in B and the change, each with its sampling error, largest
// change first, sites seen in one recording only marked. A change within twice its error is drawn
// muted: resampling the same game would show as much.
#include <imgui.h>

#include <cmath>

#include "app.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

std::string Bytes(double v) {
  return FormatBytes(uint64_t(std::llround(std::fabs(v))));
}
// "1.2 KiB ± 80 B" / "+1.2 KiB ± 80 B".
std::string WithError(double v, double error, bool sign) {
  const std::string s = sign && std::llround(v) != 0 ? (v < 0 ? "-" : "+") : "";
  return s + Bytes(v) + " \u00b1 " + Bytes(error);
}

// A combo of the recordings that can be read (live, or opened and ready); sets `id`.
void PickRecording(AppSession& ses, const char* label, uint32_t& id) {
  ImGui::SetNextItemWidth(200);
  if (!ImGui::BeginCombo(label, ses.recordings().Title(id).c_str())) return;
  if (ImGui::Selectable(ses.recordings().Title(kLiveRecording).c_str(), id == kLiveRecording))
    id = kLiveRecording;
  for (const auto& rd : ses.recordings().docs()) {
    if (rd->state != RecordingDoc::State::kReady) continue;
    ImGui::PushID(int(rd->id));
    if (ImGui::Selectable(rd->title.c_str(), id == rd->id)) id = rd->id;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", rd->path.c_str());
    ImGui::PopID();
  }
  ImGui::EndCombo();
}

void Side(const char* label, const std::string& title, const std::string& app,
          const analysis::AllocSide& s) {
  const bool named = app.empty() || title.find(app) != std::string::npos;  // "Live (app)"
  ImGui::Text("%s: %s%s", label, title.c_str(), named ? "" : (" (" + app + ")").c_str());
  ImGui::SameLine(0, 16);
  TextMuted(FormatCount(s.frames) + " frames, one sample per " + FormatBytes(s.sample_bytes) +
            ": " + WithError(s.per_frame, s.error, false) + " per frame (" +
            analysis::FrameTotalsPhrase(s.frame_totals, Bytes(s.exact_per_frame)) + ")");
}

}  // namespace

void DrawAllocComparePanel(App& app) {
  CompareViewState& st = app.views().compare;
  AppSession& ses = app.session();
  if (!ses.recordings().doc(st.alloc_a)) st.alloc_a = kLiveRecording;  // closed since
  if (!ses.recordings().doc(st.alloc_b)) st.alloc_b = kLiveRecording;
  PickRecording(ses, "A (before)", st.alloc_a);
  ImGui::SameLine(0, 16);
  PickRecording(ses, "B (after)", st.alloc_b);
  ImGui::SameLine(0, 16);
  ImGui::SetNextItemWidth(110);
  if (ImGui::BeginCombo("per", analysis::AllocSiteKindName(st.alloc_by))) {
    for (auto k : {analysis::AllocSiteKind::kStack, analysis::AllocSiteKind::kMethod,
                   analysis::AllocSiteKind::kType, analysis::AllocSiteKind::kTag})
      if (ImGui::Selectable(analysis::AllocSiteKindName(k), st.alloc_by == k)) st.alloc_by = k;
    ImGui::EndCombo();
  }
  ImGui::SameLine(0, 16);
  ImGui::BeginDisabled(!ses.Idle());
  if (ImGui::Button("Compare"))
    ses.comparisons().CompareAllocations(st.alloc_a, st.alloc_b, st.alloc_by);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Open recording...")) app.ShowOpenDialog();

  const auto& res = ses.comparisons().allocations();
  if (!res) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Was this patch an improvement? Record frames before and after it (save each recording "
        "from the Timeline, or with xrpm frames -o), open them here or keep one live, then "
        "Compare: per call site, the bytes allocated per frame in A and in B and the change, "
        "each with its sampling error, largest change first. The same figures as xrpm "
        "allocations --diff A.xrpm B.xrpm.");
    ImGui::PopTextWrapPos();
    return;
  }
  const AllocCompareResult& r = *res;
  const analysis::AllocationDiff& d = r.diff;
  ImGui::Separator();
  Side("A", r.titles[0], r.apps[0], d.a);
  Side("B", r.titles[1], r.apps[1], d.b);
  ImGui::SameLine();
  HelpMarker(
      "Estimates scaled from the sampled allocations (one per N bytes on average); the error "
      "is one standard error. A change within about twice its error (drawn grey) is what "
      "recording the same game again would show.");

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("alloc-diff", 5, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  const char* what = d.by == analysis::AllocSiteKind::kStack    ? "Call stack (innermost first)"
                     : d.by == analysis::AllocSiteKind::kMethod ? "Allocating method"
                     : d.by == analysis::AllocSiteKind::kTag    ? "Scope tag"
                                                                : "Type";
  ImGui::TableSetupColumn(what, ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("A per frame", 0, 150);
  ImGui::TableSetupColumn("B per frame", 0, 150);
  ImGui::TableSetupColumn("Change", 0, 160);
  ImGui::TableSetupColumn("", 0, 80);
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(int(d.rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const analysis::AllocDiffRow& row = d.rows[size_t(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.site.c_str());
      if (ImGui::IsItemHovered() && row.frames.size() > 1) {
        ImGui::BeginTooltip();
        for (const std::string& f : row.frames) ImGui::TextUnformatted(f.c_str());
        ImGui::EndTooltip();
      }
      ImGui::TableNextColumn();
      TextRight(row.only_b ? "—" : WithError(row.a_per_frame, row.a_error, false));
      ImGui::TableNextColumn();
      TextRight(row.only_a ? "—" : WithError(row.b_per_frame, row.b_error, false));
      ImGui::TableNextColumn();
      const bool noise = std::fabs(row.change) <= 2 * row.change_error;
      ImGui::PushStyleColor(ImGuiCol_Text, noise ? kMuted : row.change > 0 ? kBad : kGood);
      TextRight(WithError(row.change, row.change_error, true));
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      if (row.only_a) TextColored(kAccent, "only in A");
      if (row.only_b) TextColored(kWarn, "only in B");
    }
  ImGui::EndTable();
}

}  // namespace xrpm::gui
