// Age view: the live objects by age in frames at the capture (log2 bins: 0, 1, 2–3, 4–7, ...
// frames), as bytes or objects, from the analysis' age histogram; objects whose origin was not
// recorded are a separate, muted bar at the right, never binned. A click on a bar lists what it
// holds by (type, site) below (ContentsOfAge, one pass over the objects, cached per bar); a
// double click on a row opens those instances. Without origins it says why.
//
// Thread-safety: UI thread only.
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

// Draws the bars; returns the clicked bin (-1: none).
int64_t DrawHistogram(const analysis::AgeHistogram& h, bool counts, int64_t selected,
                      float height) {
  const size_t n = h.bins.size();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float label_h = ImGui::GetTextLineHeight() * 2 + 6;
  const float plot_h = height - label_h;
  const float slots = float(n) + 1.6f;  // the bins, a gap, the unknown bar
  const float slot_w = width / std::max(slots, 1.f);
  const float bar_w = std::max(2.f, slot_w * 0.8f);
  auto value = [&](uint64_t c, uint64_t b) { return double(counts ? c : b); };
  double top = value(h.unknown_count, h.unknown_bytes);
  for (const auto& b : h.bins) top = std::max(top, value(b.count, b.bytes));
  if (top <= 0) top = 1;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + plot_h), IM_COL32(0, 0, 0, 50));
  const ImU32 bar = ImGui::ColorConvertFloat4ToU32(kAccent);
  const ImU32 chosen = ImGui::ColorConvertFloat4ToU32(kWarn);
  const ImU32 muted = ImGui::ColorConvertFloat4ToU32(kMuted);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  int64_t clicked = -1;
  auto draw_bar = [&](float x, double v, ImU32 col, const std::string& label,
                      const std::string& tip, int id) -> bool {
    const float bh = float(v / top) * (plot_h - ImGui::GetTextLineHeight() - 6);
    dl->AddRectFilled(ImVec2(x, origin.y + plot_h - bh), ImVec2(x + bar_w, origin.y + plot_h), col);
    if (v > 0) {  // the bar's value on top of it, when it fits
      const std::string vs = counts ? FormatShortCount(v) : FormatBytes(static_cast<uint64_t>(v));
      const ImVec2 sz = ImGui::CalcTextSize(vs.c_str());
      if (sz.x <= slot_w)
        dl->AddText(ImVec2(x + bar_w / 2 - sz.x / 2, origin.y + plot_h - bh - sz.y - 2), muted,
                    vs.c_str());
    }
    const ImVec2 ls = ImGui::CalcTextSize(label.c_str());
    if (ls.x <= slot_w * 1.9f || n < 12)
      dl->AddText(ImVec2(x + bar_w / 2 - ls.x / 2, origin.y + plot_h + 3 + (id % 2) * (ls.y + 1)),
                  text, label.c_str());
    ImGui::SetCursorScreenPos(ImVec2(x, origin.y));
    ImGui::PushID(id);
    const bool hit = ImGui::InvisibleButton("##bar", ImVec2(bar_w, plot_h));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip.c_str());
    ImGui::PopID();
    return hit;
  };
  for (size_t i = 0; i < n; ++i) {
    const auto& b = h.bins[i];
    const float x = origin.x + slot_w * float(i) + (slot_w - bar_w) / 2;
    const std::string range = AgeRangeText(b);
    std::string tip = range + " old\n" + FormatCount(b.count) + " objects, " + FormatBytes(b.bytes);
    if (h.sampled) tip += "\n(sampled; estimate " + FormatBytes(uint64_t(b.est_bytes)) + ")";
    tip += "\nClick: what these are";
    std::string label = range.substr(0, range.find(' '));  // "4–7" without " frames"
    if (draw_bar(x, value(b.count, b.bytes), int64_t(i) == selected ? chosen : bar, label, tip,
                 int(i)))
      clicked = int64_t(i);
  }
  if (h.unknown_count) {
    const float x = origin.x + slot_w * (float(n) + 0.6f) + (slot_w - bar_w) / 2;
    draw_bar(x, value(h.unknown_count, h.unknown_bytes), muted, "unknown",
             FormatCount(h.unknown_count) + " objects, " + FormatBytes(h.unknown_bytes) +
                 " of unknown origin (not sampled): no age",
             int(n) + 1);
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + height));
  ImGui::Dummy(ImVec2(width, 1));
  return clicked;
}

void DrawContents(App& app, SnapshotDoc& doc, const AgeRangeContents& c) {
  const Snapshot& snap = *doc.snapshot;
  SectionTitle(("Aged " + AgeRangeText({c.first, c.last}) + ": " + FormatCount(c.count) +
                " objects, " + FormatBytes(c.bytes) + " \u2014 by type and allocation site")
                   .c_str());
  if (!ImGui::BeginTable("age_rows", 4,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                             ImGuiTableFlags_Resizable))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Type (double-click: these instances)", 0, 300);
  ImGui::TableSetupColumn("Allocation site", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Objects", 0, 100);
  ImGui::TableSetupColumn("Shallow", 0, 100);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(int(c.rows.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const auto& r = c.rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      if (ImGui::Selectable(
              std::string(r.type).c_str(),
              doc.selection.type == r.type_index && doc.selection.site == r.site,
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        doc.selection.type = r.type_index;
        doc.selection.site = r.site;
        doc.selection.object = -1;
        if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInstances);
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", analysis::SiteLabel(snap, r.site, 0, "\n").c_str());
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(SiteText(snap, r.site).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatCount(r.count));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(r.bytes));
    }
  ImGui::EndTable();
}

}  // namespace

void DrawAgeView(App& app, SnapshotDoc& doc) {
  if (!OriginsOrNote(doc)) return;
  if (!AnalysisReadyOrNote(doc, "Analysing... ages come with the analysis.")) return;
  const DocAnalysis& a = *doc.analysis;
  const analysis::AgeHistogram& h = a.origins.ages;
  AgeViewState& st = app.views().age;

  ImGui::Checkbox("Objects instead of bytes", &st.counts);
  ImGui::SameLine(0, 16);
  ImGui::PushTextWrapPos(0);
  TextMuted("Live objects by age in frames at the capture (frame " + FormatCount(h.capture_frame) +
            "), log2 bins  \u00b7  " + FormatCount(h.known_count) + " objects, " +
            FormatBytes(h.known_bytes) + " with an age" + (h.sampled ? " (sampled objects)" : "") +
            "  \u00b7  " + FormatCount(h.unknown_count) + " objects, " +
            FormatBytes(h.unknown_bytes) + " of unknown origin, shown apart");
  ImGui::PopTextWrapPos();
  if (h.known_count == 0) {
    TextColored(kWarn, "No object of this capture has a recorded allocation.");
    return;
  }
  const float chart_h = std::max(160.f, ImGui::GetContentRegionAvail().y * 0.42f);
  const int64_t clicked = DrawHistogram(h, st.counts, doc.selection.age_bin, chart_h);
  if (clicked >= 0) doc.selection.age_bin = clicked;

  const int64_t bin = doc.selection.age_bin;
  if (bin < 0 || size_t(bin) >= h.bins.size()) {
    ImGui::Spacing();
    TextMuted("Click a bar to see which types and allocation sites it holds.");
    return;
  }
  if (st.analysis != &a || st.bin != bin) {
    st.analysis = &a;
    st.bin = bin;
    st.contents = ContentsOfAge(*doc.snapshot, h.bins[bin].first, h.bins[bin].last);
  }
  DrawContents(app, doc, st.contents);
}

}  // namespace xrpm::gui
