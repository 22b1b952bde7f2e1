// Dominator tree view: who keeps the memory alive, top-down. The top level lists the objects
// the GC roots hold on their own; each node's children are the objects it alone keeps alive,
// largest retained size first, a page at a time. The visible rows come from DominatorBrowser
// (GUI-free), drawn with a list clipper. Grouped by allocation site (Group by), each expanded
// node lists its children's sites first (objects and retained bytes per site), and the site
// rows expand to those children; with origins every row shows the object's age and site.
#include <imgui.h>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

void DrawDominatorsView(App& app, SnapshotDoc& doc) {
  if (!AnalysisReadyOrNote(doc, "Analysing... the dominator tree is not ready yet.")) return;
  const DocAnalysis& a = *doc.analysis;
  const Snapshot& snap = *doc.snapshot;
  DominatorsViewState& st = app.views().dominators;
  DominatorBrowser& b = st.browser;
  const bool origins = snap.has_origins();
  b.SetGroupBySite(origins && doc.selection.grouping != SiteGrouping::kType);
  if (b.analysis() != &a) b.Reset(doc.analysis);
  if (st.reveal != kNoIndex) {
    st.scroll_to_row = b.Reveal(st.reveal);
    st.reveal = kNoIndex;
  }

  const double heap = a.totals.reachable_bytes ? double(a.totals.reachable_bytes) : 1.0;
  TextMuted("Live heap " + FormatBytes(a.totals.reachable_bytes) + " in " +
            FormatCount(a.totals.reachable_objects) + " objects; " +
            FormatBytes(a.totals.unreachable_bytes) + " unreachable (garbage).");
  HelpMarker(
      "An object's children here are the objects only it keeps alive: freeing it frees "
      "them. Retained = its own size plus all of theirs.");
  ImGui::SameLine(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX() - 230);
  GroupingCombo(doc);
  if (!origins && doc.selection.grouping != SiteGrouping::kType) OriginsOrNote(doc);

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("domtree", origins ? 6 : 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Object", ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableSetupColumn("Retained", 0, 100);
  ImGui::TableSetupColumn("% of live heap", 0, origins ? 110 : 150);
  ImGui::TableSetupColumn("Size", 0, 80);
  if (origins) {
    ImGui::TableSetupColumn("Age (frames)", 0, 95);
    ImGui::TableSetupColumn("Allocation site", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  }
  ImGui::TableHeadersRow();

  const auto& rows = b.Rows();
  const float indent = ImGui::GetFontSize() * 1.1f;
  uint32_t toggle = kNoIndex, more = kNoIndex;
  const DominatorBrowser::Row* group_toggle = nullptr;
  const DominatorBrowser::Row* group_more = nullptr;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  if (st.scroll_to_row >= 0) {
    clipper.ForceDisplayRangeByIndices(int(st.scroll_to_row), int(st.scroll_to_row) + 1);
  }
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const DominatorBrowser::Row& r = rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                           indent * float(std::min<uint32_t>(r.depth, 40)));
      if (r.more) {
        if (ImGui::Selectable(("\u2026 " + FormatCount(r.hidden) + " more (" +
                               FormatBytes(r.hidden_bytes) + ") \u2014 show more")
                                  .c_str())) {
          if (r.in_group)
            group_more = &r;
          else
            more = r.node;
        }
        ImGui::PopID();
        continue;
      }
      if (r.group) {  // the children of r.node allocated at r.site
        const bool open = b.GroupExpanded(r.node, r.site);
        ImGui::TextDisabled(open ? "\u25bc" : "\u25b6");
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, kWarn);
        if (ImGui::Selectable((FormatCount(r.hidden) + (r.hidden == 1 ? " object" : " objects") +
                               " from " + SiteText(snap, r.site))
                                  .c_str(),
                              false, ImGuiSelectableFlags_SpanAllColumns))
          group_toggle = &r;
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Allocated at:\n%s",
                            analysis::SiteLabel(snap, r.site, 0, "\n").c_str());
        ImGui::PopID();
        ImGui::TableNextColumn();
        TextRight(FormatBytes(r.hidden_bytes));
        ImGui::TableNextColumn();
        ShareBar(float(double(r.hidden_bytes) / heap),
                 FormatPercent(double(r.hidden_bytes) / heap));
        continue;
      }
      const bool has_kids = b.HasChildren(r.node);
      const bool open = b.Expanded(r.node);
      ImGui::TextDisabled(has_kids ? (open ? "\u25bc" : "\u25b6") : " ");
      if (has_kids && ImGui::IsItemClicked()) toggle = r.node;
      ImGui::SameLine();
      const bool selected = doc.selection.object == int64_t(r.node);
      if (ImGui::Selectable(
              ObjectLabel(snap, r.node).c_str(), selected,
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        doc.selection.object = r.node;
        doc.selection.type = snap.object_type[r.node];
        if (ImGui::IsMouseDoubleClicked(0))
          app.SetView(View::kInspector);
        else if (has_kids)
          toggle = r.node;
      }
      if (int64_t(i) == st.scroll_to_row) {
        ImGui::SetScrollHereY(0.3f);
        st.scroll_to_row = -1;
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      TextRight(FormatBytes(a.dom().retained(r.node)));
      ImGui::TableNextColumn();
      ShareBar(float(double(a.dom().retained(r.node)) / heap),
               FormatPercent(double(a.dom().retained(r.node)) / heap));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(snap.object_size[r.node]));
      if (origins) {
        const bool known = snap.origin_known(r.node);
        ImGui::TableNextColumn();
        TextRight(known ? FormatCount(snap.age_frames(r.node)) : "?");
        ImGui::TableNextColumn();
        if (known)
          ImGui::TextUnformatted(SiteText(snap, SiteOfObject(snap, r.node)).c_str());
        else
          TextMuted(std::string(analysis::kUnknownSiteLabel));
      }
    }
  ImGui::EndTable();
  if (group_toggle) b.ToggleGroup(group_toggle->node, group_toggle->site);
  if (group_more) b.ShowMoreOfGroup(group_more->node, group_more->site);
  if (toggle != kNoIndex) b.Toggle(toggle);
  if (more != kNoIndex) b.ShowMore(more);
}

}  // namespace xrpm::gui
