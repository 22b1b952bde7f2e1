// Roots view: the GC roots grouped by descriptor and flags (local, handle (weak), static, ...)
// or, for statics, by the class that declares them; each group with its record count, distinct
// objects and the bytes they retain, largest first. Opening a group lists its roots (clipped)
// with the object each one holds.
#include <imgui.h>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

std::string GroupName(const Snapshot& snap, const RootGroup& g, bool statics) {
  if (statics)
    return g.container < snap.type_count() ? snap.types[g.container].name
                                           : std::string("(unknown class)");
  std::string s(RootKindName(g.kind));
  if (g.flags) s += " (" + RootFlagsName(g.flags) + ")";
  return s;
}

void DrawRecords(App& app, SnapshotDoc& doc, const RootGroup& g) {
  const DocAnalysis& a = *doc.analysis;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("records", 3, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Object", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Retained", 0, 100);
  ImGui::TableSetupColumn("Root", 0, 320);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(g.records.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t r = g.records[i];
      const uint32_t v = a.index().root_node(r);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      if (v == kNoIndex)
        TextColored(kWarn, FormatHex(doc.snapshot->root_object[r]) + " (no such object)");
      else
        ObjectLink(app, doc, v);
      ImGui::PopID();
      ImGui::TableNextColumn();
      TextRight(v == kNoIndex ? "—" : FormatBytes(a.dom().retained(v)));
      ImGui::TableNextColumn();
      TextMuted(RootText(a.index(), r));
    }
  ImGui::EndTable();
}

}  // namespace

void DrawRootsView(App& app, SnapshotDoc& doc) {
  if (!AnalysisReadyOrNote(doc, "Analysing... the Roots view needs the object graph.")) return;
  const DocAnalysis& a = *doc.analysis;
  const Snapshot& snap = *doc.snapshot;
  RootsViewState& st = app.views().roots;
  if (st.analysis != &a) {
    st.analysis = &a;
    st.open_group = -1;
  }
  if (ImGui::RadioButton("By descriptor and flags", st.mode == 0)) st.mode = 0, st.open_group = -1;
  ImGui::SameLine();
  if (ImGui::RadioButton("Statics by class", st.mode == 1)) st.mode = 1, st.open_group = -1;
  ImGui::SameLine();
  TextMuted(FormatCount(snap.root_count()) + " root records, " +
            FormatCount(a.totals.strong_root_objects) + " strongly rooted objects" +
            (a.roots.dangling ? ", " + FormatCount(a.roots.dangling) + " naming no object" : ""));
  HelpMarker(
      "Retained: the bytes the group's objects keep alive. Groups can overlap: an object "
      "held by two roots counts in both. Weak roots keep nothing alive.");

  const bool statics = st.mode == 1;
  const auto& groups = statics ? a.roots.statics : a.roots.by_kind;
  const double heap = a.totals.reachable_bytes ? double(a.totals.reachable_bytes) : 1.0;
  const float list_h = st.open_group >= 0 ? ImGui::GetContentRegionAvail().y * 0.42f : 0.f;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("groups", 5, flags, ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(statics ? "Class declaring the statics" : "Descriptor (flags)",
                            ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Roots", 0, 90);
    ImGui::TableSetupColumn("Objects", 0, 90);
    ImGui::TableSetupColumn("Retained", 0, 100);
    ImGui::TableSetupColumn("% of live heap", 0, 150);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(groups.size()));
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const RootGroup& g = groups[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(i);
        if (ImGui::Selectable(GroupName(snap, g, statics).c_str(), st.open_group == i,
                              ImGuiSelectableFlags_SpanAllColumns))
          st.open_group = st.open_group == i ? -1 : i;
        ImGui::PopID();
        ImGui::TableNextColumn();
        TextRight(FormatCount(g.records.size()));
        ImGui::TableNextColumn();
        TextRight(FormatCount(g.objects));
        ImGui::TableNextColumn();
        TextRight(FormatBytes(g.retained));
        ImGui::TableNextColumn();
        ShareBar(float(double(g.retained) / heap), FormatPercent(double(g.retained) / heap));
      }
    ImGui::EndTable();
  }
  if (groups.empty()) TextMuted(statics ? "No static roots." : "No roots.");
  if (st.open_group >= 0 && size_t(st.open_group) < groups.size()) {
    ImGui::Spacing();
    SectionTitle(("Roots in " + GroupName(snap, groups[st.open_group], statics)).c_str());
    DrawRecords(app, doc, groups[st.open_group]);
  }
}

}  // namespace xrpm::gui
