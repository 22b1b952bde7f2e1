// Instances view: every object of the selected type (ImGuiListClipper: millions are fine),
// sortable by size and reference count; a click selects the object, a double click opens it
// in the Inspector.
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "views.h"
#include "widgets.h"
#include "xrpm/core/session/human_format.h"

namespace xrpm::gui {
using namespace xrpm::session;

void DrawInstancesView(App& app, SnapshotDoc& doc) {
  const Snapshot& snap = *doc.snapshot;
  if (doc.selection.type < 0) {
    TextMuted("Select a type in the Types view (double-click a row) to list its instances.");
    return;
  }
  InstancesViewState& st = app.views().instances;
  const uint32_t type = static_cast<uint32_t>(doc.selection.type);
  if (st.doc != doc.id || st.type != doc.selection.type) {
    st.doc = doc.id;
    st.type = doc.selection.type;
    st.objects = InstancesOfType(snap, type);
    st.sort_column = -1;  // re-sort below
  }

  TextColored(kAccent, snap.types[type].name);
  ImGui::SameLine();
  TextMuted(FormatCount(st.objects.size()) + " instances");

  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("instances", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Object",
                          ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 0, 0);
  ImGui::TableSetupColumn(
      "Size", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 110,
      1);
  ImGui::TableSetupColumn("References out", ImGuiTableColumnFlags_PreferSortDescending, 130, 2);
  ImGui::TableSetupColumn("Index", ImGuiTableColumnFlags_PreferSortDescending, 110, 3);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
    int col = sort->SpecsCount ? int(sort->Specs[0].ColumnUserID) : 1;
    bool desc =
        sort->SpecsCount ? sort->Specs[0].SortDirection == ImGuiSortDirection_Descending : true;
    if (sort->SpecsDirty || col != st.sort_column || desc != st.sort_descending) {
      st.sort_column = col;
      st.sort_descending = desc;
      SortInstances(snap, st.objects,
                    col == 2   ? InstanceOrder::kRefs
                    : col == 3 ? InstanceOrder::kIndex
                               : InstanceOrder::kSize,
                    desc);
      sort->SpecsDirty = false;
    }
  }

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(st.objects.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint64_t o = st.objects[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string label = FormatHex(snap.object_id[o]);
      if (ImGui::Selectable(
              label.c_str(), doc.selection.object == int64_t(o),
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        doc.selection.object = int64_t(o);
        if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInspector);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      TextRight(FormatBytes(snap.object_size[o]));
      ImGui::TableNextColumn();
      TextRight(FormatCount(snap.object_refs(o).size()));
      ImGui::TableNextColumn();
      TextRight(FormatCount(o));
    }
  }
  ImGui::EndTable();
}

}  // namespace xrpm::gui
